import type { Plugin, PluginContext } from '../host/plugin-api.ts'
import { invariantFold } from './invariant-fold.ts'

/** The invariant companion: registers the fold the host validates on open and before every append (SPEC 6). */
export function createInvariantPlugin(): Plugin {
  return {
    name: 'time-context-invariant',
    install(ctx: PluginContext): void {
      ctx.registerFold(invariantFold)
    },
  }
}

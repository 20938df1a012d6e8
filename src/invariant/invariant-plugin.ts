import type { Plugin, PluginContext } from '../host/index.ts'
import { TIME_CONTEXT_INVARIANT_PLUGIN } from '../protocol/index.ts'
import { invariantFold } from './invariant-fold.ts'

/** The invariant companion: registers the fold the host validates on open and before every append (SPEC 6). */
export function createInvariantPlugin(): Plugin {
  return {
    name: TIME_CONTEXT_INVARIANT_PLUGIN,
    install(ctx: PluginContext): void {
      ctx.registerFold(invariantFold)
    },
  }
}

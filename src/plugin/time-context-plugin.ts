import type { Plugin, PluginContext, PreStepListener } from '../host/index.ts'
import { TIME_CONTEXT_PLUGIN } from '../protocol/index.ts'
import { resolveTimeContextConfig } from './config.ts'
import type { ResolveConfigOptions } from './config.ts'
import { decideReading } from './decide.ts'
import { timeContextIndexFold } from './index-fold.ts'

/** The time-context plugin: validates its config now and, once installed, appends one reading per entering batch (SPEC 5). */
export function createTimeContextPlugin(rawConfig?: unknown, options: ResolveConfigOptions = {}): Plugin {
  const config = resolveTimeContextConfig(rawConfig, options)
  return {
    name: TIME_CONTEXT_PLUGIN,
    install(ctx: PluginContext): void {
      ctx.registerFold(timeContextIndexFold)
      const listener: PreStepListener = async (payload, next) => {
        const decision = await next()
        if (ctx.disposed || payload.signal.aborted) return decision
        if (decision.kind === 'reject' || decision.messages.length === 0) return decision
        const now = ctx.clock.now()
        const reading = decideReading({
          index: payload.session.fold(timeContextIndexFold),
          header: payload.session.header,
          fallbackZone: config.fallbackZone,
          refreshIntervalMs: config.refreshIntervalMs,
          turn: payload.turn,
          step: payload.step,
          messages: decision.messages,
          now,
        })
        return reading === null ? decision : { kind: 'enter', messages: [...decision.messages, reading] }
      }
      ctx.on('agent/pre-step', listener, { prepend: true })
    },
  }
}

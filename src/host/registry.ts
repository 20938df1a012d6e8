import type { SessionEvent } from '../protocol/index.ts'
import type {
  Clock,
  FoldReader,
  Plugin,
  PluginContext,
  PreStepDecision,
  PreStepListener,
  PreStepPayload,
  SessionFold,
  SessionView,
  ToolDefinition,
} from './plugin-api.ts'

type Owned<T> = { value: T; owner: HostPluginContext }

/** Everything plugins registered with a host: listeners (outermost first), tools, folds, hooks. */
export class PluginRegistry {
  readonly preStep: Owned<PreStepListener>[] = []
  readonly tools = new Map<string, Owned<ToolDefinition>>()
  readonly folds: Owned<SessionFold<unknown>>[] = []
  readonly openHooks: Owned<(session: SessionView) => void>[] = []
  readonly appendHooks: Owned<(session: SessionView, event: SessionEvent) => void>[] = []
  readonly closeHooks: Owned<(session: SessionView) => void>[] = []
  readonly nextDue: Owned<(folds: FoldReader) => number | null>[] = []
  private readonly foldRemoved = new Set<(fold: SessionFold<unknown>) => void>()

  /** Notifies when a disposed plugin's fold stops being maintained. */
  onFoldRemoved(callback: (fold: SessionFold<unknown>) => void): void {
    this.foldRemoved.add(callback)
  }

  /** Removes everything a plugin context registered. */
  removeOwner(owner: HostPluginContext): void {
    const keep = <T>(list: Owned<T>[]): void => {
      for (let i = list.length - 1; i >= 0; i--) if (list[i].owner === owner) list.splice(i, 1)
    }
    keep(this.preStep)
    keep(this.openHooks)
    keep(this.appendHooks)
    keep(this.closeHooks)
    keep(this.nextDue)
    for (const [name, entry] of this.tools) if (entry.owner === owner) this.tools.delete(name)
    for (let i = this.folds.length - 1; i >= 0; i--) {
      if (this.folds[i].owner === owner) {
        const [removed] = this.folds.splice(i, 1)
        for (const cb of this.foldRemoved) cb(removed.value)
      }
    }
  }

  /** Runs the pre-step waterfall (SPEC 3.2): outermost first, innermost enters the claimed batch. */
  async runPreStep(payload: PreStepPayload): Promise<PreStepDecision> {
    const chain = this.preStep.slice()
    const claimed = payload.messages
    const call = async (i: number): Promise<PreStepDecision> => {
      if (i >= chain.length) return { kind: 'enter', messages: claimed.slice() }
      const { value: listener, owner } = chain[i]
      if (owner.disposed) return call(i + 1)
      let downstream: Promise<PreStepDecision> | undefined
      const next = (): Promise<PreStepDecision> => (downstream ??= call(i + 1))
      const decision = await listener({ ...payload, messages: claimed.slice() }, next)
      if (owner.disposed) return next()
      return decision
    }
    return call(0)
  }
}

/** The context one installed plugin works through; disposing it removes all it registered. */
export class HostPluginContext implements PluginContext {
  private readonly controller = new AbortController()
  /** Read on every append and step (hooks, tools, the waterfall): a field, not the signal's getters. */
  private gone = false

  constructor(
    readonly pluginName: string,
    private readonly registry: PluginRegistry,
    readonly clock: Clock,
    private readonly logger: (line: string) => void,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal
  }

  get disposed(): boolean {
    return this.gone
  }

  on(event: 'agent/pre-step', listener: PreStepListener, options?: { prepend?: boolean }): void {
    if (this.disposed) return
    if (event !== 'agent/pre-step') throw new Error(`unknown event ${String(event)}`)
    const entry = { value: listener, owner: this }
    if (options?.prepend) this.registry.preStep.unshift(entry)
    else this.registry.preStep.push(entry)
  }

  registerFold<S>(fold: SessionFold<S>): void {
    if (this.disposed) return
    this.registry.folds.push({ value: fold as SessionFold<unknown>, owner: this })
  }

  registerTool(tool: ToolDefinition): void {
    if (this.disposed) return
    if (this.registry.tools.has(tool.name)) throw new Error(`tool ${tool.name} is already registered`)
    this.registry.tools.set(tool.name, { value: tool, owner: this })
  }

  onSessionOpen(callback: (session: SessionView) => void): void {
    if (this.disposed) return
    this.registry.openHooks.push({ value: callback, owner: this })
  }

  onAppend(callback: (session: SessionView, event: SessionEvent) => void): void {
    if (this.disposed) return
    this.registry.appendHooks.push({ value: callback, owner: this })
  }

  onSessionClose(callback: (session: SessionView) => void): void {
    if (this.disposed) return
    this.registry.closeHooks.push({ value: callback, owner: this })
  }

  provideNextDue(compute: (folds: FoldReader) => number | null): void {
    if (this.disposed) return
    this.registry.nextDue.push({ value: compute, owner: this })
  }

  log(message: string): void {
    this.logger(`[${this.pluginName}] ${message}`)
  }

  /** Removes every listener, tool, fold and hook of this plugin and aborts its signal. */
  dispose(): void {
    if (this.disposed) return
    this.gone = true
    this.controller.abort(new Error(`plugin ${this.pluginName} disposed`))
    this.registry.removeOwner(this)
  }
}

/** Installs a plugin into a registry and returns its context (dispose it to uninstall). */
export async function installPlugin(
  plugin: Plugin,
  registry: PluginRegistry,
  clock: Clock,
  logger: (line: string) => void,
): Promise<HostPluginContext> {
  const ctx = new HostPluginContext(plugin.name, registry, clock, logger)
  await plugin.install(ctx)
  return ctx
}

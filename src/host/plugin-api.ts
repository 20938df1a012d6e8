import type { SessionEvent, SessionHeader, UserMessage, EventDraft } from '../protocol/index.ts'

/** The wall clock, injected so tests can fake it. */
export interface Clock {
  now(): number
}

/** The process wall clock. */
export const systemClock: Clock = { now: () => Date.now() }

/** Timers, injectable so tests can fire them by hand. */
export interface Timers {
  set(callback: () => void, ms: number): unknown
  clear(handle: unknown): void
}

/** Real timers. */
export const realTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

/**
 * A per-session view that is a pure function of the durable events: folded over the log on open
 * and on every append. `validate` runs before an event is written (and on open before `apply`);
 * throwing there rejects the append or refuses to open the session.
 */
export interface SessionFold<S> {
  readonly name: string
  init(header: SessionHeader): S
  apply(state: S, event: SessionEvent): S
  validate?(state: S, event: SessionEvent, header: SessionHeader): void
}

/** Reads the states of a session's folds (an open session, or a log being scanned). */
export interface FoldReader {
  /** The state of a fold registered through a plugin context. */
  fold<S>(fold: SessionFold<S>): S
}

/** What a plugin sees of a session. */
export interface SessionView {
  readonly id: string
  readonly header: SessionHeader
  /** Number of durable events (the next seq). */
  readonly length: number
  /** Durable event by seq. */
  event(seq: number): SessionEvent | undefined
  /** All durable events; O(n) copy-free view, do not mutate. */
  events(): readonly SessionEvent[]
  /** The state of a fold registered through a plugin context. */
  fold<S>(fold: SessionFold<S>): S
  /** Append events in order and resolve once written; plugins use it for their own records. */
  append(drafts: EventDraft[]): Promise<SessionEvent[]>
  /** Durability barrier: resolves true when everything appended before the call is on disk. */
  flush(): Promise<boolean>
  /** True while a turn (or a maintenance task) holds the session. */
  readonly running: boolean
  /** True once the session was closed or its store failed: it takes no more work (it is reopened as a new view). */
  readonly closed: boolean
  /** Resolves when no turn or maintenance task holds the session. */
  whenIdle(): Promise<void>
  /** Runs a task holding the idle session exclusively; throws synchronously when a turn is running or the session is closed. */
  runMaintenance<T>(task: () => Promise<T>): Promise<T>
  /**
   * Queues a message durably (appends `inbox/enqueued` and flushes) and starts a turn when idle;
   * `with` events are appended together with it, in one durable step (one transaction on PostgreSQL).
   */
  enqueue(message: UserMessage, target: 'next-turn' | 'next-step', withEvents?: EventDraft[]): Promise<void>
}

/** Decision of the pre-step waterfall (SPEC 3.2). */
export type PreStepDecision = { kind: 'reject' } | { kind: 'enter'; messages: UserMessage[] }

/** Payload handed to pre-step listeners. */
export type PreStepPayload = {
  session: SessionView
  turn: number
  step: number
  messages: UserMessage[]
  signal: AbortSignal
}

/** A pre-step listener (SPEC 3.2). */
export type PreStepListener = (
  payload: PreStepPayload,
  next: () => Promise<PreStepDecision>,
) => Promise<PreStepDecision>

/** Context handed to a running tool. */
export type ToolContext = {
  session: SessionView
  turn: number
  step: number
  callId: string
  signal: AbortSignal
}

/** JSON schema of tool parameters, as sent to the model. */
export type JsonSchema = Record<string, unknown>

/** A tool offered to the model. */
export interface ToolDefinition {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema
  /** Runs the call; the returned text is the tool result. Throwing yields an error result. */
  execute(args: unknown, ctx: ToolContext): Promise<{ text: string; isError?: boolean }>
}

/** What a plugin gets from the host when it is installed. */
export interface PluginContext {
  readonly clock: Clock
  /** Aborted when the plugin is disposed. */
  readonly signal: AbortSignal
  readonly disposed: boolean
  on(event: 'agent/pre-step', listener: PreStepListener, options?: { prepend?: boolean }): void
  registerFold<S>(fold: SessionFold<S>): void
  registerTool(tool: ToolDefinition): void
  /** Called after a session is opened (created or loaded) with all folds built. */
  onSessionOpen(callback: (session: SessionView) => void): void
  /** Called after every append, in order, with folds already updated. */
  onAppend(callback: (session: SessionView, event: SessionEvent) => void): void
  /** Called when an open session is closed (evicted, failed or the host stops): drop everything held for it. */
  onSessionClose(callback: (session: SessionView) => void): void
  /**
   * Tells the host when this plugin next needs a session that may be closed by then (the due index,
   * SPEC 12.1): the earliest time, from the session's fold states, or null. The host reopens the
   * session at that time.
   */
  provideNextDue(compute: (folds: FoldReader) => number | null): void
  /** Logs one line through the host. */
  log(message: string): void
}

/** A plugin: a name and an install function. */
export interface Plugin {
  readonly name: string
  install(ctx: PluginContext): void | Promise<void>
}

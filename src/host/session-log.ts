import type { EventDraft, SessionEvent, SessionHeader } from '../protocol/events.ts'
import { HostError } from './errors.ts'
import type { Clock, SessionFold } from './plugin-api.ts'
import type { SessionFileWriter } from './session-file.ts'

/** Called after each durable append with the written events. */
export type AppendListener = (events: readonly SessionEvent[]) => void

/**
 * The durable log of one session in memory: events appear here only once written, folds are
 * rebuilt on open and advanced on append, appends are serialized, `flush()` is an fsync barrier.
 */
export class SessionLog {
  private readonly list: SessionEvent[]
  private readonly states = new Map<SessionFold<unknown>, unknown>()
  private chain: Promise<unknown> = Promise.resolve()
  private failure: Error | null = null
  private readonly listeners = new Set<AppendListener>()

  constructor(
    readonly header: SessionHeader,
    events: SessionEvent[],
    private readonly writer: SessionFileWriter,
    private readonly clock: Clock,
    folds: readonly SessionFold<unknown>[],
  ) {
    this.list = events
    for (const fold of folds) this.addFold(fold)
  }

  /** Number of durable events. */
  get length(): number {
    return this.list.length
  }

  /** All durable events (read only). */
  events(): readonly SessionEvent[] {
    return this.list
  }

  /** Event by seq. */
  event(seq: number): SessionEvent | undefined {
    return this.list[seq]
  }

  /** Builds a fold over the whole log, validating every event; throws when the log violates it. */
  addFold(fold: SessionFold<unknown>): void {
    let state = fold.init(this.header)
    for (const event of this.list) {
      fold.validate?.(state, event, this.header)
      state = fold.apply(state, event)
    }
    this.states.set(fold, state)
  }

  /** Stops maintaining a fold. */
  removeFold(fold: SessionFold<unknown>): void {
    this.states.delete(fold)
  }

  /** Current state of a fold. */
  fold<S>(fold: SessionFold<S>): S {
    const key = fold as SessionFold<unknown>
    if (!this.states.has(key)) throw new Error(`fold ${fold.name} is not registered`)
    return this.states.get(key) as S
  }

  /** Subscribes to durable appends; returns the unsubscribe function. */
  subscribe(listener: AppendListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Appends drafts in order; resolves with the events once they are written (not yet fsynced). */
  append(drafts: readonly EventDraft[]): Promise<SessionEvent[]> {
    const run = this.chain.then(() => this.write(drafts))
    this.chain = run.catch(() => undefined)
    return run
  }

  /** Durability barrier: true when everything appended before the call is on disk. */
  flush(): Promise<boolean> {
    const run = this.chain.then(async () => {
      if (this.failure) return false
      try {
        await this.writer.sync()
        return true
      } catch (error) {
        this.failure = error instanceof Error ? error : new Error(String(error))
        return false
      }
    })
    this.chain = run.catch(() => undefined)
    return run
  }

  /** Waits for pending appends and closes the file. */
  async close(): Promise<void> {
    await this.chain
    await this.writer.close()
  }

  private async write(drafts: readonly EventDraft[]): Promise<SessionEvent[]> {
    if (this.failure) {
      throw new HostError('append-failed', `session ${this.header.id} cannot append: ${this.failure.message}`)
    }
    if (drafts.length === 0) return []
    const time = this.clock.now()
    const events: SessionEvent[] = drafts.map((draft, i) => {
      const base = { seq: this.list.length + i, time, type: draft.type, data: draft.data }
      return (draft.surfaceOp === undefined ? base : { ...base, surfaceOp: draft.surfaceOp }) as SessionEvent
    })
    const saved = new Map(this.states)
    try {
      for (const event of events) {
        for (const [fold, state] of this.states) {
          fold.validate?.(state, event, this.header)
          this.states.set(fold, fold.apply(state, event))
        }
      }
    } catch (error) {
      this.rebuildFolds(saved)
      throw error
    }
    try {
      await this.writer.writeLines(events.map((e) => JSON.stringify(e)))
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error))
      throw new HostError('append-failed', `session ${this.header.id} append failed: ${this.failure.message}`)
    }
    for (const event of events) this.list.push(event)
    for (const listener of this.listeners) {
      try {
        listener(events)
      } catch (error) {
        console.error(`append listener failed: ${String(error)}`)
      }
    }
    return events
  }

  private rebuildFolds(previous: Map<SessionFold<unknown>, unknown>): void {
    for (const fold of previous.keys()) {
      let state = fold.init(this.header)
      for (const event of this.list) state = fold.apply(state, event)
      this.states.set(fold, state)
    }
  }
}

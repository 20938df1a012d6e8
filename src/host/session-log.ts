import type { EventDraft, SessionEvent, SessionHeader } from '../protocol/index.ts'
import { errorMessage } from '../protocol/index.ts'
import type { Clock, FoldReader, SessionFold } from './plugin-api.ts'
import { corruptSession, type StoreError } from './store/index.ts'
import type { OpenVisitor, SessionWriter, StoredSummary } from './store/index.ts'

/** Called with events: after they are written (the loop's view) or once durable (what readers see). */
export type AppendListener = (events: readonly SessionEvent[]) => void

/**
 * Builds a session's views while the store streams its log on open: every fold validates and
 * applies each event in the same single pass that collects it (SPEC 12.1: one fused pass).
 * A fold that rejects an event makes the session corrupt at that seq.
 */
/** Bump when a validator changes what it accepts: prefixes validated before are validated again. */
const VALIDATION_VERSION = 1

export class FoldingVisitor implements OpenVisitor, FoldReader {
  readonly events: SessionEvent[] = []
  /** Events visited and the time of the last one. */
  count = 0
  lastTime: number | null = null
  private head: SessionHeader | null = null
  /** Each fold's state, at the fold's index in `folds` (an array: this runs for every event of a log). */
  private readonly values: unknown[] = []

  constructor(
    private readonly sessionId: string,
    private readonly folds: readonly SessionFold<unknown>[],
    /** False for a check that only validates: the events are not kept. */
    private readonly keep = true,
  ) {
    const validators = folds.filter((fold) => fold.validate !== undefined).map((fold) => fold.name)
    this.trustKey = `${VALIDATION_VERSION}|tz ${process.versions.tz ?? 'unknown'}|${validators.join(',')}`
  }

  /** The validators and tzdata this visitor validates with. */
  readonly trustKey: string

  /** Each fold's state after the events visited so far. */
  get states(): Map<SessionFold<unknown>, unknown> {
    return new Map(this.folds.map((fold, i) => [fold, this.values[i]]))
  }

  /** The header the store read (throws before it did). */
  get headerRead(): SessionHeader {
    if (this.head === null) throw new Error(`session ${this.sessionId} has no header yet`)
    return this.head
  }

  header(header: SessionHeader): void {
    this.head = header
    this.events.length = 0
    this.count = 0
    this.lastTime = null
    for (let i = 0; i < this.folds.length; i++) this.values[i] = this.folds[i].init(header)
  }

  event(event: SessionEvent, trusted = false): void {
    const header = this.headerRead
    const { folds, values } = this
    for (let i = 0; i < folds.length; i++) {
      const fold = folds[i]
      try {
        if (!trusted) fold.validate?.(values[i], event, header)
        values[i] = fold.apply(values[i], event)
      } catch (error) {
        throw corruptSession(this.sessionId, event.seq, errorMessage(error))
      }
    }
    if (this.keep) this.events.push(event)
    this.count++
    this.lastTime = event.time
  }

  fold<S>(fold: SessionFold<S>): S {
    return this.values[this.folds.indexOf(fold as SessionFold<unknown>)] as S
  }
}

/**
 * The log of one open session. Appends are folded and queued at once (the loop's own view), and
 * become visible to readers only once durable (SPEC 2.5): `durableLength`, `durableSlice` and
 * `onDurable` never name an event whose barrier has not resolved. `flush()` is the barrier.
 */
export class SessionLog {
  private readonly list: SessionEvent[]
  private readonly states: Map<SessionFold<unknown>, unknown>
  private readonly writtenListeners = new Set<AppendListener>()
  private readonly durableListeners = new Set<AppendListener>()
  private visible: number

  constructor(
    readonly header: SessionHeader,
    built: { events: SessionEvent[]; states: Map<SessionFold<unknown>, unknown> },
    private readonly writer: SessionWriter,
    private readonly clock: Clock,
    /** The summary the store keeps after each append (SPEC 14.1). */
    private readonly summarize: (folds: FoldReader, eventCount: number, lastEventAt: number | null) => StoredSummary,
  ) {
    this.list = built.events
    this.states = built.states
    this.visible = writer.durableCount
    writer.onDurable((count) => this.advance(count))
  }

  /** Number of events in the loop's view (the next seq). */
  get length(): number {
    return this.list.length
  }

  /** Number of durable, visible events. */
  get durableLength(): number {
    return this.visible
  }

  /** The failure that stopped this log's writer, or null. */
  get failure(): StoreError | null {
    return this.writer.failure
  }

  /** All events of the loop's view (read only). */
  events(): readonly SessionEvent[] {
    return this.list
  }

  /** Event by seq in the loop's view. */
  event(seq: number): SessionEvent | undefined {
    return this.list[seq]
  }

  /** Durable events with seq in [from, to). */
  durableSlice(from: number, to = this.visible): SessionEvent[] {
    return this.list.slice(Math.max(0, from), Math.min(to, this.visible))
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

  /** Subscribes to appends as they enter the loop's view; returns the unsubscribe function. */
  onWritten(listener: AppendListener): () => void {
    this.writtenListeners.add(listener)
    return () => this.writtenListeners.delete(listener)
  }

  /** Subscribes to events becoming durable and visible; returns the unsubscribe function. */
  onDurable(listener: AppendListener): () => void {
    this.durableListeners.add(listener)
    return () => this.durableListeners.delete(listener)
  }

  /** Calls back once when the writer fails. */
  onFailure(listener: (error: StoreError) => void): void {
    this.writer.onFailure(listener)
  }

  /**
   * Appends drafts in order: folds validate them first (a rejection writes nothing), then they are
   * queued for the writer. Resolves with the events; they are durable once `flush()` says so.
   */
  append(drafts: readonly EventDraft[]): Promise<SessionEvent[]> {
    try {
      return Promise.resolve(this.appendNow(drafts))
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  /** Durability barrier: true once everything appended before the call is durable, false when the store failed. */
  flush(): Promise<boolean> {
    return this.writer.barrier().then(
      () => true,
      () => false,
    )
  }

  /** Hands the store the summary of the log as it stands (after opening). */
  publishSummary(): void {
    if (!this.writer.failure) this.writer.append([], this.summarize(this, this.list.length, this.list.at(-1)?.time ?? null))
  }

  /** The writer of this log, for repair after a failure. */
  get store(): SessionWriter {
    return this.writer
  }

  /** Waits for queued appends and closes the writer. */
  async close(): Promise<void> {
    await this.writer.close()
  }

  private appendNow(drafts: readonly EventDraft[]): SessionEvent[] {
    if (this.writer.failure) throw this.writer.failure
    if (drafts.length === 0) return []
    const time = this.clock.now()
    // two literals, so every event shares one of two hidden classes (a spread plus a key made a new one per event)
    const events: SessionEvent[] = drafts.map((draft, i) => {
      const seq = this.list.length + i
      const { type, data, surfaceOp } = draft
      return (surfaceOp === undefined ? { seq, time, type, data } : { seq, time, type, data, surfaceOp }) as SessionEvent
    })
    try {
      for (const event of events) {
        for (const [fold, state] of this.states) {
          fold.validate?.(state, event, this.header)
          this.states.set(fold, fold.apply(state, event))
        }
      }
    } catch (error) {
      this.rebuildFolds()
      throw error
    }
    try {
      this.writer.append(events, this.summarize(this, this.list.length + events.length, time))
    } catch (error) {
      this.rebuildFolds()
      throw error
    }
    for (const event of events) this.list.push(event)
    for (const listener of this.writtenListeners) listener(events)
    return events
  }

  private advance(count: number): void {
    const from = this.visible
    if (count <= from) return
    this.visible = count
    const events = this.list.slice(from, count)
    for (const listener of this.durableListeners) listener(events)
  }

  private rebuildFolds(): void {
    for (const fold of this.states.keys()) {
      let state = fold.init(this.header)
      for (const event of this.list) state = fold.apply(state, event)
      this.states.set(fold, state)
    }
  }
}

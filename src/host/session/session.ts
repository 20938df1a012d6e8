import type { EventDraft, InboxTarget, SessionEvent, SessionHeader, UserMessage } from '../../protocol/index.ts'
import { appendDelta, errorMessage } from '../../protocol/index.ts'
import { compactionDrafts } from '../compaction.ts'
import { inboxFold, loopFold, surfaceFold } from '../folds.ts'
import type { Model } from '../models/model.ts'
import type { Clock, SessionFold, SessionView } from '../plugin-api.ts'
import type { PluginRegistry } from '../registry.ts'
import type { SessionLog } from '../session-log.ts'
import { storageUnavailable, type StoreError } from '../store/index.ts'
import { SurfaceMessages } from '../surface.ts'
import { Inbox } from './inbox.ts'
import { SessionLock, type SessionActivity } from './lock.ts'
import { HostStopping, INTERRUPTED, runTurn, type AssistantDelta } from './turn-runner.ts'

/** Settings shared by every session of a host. */
export type SessionRuntimeOptions = {
  registry: PluginRegistry
  model: Model
  clock: Clock
  systemPrompt: string
  /** Surface size (characters) above which a compaction runs after a turn; 0 disables. */
  compactThresholdChars: number
  log: (line: string) => void
}

/** One open session: its log, inbox, lock and agent loop (SPEC 2, 3). */
export class Session implements SessionView {
  private readonly lock: SessionLock
  private readonly inbox: Inbox
  private controller: AbortController | null = null
  private readonly lifetime = new AbortController()
  /** Whether `lifetime` was aborted, read on every append and request without the signal's getters. */
  private stopped = false
  private kickScheduled = false
  private readonly deltaListeners = new Set<(delta: AssistantDelta) => void>()
  private readonly streamingEndListeners = new Set<() => void>()
  /** The text streamed so far of the step whose answer is not written yet (transient, never stored). */
  private streamed: AssistantDelta | null = null
  private readonly statusListeners = new Set<(status: SessionActivity) => void>()
  /** Ended turns whose `turn/end` is not durable yet: the session reports `running` until it is. */
  private settling = 0
  private reported: SessionActivity = 'idle'
  /** The model messages of the surface, built incrementally across steps and turns. */
  private readonly surfaceMessages = new SurfaceMessages()

  constructor(
    readonly log: SessionLog,
    private readonly options: SessionRuntimeOptions,
  ) {
    this.lock = new SessionLock(log.header.id, () => this.report())
    this.inbox = new Inbox(() => log.fold(inboxFold))
    log.onFailure((error) => this.stop(error))
    log.onWritten((events) => {
      if (this.streamed === null || !events.some((e) => e.type === 'assistant/message' || e.type === 'turn/end')) return
      this.streamed = null
      for (const listener of this.streamingEndListeners) listener()
    })
  }

  get id(): string {
    return this.log.header.id
  }

  get header(): SessionHeader {
    return this.log.header
  }

  get length(): number {
    return this.log.length
  }

  get running(): boolean {
    return this.lock.held
  }

  /** True once the session was closed or its store failed; it takes no more work. */
  get closed(): boolean {
    return this.stopped
  }

  /** Aborted when the session is closed or its store failed. */
  get signal(): AbortSignal {
    return this.lifetime.signal
  }

  /**
   * 'running' while a turn or maintenance task holds the session, and until the `turn/end` of the
   * last turn is durable (so `idle` is never reported before the events that end the turn are served).
   */
  get status(): SessionActivity {
    return this.lock.held || this.settling > 0 ? 'running' : 'idle'
  }

  event(seq: number): SessionEvent | undefined {
    return this.log.event(seq)
  }

  events(): readonly SessionEvent[] {
    return this.log.events()
  }

  fold<S>(fold: SessionFold<S>): S {
    return this.log.fold(fold)
  }

  append(drafts: EventDraft[]): Promise<SessionEvent[]> {
    return this.log.append(drafts)
  }

  flush(): Promise<boolean> {
    return this.log.flush()
  }

  /** Subscribes to idle/running changes. */
  onStatus(listener: (status: SessionActivity) => void): () => void {
    this.statusListeners.add(listener)
    return () => this.statusListeners.delete(listener)
  }

  /**
   * The text the model has streamed so far for the step it is answering, until that answer (or the
   * turn's end) is written: what a reader who joins mid-answer is given first, so it never shows the
   * rest of an answer without its beginning.
   */
  get streaming(): AssistantDelta | null {
    return this.streamed
  }

  /** Subscribes to the text of answers as models stream them (transient, never stored). */
  onDelta(listener: (delta: AssistantDelta) => void): () => void {
    this.deltaListeners.add(listener)
    return () => this.deltaListeners.delete(listener)
  }

  /** Subscribes to the end of a streamed answer: its message, or the turn's end, was written (`streaming` is null again). */
  onStreamingEnd(listener: () => void): () => void {
    this.streamingEndListeners.add(listener)
    return () => this.streamingEndListeners.delete(listener)
  }

  whenIdle(): Promise<void> {
    return this.lock.whenIdle()
  }

  runMaintenance<T>(task: () => Promise<T>): Promise<T> {
    this.assertOpen()
    this.lock.take('maintenance')
    return (async () => {
      try {
        return await task()
      } finally {
        this.release()
      }
    })()
  }

  /**
   * Accepts a message: resolves once its `inbox/enqueued` is durable (SPEC 3.1). An idle session
   * starts its turn before that barrier resolved: the turn's first events are ordered after the
   * message in the log and reach the disk in the same write (or in the next one, when a write was
   * already in flight), so the answer waits for no write of the turn that is not also the message's.
   */
  async enqueue(message: UserMessage, target: InboxTarget, withEvents: EventDraft[] = []): Promise<void> {
    this.assertOpen()
    await this.log.append([{ type: 'inbox/enqueued', data: { target, message } }, ...withEvents])
    this.scheduleKick()
    await this.barrier()
  }

  /** Aborts the running turn; queued messages stay queued. */
  cancel(): void {
    this.controller?.abort(new Error('cancelled'))
  }

  /**
   * Compacts the surface once the session is idle (SPEC 2.4); resolves with the replacing message's
   * id (null when there was nothing to compact) only once the compaction is durable.
   */
  async compact(): Promise<string | null> {
    for (;;) {
      this.assertOpen()
      await this.whenIdle()
      if (!this.lock.held) break
    }
    this.assertOpen()
    return this.runMaintenance(() => this.compactNow())
  }

  /** Renames the session (SPEC 2.2 `session/title`, trimmed, 1–120 characters); resolves once durable. */
  async rename(title: string): Promise<void> {
    this.assertOpen()
    await this.log.append([{ type: 'session/title', data: { title: title.trim() } }])
    await this.barrier()
  }

  /** Closes dangling turns left by a crash; called once after open. */
  async recover(): Promise<void> {
    const loop = this.log.fold(loopFold)
    if (loop.openTurn === null) return
    const drafts: EventDraft[] = []
    if (loop.openStep !== null) drafts.push({ type: 'step/end', data: { turn: loop.openTurn, step: loop.openStep } })
    drafts.push({
      type: 'turn/end',
      data: { turn: loop.openTurn, reason: 'error', message: INTERRUPTED },
    })
    await this.log.append(drafts)
    await this.barrier()
  }

  /** Starts work that was restored from the durable inbox. */
  start(): void {
    this.scheduleKick()
  }

  /** Stops at once without writing anything more (the session runs on another replica now). */
  abandon(): void {
    this.stop(null)
  }

  /** Stops taking new work, waits for the running turn to end and closes the log. */
  async close(): Promise<void> {
    this.stop(null)
    await this.whenIdle()
    await this.log.close()
  }

  /** Resolves once every event appended so far is durable; rejects with the store's failure when it failed. */
  whenDurable(): Promise<void> {
    return this.barrier()
  }

  /** Resolves once everything appended so far is durable; throws `unavailable` when the store failed. */
  private async barrier(): Promise<void> {
    if (!(await this.log.flush())) throw this.log.failure ?? storageUnavailable(this.id, new Error('barrier failed'))
  }

  private assertOpen(): void {
    if (this.log.failure) throw this.log.failure
    if (this.closed) throw storageUnavailable(this.id, new Error('the session is closed'))
  }

  private stop(failure: StoreError | null): void {
    if (this.closed) return
    this.stopped = true
    this.lifetime.abort(failure ?? new Error('closed'))
    this.controller?.abort(failure ?? new HostStopping())
  }

  private release(): void {
    this.lock.release()
    this.scheduleKick()
  }

  /**
   * A turn ended in the loop's view: the next turn may start at once (its writes join the barrier
   * that makes this one's end durable), while the session reports `running` until that barrier resolved.
   */
  private settle(): void {
    this.settling++
    void this.log.flush().then(() => {
      this.settling--
      this.report()
    })
  }

  /** Tells the status listeners when the reported status changed. */
  private report(): void {
    const status = this.status
    if (status === this.reported) return
    this.reported = status
    for (const listener of this.statusListeners) listener(status)
  }

  /**
   * Starts the next turn once the caller's synchronous work is done (a microtask): a turn started by
   * a message appends its first events before the store writes the message, so they share its barrier.
   */
  private scheduleKick(): void {
    if (this.kickScheduled || this.closed) return
    this.kickScheduled = true
    queueMicrotask(() => {
      this.kickScheduled = false
      this.kick()
    })
  }

  private kick(): void {
    if (this.lock.held || this.closed) return
    if (this.overThreshold()) {
      void this.runMaintenance(() => this.compactNow()).catch((error: unknown) => {
        if (!this.closed) this.options.log(`session ${this.id}: compaction failed: ${errorMessage(error)}`)
      })
      return
    }
    if (!this.inbox.hasWork()) return
    this.lock.take('turn')
    const controller = new AbortController()
    this.controller = controller
    const context = {
      session: this,
      log: this.log,
      inbox: this.inbox,
      registry: this.options.registry,
      model: this.options.model,
      systemPrompt: this.options.systemPrompt,
      onDelta: (delta: AssistantDelta) => {
        this.streamed = appendDelta(this.streamed, delta)
        for (const listener of this.deltaListeners) listener(delta)
      },
      surface: this.surfaceMessages,
    }
    void runTurn(context, controller.signal)
      .catch((error: unknown) => {
        if (!this.closed) this.options.log(`session ${this.id}: turn failed: ${errorMessage(error)}`)
      })
      .finally(() => {
        this.controller = null
        this.settle()
        this.release()
      })
  }

  private overThreshold(): boolean {
    const threshold = this.options.compactThresholdChars
    const surface = this.log.fold(surfaceFold)
    return threshold > 0 && surface.chars > threshold && surface.sinceCompaction > 0
  }

  private async compactNow(): Promise<string | null> {
    const surface = this.log.fold(surfaceFold)
    if (surface.seqs.length === 0) return null
    const events = surface.seqs.map((seq) => this.log.event(seq) as SessionEvent)
    const { drafts, messageId } = compactionDrafts(events, this.log.length - 1)
    await this.log.append(drafts)
    await this.barrier()
    return messageId
  }
}

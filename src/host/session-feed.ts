import { appendDelta, type AssistantDelta, type SessionEvent, type SessionHeader } from '../protocol/index.ts'
import type { Session } from './session/session.ts'
import type { SessionActivity } from './session/lock.ts'
import type { SessionLog } from './session-log.ts'
import type { EventPage, EventRange, Store } from './store/index.ts'

/** The seq range [from, to) a page covers in a log of `count` events. */
export function pageBounds(count: number, range: EventRange): { from: number; to: number } {
  if (range.after !== undefined) {
    const from = Math.max(0, range.after + 1)
    return { from, to: Math.min(count, from + range.limit) }
  }
  if (range.before !== undefined) {
    const to = Math.min(count, Math.max(0, range.before))
    return { from: Math.max(0, to - range.limit), to }
  }
  return { from: Math.max(0, count - range.limit), to: count }
}

/**
 * What readers (the events route, streams) see of one session: its durable events and its status,
 * whether the session is open here (events from memory) or not (events read from the store), and
 * across reopenings — readers stay attached and continue at the next seq.
 */
export class SessionFeed {
  private log: SessionLog | null = null
  private session: Session | null = null
  private count = 0
  private detach: (() => void)[] = []
  private readonly eventListeners = new Set<(events: readonly SessionEvent[]) => void>()
  private readonly statusListeners = new Set<(status: SessionActivity) => void>()
  private readonly deltaListeners = new Set<(delta: AssistantDelta) => void>()

  private remoteStatus: SessionActivity = 'idle'
  /** The text streamed so far of an answer another replica is generating (SPEC 14.3), or null. */
  private remoteStreamed: AssistantDelta | null = null

  constructor(
    readonly id: string,
    readonly header: SessionHeader,
    private readonly store: Store,
    knownCount: number,
    /** Called when the last listener left a feed with no session attached (the host may forget it). */
    private readonly onIdle: () => void = () => undefined,
  ) {
    this.count = knownCount
  }

  /** Another replica made events durable (SPEC 14.3): readers read them from the store. */
  remote(count: number, openTurn: boolean): void {
    if (this.session !== null) return
    const status: SessionActivity = openTurn ? 'running' : 'idle'
    if (count > this.count) {
      this.count = count
      this.log = null
      for (const listener of this.eventListeners) listener([])
    }
    if (status !== this.remoteStatus) {
      this.remoteStatus = status
      for (const listener of this.statusListeners) listener(status)
    }
    if (!openTurn) this.remoteStreamed = null
  }

  /** Another replica's model streamed a piece of an answer (or, null, stopped streaming): readers here get it at once. */
  remoteStreaming(piece: AssistantDelta | null): void {
    if (this.session !== null) return
    if (piece === null) {
      this.remoteStreamed = null
      return
    }
    this.remoteStreamed = appendDelta(this.remoteStreamed, piece)
    for (const listener of this.deltaListeners) listener(piece)
  }

  /** Follows a newly opened session of this id. */
  attach(session: Session): void {
    for (const off of this.detach) off()
    this.session = session
    this.remoteStreamed = null
    this.log = session.log
    this.count = session.log.durableLength
    this.detach = [
      session.log.onDurable((events) => {
        this.count = session.log.durableLength
        for (const listener of this.eventListeners) listener(events)
      }),
      session.onStatus((status) => {
        for (const listener of this.statusListeners) listener(status)
      }),
      session.onDelta((delta) => {
        for (const listener of this.deltaListeners) listener(delta)
      }),
    ]
    for (const listener of this.statusListeners) listener(session.status)
  }

  /** The session stopped: its durable events stay readable from memory until it reopens (a failed store) or from the store (closed). */
  detachSession(keepInMemory: boolean): void {
    for (const off of this.detach) off()
    this.detach = []
    if (this.log !== null) this.count = this.log.durableLength
    if (!keepInMemory) this.log = null
    this.session = null
    for (const listener of this.statusListeners) listener('idle')
  }

  /** True while nobody listens and no log is held here (the host may forget the feed). */
  get idle(): boolean {
    return this.session === null && this.log === null && this.eventListeners.size + this.statusListeners.size + this.deltaListeners.size === 0
  }

  /** Number of durable events. */
  get length(): number {
    return this.log?.durableLength ?? this.count
  }

  /** Idle or running (while the session runs on another replica, as its appends announced). */
  get status(): SessionActivity {
    return this.session?.status ?? this.remoteStatus
  }

  /** A page of durable events: from memory when the log is here, else from the store. */
  async page(range: EventRange): Promise<EventPage> {
    const log = this.log
    if (log !== null) {
      const count = log.durableLength
      const { from, to } = pageBounds(count, range)
      return { events: log.durableSlice(from, to), eventCount: count }
    }
    const page = await this.store.readEvents(this.id, range)
    if (page.eventCount > this.count) this.count = page.eventCount
    return page
  }

  /** Subscribes to newly durable events. */
  onEvents(listener: (events: readonly SessionEvent[]) => void): () => void {
    this.eventListeners.add(listener)
    return () => this.leave(this.eventListeners, listener)
  }

  private leave<T>(listeners: Set<T>, listener: T): void {
    listeners.delete(listener)
    if (this.idle) this.onIdle()
  }

  /** The text streamed so far of the answer being generated, here or on the replica that runs the session, or null. */
  get streaming(): AssistantDelta | null {
    return this.session !== null ? this.session.streaming : this.remoteStreamed
  }

  /** Subscribes to the text of answers while they stream (transient). */
  onDelta(listener: (delta: AssistantDelta) => void): () => void {
    this.deltaListeners.add(listener)
    return () => this.leave(this.deltaListeners, listener)
  }

  /** Subscribes to idle/running changes. */
  onStatus(listener: (status: SessionActivity) => void): () => void {
    this.statusListeners.add(listener)
    return () => this.leave(this.statusListeners, listener)
  }
}

import type { SessionEvent, SessionHeader } from '../protocol/index.ts'
import type { Session } from './session/session.ts'
import type { SessionActivity } from './session/lock.ts'
import type { SessionLog } from './session-log.ts'

/**
 * What readers (the events route, streams) see of one session: its durable events and its status,
 * across reopenings — when a session's store fails and it is reopened from disk, readers stay
 * attached and continue at the next seq.
 */
export class SessionFeed {
  private log: SessionLog | null = null
  private session: Session | null = null
  private detach: (() => void)[] = []
  private readonly eventListeners = new Set<(events: readonly SessionEvent[]) => void>()
  private readonly statusListeners = new Set<(status: SessionActivity) => void>()

  constructor(readonly id: string) {}

  /** Follows a newly opened session of this id. */
  attach(session: Session): void {
    for (const off of this.detach) off()
    this.session = session
    this.log = session.log
    this.detach = [
      session.log.onDurable((events) => {
        for (const listener of this.eventListeners) listener(events)
      }),
      session.onStatus((status) => {
        for (const listener of this.statusListeners) listener(status)
      }),
    ]
    for (const listener of this.statusListeners) listener(session.status)
  }

  /** Keeps the durable events of a session that stopped (its store failed) readable until it reopens. */
  suspend(): void {
    for (const off of this.detach) off()
    this.detach = []
    this.session = null
    for (const listener of this.statusListeners) listener('idle')
  }

  /** The header, once a log was attached. */
  get header(): SessionHeader | null {
    return this.log?.header ?? null
  }

  /** Number of durable events. */
  get length(): number {
    return this.log?.durableLength ?? 0
  }

  /** Idle or running (idle while the store is unavailable). */
  get status(): SessionActivity {
    return this.session?.status ?? 'idle'
  }

  /** A durable event by seq. */
  event(seq: number): SessionEvent | undefined {
    return this.log?.durableEvent(seq)
  }

  /** Durable events with seq in [from, to). */
  slice(from: number, to?: number): SessionEvent[] {
    return this.log?.durableSlice(from, to) ?? []
  }

  /** Subscribes to newly durable events. */
  onEvents(listener: (events: readonly SessionEvent[]) => void): () => void {
    this.eventListeners.add(listener)
    return () => this.eventListeners.delete(listener)
  }

  /** Subscribes to idle/running changes. */
  onStatus(listener: (status: SessionActivity) => void): () => void {
    this.statusListeners.add(listener)
    return () => this.statusListeners.delete(listener)
  }
}

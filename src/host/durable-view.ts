import type { SessionEvent, SessionHeader } from '../protocol/index.ts'
import type { SessionFold, SessionView } from './plugin-api.ts'
import { FoldingVisitor } from './session-log.ts'
import type { Store } from './store/index.ts'
import { StoreError } from './store/index.ts'

/** Thrown by the visitor once it has the durable events: what follows in the file was never acknowledged. */
class DurableEnd extends Error {}

/**
 * A read-only view of a session's durable events, read from the store while the session cannot
 * be written (SPEC 2.6): queries answer from it; every write is refused as unavailable.
 */
export class DurableView implements SessionView {
  readonly running = false
  readonly closed = true

  private constructor(
    private readonly visitor: FoldingVisitor,
    private readonly refusal: () => StoreError,
  ) {}

  /**
   * Reads the first `durableCount` events of the session through `folds`: a failed writer may have
   * left bytes past them in the file (refused writes, until its repair), and they are never read.
   */
  static async read(
    store: Store,
    id: string,
    folds: SessionFold<unknown>[],
    durableCount: number,
    refusal: () => StoreError,
  ): Promise<DurableView> {
    const visitor = new FoldingVisitor(id, folds)
    const limited = {
      trustKey: visitor.trustKey,
      header: (header: SessionHeader) => visitor.header(header),
      event: (event: SessionEvent, trusted?: boolean) => {
        if (event.seq >= durableCount) throw new DurableEnd()
        visitor.event(event, trusted)
      },
    }
    try {
      await store.scanSession(id, limited)
    } catch (error) {
      if (!(error instanceof DurableEnd)) throw error
    }
    if (visitor.count < durableCount) {
      throw new StoreError('unavailable', `session ${id} holds ${visitor.count} of its ${durableCount} durable events; retry later`)
    }
    return new DurableView(visitor, refusal)
  }

  get id(): string {
    return this.visitor.headerRead.id
  }

  get header(): SessionHeader {
    return this.visitor.headerRead
  }

  get length(): number {
    return this.visitor.count
  }

  event(seq: number): SessionEvent | undefined {
    return this.visitor.events[seq]
  }

  events(): readonly SessionEvent[] {
    return this.visitor.events
  }

  fold<S>(fold: SessionFold<S>): S {
    return this.visitor.fold(fold)
  }

  append(): Promise<SessionEvent[]> {
    return Promise.reject(this.refusal())
  }

  flush(): Promise<boolean> {
    return Promise.resolve(true)
  }

  whenIdle(): Promise<void> {
    return Promise.resolve()
  }

  runMaintenance<T>(): Promise<T> {
    throw this.refusal()
  }

  enqueue(): Promise<void> {
    return Promise.reject(this.refusal())
  }
}

import type { StoreError } from './store-error.ts'

type Waiter = { target: number; resolve: () => void; reject: (error: StoreError) => void }

/**
 * The group commit window of every store's writer: a batch is written only once the event loop has
 * run the work queued with its first append (microtasks included), so appends made together — a
 * message and the first events of the turn it starts — share one write and one barrier.
 */
export function afterQueuedWork(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * The durable end of one session's writer, and who waits on it: barriers, listeners of newly
 * durable events and of the failure that stops the writer. Every store's writer keeps one.
 */
export class Durability {
  private durable: number
  private failed: StoreError | null = null
  private readonly waiters: Waiter[] = []
  private readonly durableListeners: ((count: number) => void)[] = []
  private readonly failureListeners: ((error: StoreError) => void)[] = []

  constructor(durableCount: number) {
    this.durable = durableCount
  }

  /** Events known durable. */
  get count(): number {
    return this.durable
  }

  /** The failure that stopped the writer, or null. */
  get failure(): StoreError | null {
    return this.failed
  }

  /** Resolves once `accepted` events are durable; rejects with the failure when the writer stops first. */
  barrier(accepted: number): Promise<void> {
    if (this.failed) return Promise.reject(this.failed)
    if (this.durable >= accepted) return Promise.resolve()
    return new Promise((resolve, reject) => this.waiters.push({ target: accepted, resolve, reject }))
  }

  onDurable(listener: (durableCount: number) => void): void {
    this.durableListeners.push(listener)
  }

  onFailure(listener: (error: StoreError) => void): void {
    this.failureListeners.push(listener)
  }

  /** `count` more events are durable: listeners hear of it, the barriers they cover resolve. */
  advance(count: number): void {
    this.durable += count
    for (const listener of this.durableListeners) listener(this.durable)
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i]
      if (waiter.target <= this.durable) {
        this.waiters.splice(i, 1)
        waiter.resolve()
      }
    }
  }

  /** Stops the writer once: every waiting barrier rejects, failure listeners hear of it. */
  fail(error: StoreError): void {
    if (this.failed) return
    this.failed = error
    for (const waiter of this.waiters.splice(0)) waiter.reject(error)
    for (const listener of this.failureListeners) listener(error)
  }
}

/**
 * What every store's session writer shares: the events it accepted, its Durability, and the
 * SessionWriter calls answered from them (the durable count, the failure, barriers, listeners).
 */
export abstract class DurableWriter {
  protected readonly durability: Durability
  /** Events accepted by `append`, durable or not. */
  protected accepted: number

  constructor(durableCount: number) {
    this.durability = new Durability(durableCount)
    this.accepted = durableCount
  }

  get durableCount(): number {
    return this.durability.count
  }

  get failure(): StoreError | null {
    return this.durability.failure
  }

  barrier(): Promise<void> {
    return this.durability.barrier(this.accepted)
  }

  onDurable(listener: (durableCount: number) => void): void {
    this.durability.onDurable(listener)
  }

  onFailure(listener: (error: StoreError) => void): void {
    this.durability.onFailure(listener)
  }
}

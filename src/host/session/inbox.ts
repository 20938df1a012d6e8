import type { UserMessage } from '../../protocol/index.ts'
import type { PendingMessage } from '../folds.ts'

/**
 * The inbox of one session (SPEC 3.1) as a view of its one source of truth, the durable inbox fold:
 * a message waits from its `inbox/enqueued` until it enters as a `user/message` or is dropped.
 * Messages claimed for a step but not yet entered or dropped are held back from later claims.
 */
export class Inbox {
  private readonly claimed = new Set<string>()

  constructor(private readonly pending: () => ReadonlyMap<string, PendingMessage>) {}

  /** True when a message waits that no step has claimed. */
  hasWork(): boolean {
    for (const id of this.pending().keys()) if (!this.claimed.has(id)) return true
    return false
  }

  /** True when steering waits that no step has claimed. */
  hasSteering(): boolean {
    for (const [id, entry] of this.pending()) if (entry.target === 'next-step' && !this.claimed.has(id)) return true
    return false
  }

  /** Claims a step's batch: on step 1 the oldest next-turn message, then every next-step message, in acceptance order. */
  claim(step: number): UserMessage[] {
    let first: UserMessage | null = null
    const steering: UserMessage[] = []
    for (const [id, entry] of this.pending()) {
      if (this.claimed.has(id)) continue
      if (entry.target === 'next-step') steering.push(entry.message)
      else if (step === 1 && first === null) first = entry.message
    }
    const batch = first === null ? steering : [first, ...steering]
    for (const message of batch) this.claimed.add(message.id)
    return batch
  }

  /** Forgets claims whose messages have entered or been dropped (the fold no longer holds them). */
  settle(): void {
    const pending = this.pending()
    for (const id of [...this.claimed]) if (!pending.has(id)) this.claimed.delete(id)
  }
}

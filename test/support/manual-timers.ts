import type { Timers } from '../../src/host/plugin-api.ts'

/** Timers that fire only when the test says so; records every requested delay. */
export class ManualTimers implements Timers {
  private next = 1
  readonly pending = new Map<number, { callback: () => void; ms: number }>()
  readonly requested: number[] = []

  set(callback: () => void, ms: number): unknown {
    const id = this.next++
    this.pending.set(id, { callback, ms })
    this.requested.push(ms)
    return id
  }

  clear(handle: unknown): void {
    this.pending.delete(handle as number)
  }

  /** Fires every pending timer once. */
  fireAll(): void {
    const due = [...this.pending.values()]
    this.pending.clear()
    for (const timer of due) timer.callback()
  }
}

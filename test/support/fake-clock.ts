import type { Clock } from '../../src/host/plugin-api.ts'

/** A clock tests move by hand. */
export class FakeClock implements Clock {
  constructor(public current = Date.UTC(2026, 6, 15, 1, 1, 1)) {}

  now(): number {
    return this.current
  }

  /** Moves the clock by ms (negative moves it back). */
  advance(ms: number): void {
    this.current += ms
  }

  /** Sets the clock. */
  set(ms: number): void {
    this.current = ms
  }
}

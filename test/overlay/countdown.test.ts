import { describe, expect, it } from 'vitest'
import { countdownText, instantMs, msUntilNextTick, reminderState } from '../../src/overlay/lib/countdown.ts'

const T = Date.parse('2026-07-15T01:00:00.000Z')

describe('countdownText', () => {
  it('counts down to the target, rounding up so a future target never reads 0s', () => {
    expect(countdownText(T, T - 252_000)).toBe('in 4m 12s')
    expect(countdownText(T, T - 1)).toBe('in 1s')
    expect(countdownText(T, T - 1_001)).toBe('in 2s')
  })

  it('reads due now during the first second and overdue afterwards', () => {
    expect(countdownText(T, T)).toBe('due now')
    expect(countdownText(T, T + 999)).toBe('due now')
    expect(countdownText(T, T + 63_000)).toBe('overdue by 1m 3s')
  })
})

describe('reminderState', () => {
  it('is overdue exactly at the target and scheduled before it', () => {
    expect(reminderState(T, T - 1)).toBe('scheduled')
    expect(reminderState(T, T)).toBe('overdue')
    expect(reminderState(T, T + 1)).toBe('overdue')
  })
})

describe('instantMs', () => {
  it('parses ISO instants and rejects garbage', () => {
    expect(instantMs('2026-07-15T01:00:00.000Z')).toBe(T)
    expect(instantMs('soon')).toBeNull()
  })
})

describe('msUntilNextTick', () => {
  it('waits until the countdown text changes', () => {
    expect(msUntilNextTick(T, T - 1_250)).toBe(250)
    expect(msUntilNextTick(T, T - 2_000)).toBe(1000)
    expect(msUntilNextTick(T, T + 300)).toBe(700)
  })
})

import { describe, expect, it } from 'vitest'
import { instantMs, reminderState } from '../../src/overlay/lib/countdown.ts'

const T = Date.parse('2026-07-15T01:00:00.000Z')

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

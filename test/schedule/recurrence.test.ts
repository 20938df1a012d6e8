import { describe, expect, it } from 'vitest'
import type { ScheduleRecord } from '../../src/protocol/wire.ts'
import {
  dueOccurrence,
  firstEveryTarget,
  latestDueTarget,
  MIN_EVERY_SECONDS,
  nextTarget,
  targetAfter,
  type EveryRecord,
} from '../../src/schedule/recurrence.ts'

const at = (value: string): number => Date.parse(value)

const every: EveryRecord = {
  id: 'schedule-2',
  kind: 'every',
  prompt: 'water',
  everySeconds: 300,
  scheduledAt: '2026-07-15T09:05:00.000Z',
}

describe('firstEveryTarget', () => {
  it('is the creation instant plus one interval', () => {
    expect(firstEveryTarget(at('2026-07-15T09:00:00.000Z'), 300)).toEqual({ ok: true, value: '2026-07-15T09:05:00.000Z' })
  })

  it('is time_out_of_range past the last accepted instant', () => {
    const result = firstEveryTarget(at('9999-12-31T23:58:00.000Z'), 300)
    expect(result.ok ? null : result.error.code).toBe('time_out_of_range')
  })

  it('has a 300-second floor', () => {
    expect(MIN_EVERY_SECONDS).toBe(300)
  })
})

describe('targetAfter', () => {
  it('is the anchor while the anchor is after the instant', () => {
    expect(targetAfter(1000, 100, 999)).toBe(1000)
    expect(targetAfter(1000, 100, -5000)).toBe(1000)
  })

  it('is strictly after the instant', () => {
    expect(targetAfter(1000, 100, 1000)).toBe(1100)
    expect(targetAfter(1000, 100, 1099)).toBe(1100)
    expect(targetAfter(1000, 100, 1100)).toBe(1200)
    expect(targetAfter(1000, 100, 1250)).toBe(1300)
  })
})

describe('latestDueTarget', () => {
  it('is null before the anchor', () => {
    expect(latestDueTarget(1000, 100, 999)).toBeNull()
  })

  it('is the latest grid target at or before the instant', () => {
    expect(latestDueTarget(1000, 100, 1000)).toBe(1000)
    expect(latestDueTarget(1000, 100, 1099)).toBe(1000)
    expect(latestDueTarget(1000, 100, 1100)).toBe(1100)
    expect(latestDueTarget(1000, 100, 1250)).toBe(1200)
  })
})

describe('nextTarget', () => {
  it('is one interval later after an on-time dispatch', () => {
    expect(new Date(nextTarget(every, at('2026-07-15T09:05:00.000Z'))).toISOString()).toBe('2026-07-15T09:10:00.000Z')
    expect(new Date(nextTarget(every, at('2026-07-15T09:05:00.400Z'))).toISOString()).toBe('2026-07-15T09:10:00.000Z')
  })

  it('stays on the creation grid after a late dispatch and skips missed targets', () => {
    expect(new Date(nextTarget(every, at('2026-07-15T09:17:34.000Z'))).toISOString()).toBe('2026-07-15T09:20:00.000Z')
    expect(new Date(nextTarget(every, at('2026-07-15T09:20:00.000Z'))).toISOString()).toBe('2026-07-15T09:25:00.000Z')
  })
})

describe('dueOccurrence', () => {
  const after: ScheduleRecord = { id: 'schedule-1', kind: 'after', prompt: 'tea', afterSeconds: 60, scheduledAt: '2026-07-15T09:01:00.000Z' }
  const once: ScheduleRecord = { id: 'schedule-3', kind: 'at', prompt: 'call', scheduledAt: '2026-07-15T10:00:00.000Z' }

  it('is null before the target', () => {
    expect(dueOccurrence(after, at('2026-07-15T09:00:59.999Z'))).toBeNull()
    expect(dueOccurrence(every, at('2026-07-15T09:04:59.999Z'))).toBeNull()
  })

  it('delivers a one-shot at its target, also late, without acceptedAt', () => {
    expect(dueOccurrence(after, at('2026-07-15T09:01:00.000Z'))).toEqual({
      id: 'schedule-1',
      prompt: 'tea',
      occurrenceAt: '2026-07-15T09:01:00.000Z',
      acceptedAt: null,
    })
    expect(dueOccurrence(once, at('2026-07-16T00:00:00.000Z'))).toEqual({
      id: 'schedule-3',
      prompt: 'call',
      occurrenceAt: '2026-07-15T10:00:00.000Z',
      acceptedAt: null,
    })
  })

  it('delivers a recurring target on time with acceptedAt = now', () => {
    expect(dueOccurrence(every, at('2026-07-15T09:05:00.000Z'))).toEqual({
      id: 'schedule-2',
      prompt: 'water',
      occurrenceAt: '2026-07-15T09:05:00.000Z',
      acceptedAt: '2026-07-15T09:05:00.000Z',
    })
  })

  it('delivers only the latest due target when late', () => {
    expect(dueOccurrence(every, at('2026-07-15T09:17:34.250Z'))).toEqual({
      id: 'schedule-2',
      prompt: 'water',
      occurrenceAt: '2026-07-15T09:15:00.000Z',
      acceptedAt: '2026-07-15T09:17:34.250Z',
    })
  })
})

import { describe, expect, it } from 'vitest'
import { planCatchUp } from '../../src/schedule/catch-up.ts'
import { MIN_EVERY_SECONDS } from '../../src/protocol/index.ts'
import { dueGrid, firstEveryTarget, targetAfter, upcomingGrid } from '../../src/schedule/recurrence.ts'

const at = (value: string): number => Date.parse(value)


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

describe('dueGrid', () => {
  it('is empty before the target', () => {
    expect(dueGrid(1000, 100, 999)).toEqual({ count: 0, latest: [] })
  })

  it('counts every grid target up to the decision and keeps the latest ten, oldest first', () => {
    expect(dueGrid(1000, 100, 1000)).toEqual({ count: 1, latest: [1000] })
    expect(dueGrid(1000, 100, 1250)).toEqual({ count: 3, latest: [1000, 1100, 1200] })
    expect(dueGrid(1000, 100, 3050)).toEqual({ count: 21, latest: [2100, 2200, 2300, 2400, 2500, 2600, 2700, 2800, 2900, 3000] })
  })
})

describe('upcomingGrid', () => {
  it('lists the target and the next targets, never past year 9999', () => {
    expect(upcomingGrid(1000, 100, 3)).toEqual([1000, 1100, 1200])
    expect(upcomingGrid(at('9999-12-31T23:50:00.000Z'), 300_000, 5)).toEqual([at('9999-12-31T23:50:00.000Z'), at('9999-12-31T23:55:00.000Z')])
  })
})

describe('planCatchUp', () => {
  const due = { count: 12, latest: [3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((h) => at(`2026-07-15T${String(h).padStart(2, '0')}:00:00.000Z`)) }
  const now = at('2026-07-15T12:10:00.000Z')

  it('latest delivers the latest due occurrence and counts the rest as missed', () => {
    expect(planCatchUp('latest', due, now)).toEqual({ deliver: [at('2026-07-15T12:00:00.000Z')], missed: 11 })
  })

  it('all delivers at most ten, oldest first, and counts the older ones as missed', () => {
    expect(planCatchUp('all', due, now)).toEqual({ deliver: due.latest, missed: 2 })
    expect(planCatchUp('all', { count: 3, latest: due.latest.slice(-3) }, now)).toEqual({ deliver: due.latest.slice(-3), missed: 0 })
  })

  it('skip delivers the latest only within 15 minutes of it, else nothing', () => {
    expect(planCatchUp('skip', due, at('2026-07-15T12:15:00.000Z'))).toEqual({ deliver: [at('2026-07-15T12:00:00.000Z')], missed: 11 })
    expect(planCatchUp('skip', due, at('2026-07-15T12:15:00.001Z'))).toEqual({ deliver: [], missed: 12 })
  })

  it('delivers nothing when nothing is due', () => {
    expect(planCatchUp('all', { count: 0, latest: [] }, now)).toEqual({ deliver: [], missed: 0 })
  })
})

import { describe, expect, it } from 'vitest'
import type { ScheduleView } from '../../src/protocol/wire.ts'
import { describeRule, reminderRow } from '../../src/overlay/lib/reminder-row.ts'
import { sessionName } from '../../src/overlay/lib/session-name.ts'

const at: ScheduleView = {
  id: 'schedule-1',
  kind: 'at',
  prompt: 'call mum',
  scheduledAt: '2026-07-15T01:30:00.000Z',
  state: 'scheduled',
  deliveryMode: 'session-local',
}
const T = Date.parse(at.scheduledAt)

describe('describeRule', () => {
  it('names each kind', () => {
    expect(describeRule(at)).toBe('One-off')
    expect(describeRule({ ...at, kind: 'after', afterSeconds: 600 })).toBe('One-off, 10m 0s after it was set')
    expect(describeRule({ ...at, kind: 'every', everySeconds: 900 })).toBe('Every 15m 0s')
  })
})

describe('reminderRow', () => {
  it('shows the due time in both zones with a live countdown', () => {
    expect(reminderRow(at, 'Asia/Shanghai', 'America/New_York', T - 90_000)).toEqual({
      id: 'schedule-1',
      prompt: 'call mum',
      rule: 'One-off',
      scheduledAt: '2026-07-15T01:30:00.000Z',
      due: {
        session: { zone: 'Asia/Shanghai', text: 'Wed 15 Jul 2026, 09:30:00 +08:00' },
        browser: { zone: 'America/New_York', text: 'Tue 14 Jul 2026, 21:30:00 -04:00' },
        sameZone: false,
      },
      state: 'scheduled',
      countdown: 'in 1m 30s',
    })
  })

  it('turns overdue when the clock passes the target even if the server said scheduled', () => {
    expect(reminderRow(at, 'UTC', 'UTC', T + 5_000)).toMatchObject({ state: 'overdue', countdown: 'overdue by 5s' })
  })

  it('keeps the server state when the instant does not parse', () => {
    expect(reminderRow({ ...at, scheduledAt: 'x', state: 'overdue' }, 'UTC', 'UTC', T)).toMatchObject({
      state: 'overdue',
      countdown: 'unknown due time',
      due: { session: null, browser: null, sameZone: false },
    })
  })
})

describe('sessionName', () => {
  it('uses the title, else a short id', () => {
    expect(sessionName({ id: 'abcdefghijkl', title: 'Trip' })).toBe('Trip')
    expect(sessionName({ id: 'abcdefghijkl', title: '  ' })).toBe('Session abcdefgh')
    expect(sessionName({ id: 'abcdefghijkl' })).toBe('Session abcdefgh')
  })
})

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
  timeZone: 'Asia/Shanghai',
  scheduledAtLocal: '2026-07-15T09:30:00+08:00[Asia/Shanghai]',
  upcoming: ['2026-07-15T01:30:00.000Z'],
  deliveries: 0,
  lastDeliveredAt: null,
  missed: 0,
}
const T = Date.parse(at.scheduledAt)
const weekdays: ScheduleView = {
  id: 'schedule-2',
  kind: 'calendar',
  prompt: 'stand-up',
  rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30',
  starts: '2026-07-15',
  catchUp: 'latest',
  scheduledAt: '2026-07-15T12:30:00.000Z',
  state: 'scheduled',
  deliveryMode: 'session-local',
  timeZone: 'America/New_York',
  scheduledAtLocal: '2026-07-15T08:30:00-04:00[America/New_York]',
  upcoming: ['2026-07-15T12:30:00.000Z', '2026-07-16T12:30:00.000Z'],
  deliveries: 3,
  lastDeliveredAt: '2026-07-14T12:30:00.000Z',
  missed: 2,
}

describe('describeRule', () => {
  it('names each kind', () => {
    expect(describeRule(at)).toBe('One-off')
    expect(describeRule({ ...at, kind: 'after', afterSeconds: 600 })).toBe('One-off, 10m 0s after it was set')
    expect(describeRule({ ...at, kind: 'every', everySeconds: 900 })).toBe('Every 15m 0s')
    expect(describeRule(weekdays)).toBe('Weekdays at 08:30 · New York')
    expect(describeRule({ ...weekdays, rrule: 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9', timeZone: 'Asia/Calcutta' })).toBe('Monthly on the 1st at 09:00 · Kolkata')
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
      zone: 'Asia/Shanghai',
      upcoming: [],
      history: 'Not delivered yet',
    })
  })

  it('shows a calendar reminder in its own zone with its next occurrences in both zones and its history', () => {
    const row = reminderRow(weekdays, 'Europe/Berlin', 'Europe/Berlin', Date.parse('2026-07-15T12:00:00.000Z'))
    expect(row).toMatchObject({
      rule: 'Weekdays at 08:30 · New York',
      zone: 'America/New_York',
      due: {
        session: { zone: 'America/New_York', text: 'Wed 15 Jul 2026, 08:30:00 -04:00' },
        browser: { zone: 'Europe/Berlin', text: 'Wed 15 Jul 2026, 14:30:00 +02:00' },
        sameZone: false,
      },
      upcoming: [
        { at: '2026-07-15T12:30:00.000Z', own: 'Wed 15 Jul 2026, 08:30:00 -04:00', browser: 'Wed 15 Jul 2026, 14:30:00 +02:00' },
        { at: '2026-07-16T12:30:00.000Z', own: 'Thu 16 Jul 2026, 08:30:00 -04:00', browser: 'Thu 16 Jul 2026, 14:30:00 +02:00' },
      ],
      history: 'Delivered 3 times, last Tue 14 Jul 2026, 08:30:00 -04:00 · 2 missed',
      countdown: 'in 30m 0s',
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

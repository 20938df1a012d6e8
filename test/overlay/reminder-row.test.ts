import { describe, expect, it } from 'vitest'
import type { ScheduleView } from '../../src/protocol/wire.ts'
import { describeHistory, describeRule, dueReminderZone, reminderRow } from '../../src/overlay/lib/reminder-row.ts'
import { snoozedAgain, zonedTimes } from '../../src/overlay/lib/zoned-time.ts'
import { isTitled, sessionName } from '../../src/overlay/lib/session-name.ts'

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
  it('names each kind in words', () => {
    expect(describeRule(at, 'en-GB', 'Asia/Shanghai')).toBe('Once')
    expect(describeRule({ ...at, kind: 'after', afterSeconds: 600 }, 'en-GB', 'Asia/Shanghai')).toBe('Once, 10 min after it was set')
    expect(describeRule({ ...at, kind: 'every', everySeconds: 900 }, 'en-GB', 'Asia/Shanghai')).toBe('Every 15 min')
    // a snooze says which occurrence it snoozes, in the row's zone, rather than when it was set
    const snooze = { ...at, kind: 'after', afterSeconds: 600, scheduledAt: '2026-07-15T01:42:00.000Z' } as const
    expect(describeRule(snooze, 'en-US', 'Asia/Shanghai', Date.parse('2026-07-15T01:32:00.000Z'), '2026-07-15T01:30:00.000Z')).toBe('Once, snoozed from today 9:30 AM')
    expect(reminderRow(snooze, 'Asia/Shanghai', null, 'en-GB', Date.parse('2026-07-15T01:32:00.000Z'), '2026-07-14T23:30:00.000Z').rule).toBe('Once, snoozed from today 07:30')
    expect(describeRule({ ...at, kind: 'every', everySeconds: 5_400 }, 'en-GB', 'Asia/Shanghai')).toBe('Every 1 h 30 min')
    expect(describeRule(weekdays, 'en-GB', 'America/New_York')).toBe('Weekdays at 08:30 · New York')
  })

  it('writes a calendar rule’s times, yearly date and end as the locale does', () => {
    const rule = (rrule: string, timeZone = 'America/New_York'): ScheduleView => ({ ...weekdays, rrule, timeZone })
    expect(describeRule(weekdays, 'en-US', 'America/New_York')).toBe('Weekdays at 8:30 AM · New York')
    // a series that starts on a later day says from when (on the code before, it read as running already)
    const later = { ...weekdays, starts: '2027-03-01' }
    expect(describeRule(later, 'en-US', 'America/New_York', T)).toBe('Weekdays at 8:30 AM, from March 1, 2027 · New York')
    expect(describeRule(later, 'en-GB', 'America/New_York', T)).toBe('Weekdays at 08:30, from 1 March 2027 · New York')
    // T is the evening of 14 July in New York: a start on the 14th is today, on the 15th a later day
    expect(describeRule({ ...weekdays, starts: '2026-07-14' }, 'en-US', 'America/New_York', T)).toBe('Weekdays at 8:30 AM · New York')
    expect(describeRule({ ...weekdays, starts: '2026-07-15' }, 'en-US', 'America/New_York', T)).toBe('Weekdays at 8:30 AM, from July 15, 2026 · New York')
    expect(describeRule(rule('FREQ=DAILY;BYHOUR=8,20;BYMINUTE=0;COUNT=4'), 'en-US', 'America/New_York')).toBe('Every day at 8:00 AM and 8:00 PM, 4 times · New York')
    expect(describeRule(rule('FREQ=DAILY;BYHOUR=8,20;BYMINUTE=0;COUNT=4'), 'en-GB', 'America/New_York')).toBe('Every day at 08:00 and 20:00, 4 times · New York')
    expect(describeRule(rule('FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=3;BYHOUR=10;BYMINUTE=0'), 'en-US', 'America/New_York')).toBe('Yearly on March 3 at 10:00 AM · New York')
    expect(describeRule(rule('FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=3;BYHOUR=10;BYMINUTE=0'), 'en-GB', 'America/New_York')).toBe('Yearly on 3 March at 10:00 · New York')
    expect(describeRule(rule('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=9;BYMINUTE=0'), 'en-US', 'America/New_York')).toBe('Yearly on February 29 at 9:00 AM · New York')
    // a rule that names no day falls on its start's (RFC 5545), here Wednesday 15 July
    expect(describeRule(rule('FREQ=MONTHLY'), 'en-US', 'America/New_York')).toBe('Monthly on the 15th at 9:00 AM · New York')
    expect(describeRule(rule('FREQ=WEEKLY'), 'en-US', 'America/New_York')).toBe('Every Wednesday at 9:00 AM · New York')
    expect(describeRule(rule('FREQ=YEARLY'), 'en-US', 'America/New_York')).toBe('Yearly on July 15 at 9:00 AM · New York')
    expect(describeRule(rule('FREQ=YEARLY'), 'en-GB', 'America/New_York')).toBe('Yearly on 15 July at 09:00 · New York')
    // a BYSETPOS says what it picks; picks it has no words for show the rule itself
    expect(describeRule(rule('FREQ=WEEKLY;BYDAY=MO,WE,FR;BYSETPOS=1;BYHOUR=9'), 'en-US', 'America/New_York')).toBe('Every Monday at 9:00 AM · New York')
    expect(describeRule(rule('FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=8,20;BYSETPOS=1,-1'), 'en-US', 'America/New_York')).toBe('FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=8,20;BYSETPOS=1,-1 · New York')
    expect(describeRule(rule('FREQ=DAILY;BYHOUR=9;BYMINUTE=0;UNTIL=20261231'), 'en-US', 'America/New_York')).toBe('Every day at 9:00 AM, until December 31, 2026 · New York')
    expect(describeRule(rule('FREQ=DAILY;BYHOUR=9;BYMINUTE=0;UNTIL=20261231'), 'en-GB', 'America/New_York')).toBe('Every day at 09:00, until 31 December 2026 · New York')
    // an end instant is said in the reminder's own zone: 23:00 UTC is 18:00 in New York, 00:00 the next day in Berlin
    expect(describeRule(rule('FREQ=DAILY;BYHOUR=9;BYMINUTE=0;UNTIL=20261231T230000Z'), 'en-US', 'America/New_York')).toBe('Every day at 9:00 AM, until December 31, 2026 at 6:00 PM · New York')
    expect(describeRule(rule('FREQ=DAILY;BYHOUR=9;BYMINUTE=0;UNTIL=20261231T230000Z', 'Europe/Berlin'), 'en-GB', 'Europe/Berlin')).toBe('Every day at 09:00, until 1 January 2027 at 00:00 · Berlin')
    // in another locale the words stay English, as the sentence is, with its dates in English and its clock the locale's
    // (on the code before, "Yearly on 3 de março at 10:00" in pt-BR)
    expect(describeRule(rule('FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=3;BYHOUR=10;BYMINUTE=0'), 'pt-BR', 'America/New_York')).toBe('Yearly on 3 March at 10:00 · New York')
    expect(describeRule(rule('FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=3;BYHOUR=10;BYMINUTE=0'), 'ja-JP', 'America/New_York')).toBe('Yearly on March 3 at 10:00 · New York')
    expect(describeRule(rule('FREQ=DAILY;BYHOUR=9;BYMINUTE=0;UNTIL=20261231'), 'de-DE', 'America/New_York')).toBe('Every day at 09:00, until 31 December 2026 · New York')
    expect(describeRule(rule('FREQ=DAILY;BYHOUR=9;BYMINUTE=0;UNTIL=20261231T230000Z'), 'pt-BR', 'America/New_York')).toBe('Every day at 09:00, until 31 December 2026 at 18:00 · New York')
    expect(describeRule(later, 'pt-BR', 'America/New_York', T)).toBe('Weekdays at 08:30, from 1 March 2027 · New York')
  })
})

describe('reminderRow', () => {
  it('shows the time in the reminder’s zone and in this browser’s, with a coarse countdown', () => {
    expect(reminderRow(at, 'Asia/Shanghai', 'America/New_York', 'en-GB', T - 90_000)).toEqual({
      id: 'schedule-1',
      prompt: 'call mum',
      rule: 'Once',
      scheduledAt: '2026-07-15T01:30:00.000Z',
      zone: 'Asia/Shanghai',
      times: {
        own: {
          zone: 'Asia/Shanghai',
          place: 'Shanghai',
          when: 'today 09:30',
          full: 'Wednesday, 15 July 2026 at 09:30:00 GMT+8',
          detail: 'Asia/Shanghai · UTC+08:00',
        },
        browser: {
          zone: 'America/New_York',
          place: 'New York',
          when: 'today 21:30',
          full: 'Tuesday, 14 July 2026 at 21:30:00 GMT-4',
          detail: 'America/New_York · UTC−04:00',
        },
      },
      state: 'scheduled',
      countdown: 'in 1:30',
      upcoming: [],
      history: 'Not delivered yet',
    })
  })

  it('shows a calendar reminder in its own zone with its next occurrences in both zones and its history', () => {
    const row = reminderRow(weekdays, 'Europe/Berlin', 'Europe/Berlin', 'en-GB', Date.parse('2026-07-15T12:00:00.000Z'))
    expect(row).toMatchObject({
      rule: 'Weekdays at 08:30 · New York',
      zone: 'America/New_York',
      times: { own: { place: 'New York', when: 'today 08:30' }, browser: { place: 'Berlin', when: 'today 14:30' } },
      upcoming: [
        { at: '2026-07-15T12:30:00.000Z', own: 'today 08:30', browser: 'today 14:30' },
        { at: '2026-07-16T12:30:00.000Z', own: 'tomorrow 08:30', browser: 'tomorrow 14:30' },
      ],
      history: 'Delivered 3 times (last: yesterday 08:30 · New York) · 2 missed',
      countdown: 'in 30:00',
    })
  })

  it('says of a calendar occurrence a clock change moves that its rule’s time does not exist that day, and nothing of the others', () => {
    // daily at 02:30 in Berlin over the night the clocks go forward (28 March 2027): that day it comes at 03:30 CEST
    const nightly: ScheduleView = {
      ...weekdays,
      rrule: 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30',
      timeZone: 'Europe/Berlin',
      starts: '2027-03-27',
      scheduledAt: '2027-03-27T01:30:00.000Z',
      scheduledAtLocal: '2027-03-27T02:30:00+01:00[Europe/Berlin]',
      upcoming: ['2027-03-27T01:30:00.000Z', '2027-03-28T01:30:00.000Z', '2027-03-29T00:30:00.000Z'],
    }
    const now = Date.parse('2027-03-26T12:00:00.000Z')
    expect(reminderRow(nightly, 'Europe/Berlin', 'Europe/Berlin', 'en-GB', now).upcoming).toEqual([
      { at: '2027-03-27T01:30:00.000Z', own: 'tomorrow 02:30', browser: null, moved: null },
      { at: '2027-03-28T01:30:00.000Z', own: 'Sunday 03:30', browser: null, moved: 'the clocks skip 02:30 that day' },
      { at: '2027-03-29T00:30:00.000Z', own: 'Monday 02:30', browser: null, moved: null },
    ])
    expect(reminderRow(nightly, 'Europe/Berlin', 'America/New_York', 'en-US', now).upcoming[1]).toEqual({
      at: '2027-03-28T01:30:00.000Z',
      own: 'Sunday 3:30 AM',
      browser: 'tomorrow 9:30 PM',
      moved: 'the clocks skip 2:30 AM that day',
    })
    // a rule with two times of day, and the repeated 02:30 of autumn, say nothing
    expect(reminderRow({ ...nightly, rrule: 'FREQ=DAILY;BYHOUR=2,14;BYMINUTE=30' }, 'Europe/Berlin', 'Europe/Berlin', 'en-GB', now).upcoming.map((u) => u.moved)).toEqual([null, null, null])
    const autumn = { ...nightly, upcoming: ['2027-10-31T00:30:00.000Z'] }
    expect(reminderRow(autumn, 'Europe/Berlin', 'Europe/Berlin', 'en-GB', Date.parse('2027-10-30T12:00:00.000Z')).upcoming).toEqual([
      { at: '2027-10-31T00:30:00.000Z', own: 'tomorrow 02:30 CEST', browser: null, moved: null },
    ])
    expect(reminderRow({ ...at, kind: 'every', everySeconds: 3_600 }, 'Europe/Berlin', 'Europe/Berlin', 'en-GB', T).upcoming.map((u) => u.moved)).toEqual([null])
  })

  it('uses the reminder’s own zone when the server names one, and leaves the browser line out when it is the same zone', () => {
    const row = reminderRow({ ...at, timeZone: 'Pacific/Chatham' }, 'Asia/Shanghai', 'Pacific/Chatham', 'en-US', T - 3_600_000)
    expect(row.zone).toBe('Pacific/Chatham')
    expect(row.times.own).toMatchObject({ place: 'Chatham', when: 'today 2:15 PM' })
    expect(row.times.browser).toBeNull()
  })

  it('turns overdue when the clock passes the target even if the server said scheduled', () => {
    expect(reminderRow(at, 'UTC', 'UTC', 'en-GB', T + 5_000)).toMatchObject({ state: 'overdue', countdown: 'overdue by 0:05' })
  })

  it('keeps the server state when the instant does not parse', () => {
    expect(reminderRow({ ...at, scheduledAt: 'x', state: 'overdue' }, 'UTC', 'UTC', 'en-GB', T)).toMatchObject({
      state: 'overdue',
      countdown: 'unknown due time',
      times: { own: null, browser: null },
    })
  })
})

describe('describeHistory', () => {
  const now = Date.parse('2026-07-15T12:00:00.000Z')

  it('gives the last delivery’s time, in English words on the locale’s clock, a place of its own and its zone’s place', () => {
    // in English, as the sentence is, on the locale's clock (on the code before, "last: gestern 08:30" in English words)
    expect(describeHistory(weekdays, 'America/New_York', 'de-DE', now)).toBe('Delivered 3 times (last: yesterday 08:30 · New York) · 2 missed')
    expect(describeHistory(weekdays, 'America/New_York', 'en-US', now)).toBe('Delivered 3 times (last: yesterday 8:30 AM · New York) · 2 missed')
    expect(describeHistory({ ...weekdays, deliveries: 1, missed: 0 }, 'America/New_York', 'fr-FR', now)).toBe('Delivered once (yesterday 08:30 · New York)')
    expect(describeHistory({ ...weekdays, deliveries: 0, lastDeliveredAt: null, missed: 1 }, 'America/New_York', 'en-US', now)).toBe('Not delivered yet · 1 missed')
    expect(describeHistory({ ...weekdays, lastDeliveredAt: null }, 'America/New_York', 'en-US', now)).toBe('Delivered 3 times · 2 missed')
  })
})

describe('dueReminderZone', () => {
  // a calendar reminder at 20:00 in Kolkata, in a Session (and a browser) in New York
  const chai: ScheduleView = {
    ...weekdays,
    id: 'schedule-7',
    prompt: 'chai',
    rrule: 'FREQ=DAILY;BYHOUR=20;BYMINUTE=0',
    timeZone: 'Asia/Kolkata',
    scheduledAt: '2026-07-16T14:30:00.000Z',
    scheduledAtLocal: '2026-07-16T20:00:00+05:30[Asia/Kolkata]',
  }
  const due = Date.parse('2026-07-15T14:30:00.000Z')
  const now = due + 60_000

  it('reads a due occurrence in its reminder’s own zone, as its panel row does, and in this browser’s', () => {
    const zone = dueReminderZone('schedule-7', [weekdays, chai], undefined, 'America/New_York')
    expect(zone).toBe('Asia/Kolkata')
    expect(zone).toBe(reminderRow(chai, 'America/New_York', 'America/New_York', 'en-US', now).zone)
    const times = zonedTimes(due, zone, 'America/New_York', 'en-US', now)
    expect([times.own?.when, times.own?.place, times.browser?.when, times.browser?.place]).toEqual(['today 8:00 PM', 'Kolkata', 'today 10:30 AM', 'New York'])
    expect(snoozedAgain(due + 600_000, zone, 'America/New_York', 'en-US', now)).toBe('again today 8:10 PM · Kolkata (today 10:40 AM · New York)')
  })

  it('takes the zone of a reminder no longer listed from its record in the log, else the Session’s', () => {
    const logged = new Map([
      ['schedule-3', 'Asia/Kolkata'],
      ['schedule-4', null],
    ])
    expect(dueReminderZone('schedule-3', [weekdays], logged, 'America/New_York')).toBe('Asia/Kolkata')
    expect(dueReminderZone('schedule-4', [weekdays], logged, 'America/New_York')).toBe('America/New_York')
    expect(dueReminderZone('schedule-9', undefined, logged, 'America/New_York')).toBe('America/New_York')
    // a listed reminder is read as it is now (its zone changed since the log's record)
    expect(dueReminderZone('schedule-7', [chai], new Map([['schedule-7', 'Asia/Tokyo']]), 'America/New_York')).toBe('Asia/Kolkata')
    // an after reminder keeps the Session's time
    expect(dueReminderZone('schedule-1', [{ ...at, kind: 'after', afterSeconds: 600, timeZone: null }], undefined, 'America/New_York')).toBe('America/New_York')
  })
})

describe('sessionName', () => {
  it('uses the title, else when the Session started, on the browser’s clock', () => {
    const created = Date.parse('2026-07-15T10:30:00Z')
    expect(sessionName({ id: 'abcdefghijkl', createdAt: created, title: 'Trip' }, 'en-GB', 'UTC', created)).toBe('Trip')
    expect(sessionName({ id: 'abcdefghijkl', createdAt: created, title: '  ' }, 'en-GB', 'UTC', created)).toBe('Started today 10:30')
    expect(sessionName({ id: 'abcdefghijkl', createdAt: created }, 'de-DE', 'Asia/Kolkata', created + 86_400_000)).toBe('Started yesterday 16:00')
  })

  it('says when an untitled Session started on its own clock, not the browser’s; the browser’s zone only for a Session without one', () => {
    const created = Date.parse('2026-12-03T11:08:00Z')
    expect(sessionName({ id: 'abcdefghijkl', createdAt: created, timeZone: 'Europe/Berlin' }, 'en-US', 'America/New_York', created)).toBe('Started today 12:08 PM')
    expect(sessionName({ id: 'abcdefghijkl', createdAt: created, timeZone: 'Asia/Tokyo' }, 'en-GB', 'America/New_York', created)).toBe('Started today 20:08')
    // the day word is the Session's day too: 02:00 in Tokyo on the 4th is still the 3rd in New York
    expect(sessionName({ id: 'abcdefghijkl', createdAt: Date.parse('2026-12-03T17:00:00Z'), timeZone: 'Asia/Tokyo' }, 'en-GB', 'America/New_York', Date.parse('2026-12-03T17:30:00Z'))).toBe('Started today 02:00')
    expect(sessionName({ id: 'abcdefghijkl', createdAt: created, timeZone: null }, 'en-US', 'America/New_York', created)).toBe('Started today 6:08 AM')
  })

  it('isolates a right-to-left clock, so "Started" stays before it whatever its order', () => {
    const created = Date.parse('2026-07-15T10:30:00Z')
    const clock = new Intl.DateTimeFormat('ar-EG', { timeZone: 'Africa/Cairo', hour: 'numeric', minute: '2-digit' }).format(created)
    expect(sessionName({ id: 'abcdefghijkl', createdAt: created }, 'ar-EG', 'Africa/Cairo', created)).toBe(`Started \u2068today ${clock}\u2069`)
    // its words are English, as the rest: a he-IL clock of digits needs no isolating
    expect(sessionName({ id: 'abcdefghijkl', createdAt: created }, 'he-IL', 'Asia/Jerusalem', created)).toBe('Started today 13:30')
  })

  it('tells a Session with a title of its own from one named by when it started', () => {
    expect([{ title: 'Trip' }, { title: ' x ' }, { title: '  ' }, { title: '' }, {}].map(isTitled)).toEqual([true, true, false, false, false])
  })
})

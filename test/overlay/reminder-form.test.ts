import { describe, expect, it } from 'vitest'
import type { ScheduleView } from '../../src/protocol/wire.ts'
import { draftFields, draftOf, draftProblem, editFields, keptInstant, localInstant, newDraft, newReminderFields, restoreFields, ruleNote, saveFailure, spanNote, whenNote, whenProblem } from '../../src/overlay/lib/reminder-form.ts'
import { toolOutcome } from '../../src/overlay/lib/tool-outcome.ts'

const view: ScheduleView = {
  id: 'schedule-2',
  kind: 'at',
  prompt: 'feed the cat',
  scheduledAt: '2026-12-01T18:00:00.000Z',
  state: 'scheduled',
  deliveryMode: 'session-local',
  timeZone: null,
  scheduledAtLocal: '2026-12-01T18:00:00+00:00[UTC]',
  upcoming: [],
  deliveries: 0,
  lastDeliveredAt: null,
  missed: 0,
}

describe('reminder form', () => {
  it('starts an hour ahead on the wall clock of the zone picked, rounded to five minutes', () => {
    expect(newDraft('Pacific/Chatham', Date.parse('2026-12-01T17:58:10Z'))).toEqual({
      prompt: '',
      kind: 'at',
      date: '2026-12-02',
      time: '08:45',
      amount: '10',
      unit: 'min',
      zone: 'Pacific/Chatham',
      days: ['WE'],
      rule: null,
    })
  })

  it('sends a local time with the zone picked on screen, and spans in seconds', () => {
    const draft = { ...newDraft('Pacific/Chatham', Date.parse('2026-12-01T10:00:00Z')), prompt: ' feed the cat ', date: '2026-12-02', time: '07:45' }
    expect(draftFields(draft)).toEqual({ prompt: 'feed the cat', at: { date: '2026-12-02', time: '07:45:00', time_zone: 'Pacific/Chatham' } })
    expect(draftFields({ ...draft, kind: 'after', amount: '2', unit: 'h' })).toEqual({ prompt: 'feed the cat', after_seconds: 7_200 })
    expect(draftFields({ ...draft, kind: 'every', amount: '15', unit: 'min' })).toEqual({ prompt: 'feed the cat', every_seconds: 900 })
    expect(draftFields({ ...draft, kind: 'daily', time: '09:05' })).toEqual({ prompt: 'feed the cat', rrule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=5', time_zone: 'Pacific/Chatham' })
    expect(draftFields({ ...draft, kind: 'weekly', time: '18:00', days: ['TH', 'TU'] })).toEqual({
      prompt: 'feed the cat',
      rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;BYHOUR=18;BYMINUTE=0',
      time_zone: 'Pacific/Chatham',
    })
  })

  it('edits a reminder on the wall clock of its own zone', () => {
    expect(draftOf(view, 'Pacific/Chatham')).toMatchObject({ prompt: 'feed the cat', kind: 'at', date: '2026-12-02', time: '07:45', zone: 'Pacific/Chatham' })
    expect(draftOf({ ...view, kind: 'every', everySeconds: 7_200 }, 'UTC')).toMatchObject({ kind: 'every', amount: '2', unit: 'h' })
  })

  it('keeps an `after` reminder due when it was, and a repeating one on its series, while their length stays', () => {
    const after: ScheduleView = { ...view, kind: 'after', afterSeconds: 600, scheduledAt: '2026-12-03T11:43:00.000Z', timeZone: 'America/New_York', scheduledAtLocal: '2026-12-03T06:43:00-05:00[America/New_York]' }
    const draft = draftOf(after, 'America/New_York')
    expect(draft).toMatchObject({ kind: 'after', amount: '10', unit: 'min' })
    expect(editFields({ ...draft, prompt: 'drink water now' }, after)).toEqual({ prompt: 'drink water now' })
    expect(editFields({ ...draft, amount: '15' }, after)).toEqual({ prompt: 'feed the cat', after_seconds: 900 })
    // the same length written in other units is the same length
    expect(editFields({ ...draft, amount: '600', unit: 'min' }, { ...after, afterSeconds: 36_000 })).toEqual({ prompt: 'feed the cat' })
    expect(editFields({ ...draft, kind: 'every' }, after)).toEqual({ prompt: 'feed the cat', every_seconds: 600 })
    const every: ScheduleView = { ...view, kind: 'every', everySeconds: 7_200 }
    expect(editFields({ ...draftOf(every, 'UTC'), prompt: 'stretch' }, every)).toEqual({ prompt: 'stretch' })
    expect(editFields({ ...draftOf(every, 'UTC'), amount: '3' }, every)).toEqual({ prompt: 'feed the cat', every_seconds: 10_800 })

    const now = Date.parse('2026-12-03T11:35:00Z')
    expect(spanNote(draft, after, 'America/New_York', 'en-US', now)).toBe('Due today 6:43 AM. Another length counts from when you save.')
    expect(spanNote(draft, after, 'Europe/Berlin', 'en-GB', now)).toBe('Due today 12:43. Another length counts from when you save.')
    expect(spanNote({ ...draft, amount: '15' }, after, 'America/New_York', 'en-US', now)).toBe('Its length counts from when you save.')
    // once its time has passed (not yet delivered), a save with the same length still keeps that time, and says so
    expect(editFields({ ...draft, prompt: 'drink water now' }, after)).toEqual({ prompt: 'drink water now' })
    expect(spanNote(draft, after, 'America/New_York', 'en-US', Date.parse('2026-12-03T11:50:00Z'))).toBe('Due today 6:43 AM. Another length counts from when you save.')
    expect(spanNote(draft, null, 'America/New_York', 'en-US', now)).toBeNull()
    expect(spanNote(draftOf(every, 'UTC'), every, 'UTC', 'en-US', now)).toBeNull()
  })

  it('edits a calendar reminder in the fields its rule fits, and keeps a rule it has none for as it is', () => {
    const calendar = (rrule: string): ScheduleView => ({ ...view, kind: 'calendar', rrule, timeZone: 'Europe/Berlin', starts: '2026-11-30', catchUp: 'latest' })
    const weekdays = calendar('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30')
    expect(draftOf(weekdays, 'Europe/Berlin')).toMatchObject({ kind: 'weekly', time: '08:30', days: ['MO', 'TU', 'WE', 'TH', 'FR'], rule: null })
    expect(draftOf(calendar('FREQ=WEEKLY;BYDAY=SU,SA;BYHOUR=10;BYMINUTE=0'), 'UTC')).toMatchObject({ kind: 'weekly', time: '10:00', days: ['SA', 'SU'] })
    expect(draftOf(calendar('FREQ=DAILY;BYHOUR=7;BYMINUTE=5'), 'UTC')).toMatchObject({ kind: 'daily', time: '07:05', rule: null })
    for (const rrule of [
      'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0',
      'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;BYHOUR=9;BYMINUTE=0',
      'FREQ=DAILY;BYHOUR=9;BYMINUTE=0;COUNT=3',
      'FREQ=DAILY;BYHOUR=9,17;BYMINUTE=0',
      'FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0',
    ]) {
      const draft = draftOf(calendar(rrule), 'Europe/Berlin')
      expect(draft).toMatchObject({ kind: 'rule', rule: { rrule, starts: '2026-11-30' } })
      expect(draftProblem(draft)).toBeNull()
      expect(draftFields({ ...draft, prompt: 'pay rent' })).toEqual({ prompt: 'pay rent', time_zone: 'Europe/Berlin' })
    }
    // an edit that leaves the rule as it was sends no rule (its start and catch-up stay); a changed one sends it
    const same = draftOf(weekdays, 'Europe/Berlin')
    expect(editFields({ ...same, prompt: 'stand up' }, weekdays)).toEqual({ prompt: 'stand up', time_zone: 'Europe/Berlin' })
    expect(editFields({ ...same, days: ['MO', 'WE'] }, weekdays)).toEqual({ prompt: 'feed the cat', rrule: 'FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=8;BYMINUTE=30', time_zone: 'Europe/Berlin' })
    expect(editFields({ ...same, kind: 'after', amount: '5' }, weekdays)).toEqual({ prompt: 'feed the cat', after_seconds: 300 })
  })

  it('makes a new reminder of a rule kept as it was set with its start, whose day the rule takes', () => {
    const monthly: ScheduleView = { ...view, kind: 'calendar', rrule: 'FREQ=MONTHLY;BYHOUR=9;BYMINUTE=0', timeZone: 'Europe/Berlin', starts: '2026-11-30', catchUp: 'latest' }
    const draft = draftOf(monthly, 'Europe/Berlin')
    // on the code before, no start: the new reminder came on today's day of the month, not the 30th its words said
    expect(newReminderFields({ ...draft, prompt: ' pay rent ' })).toEqual({ prompt: 'pay rent', rrule: 'FREQ=MONTHLY;BYHOUR=9;BYMINUTE=0', time_zone: 'Europe/Berlin', starts: '2026-11-30' })
    expect(newReminderFields({ ...draft, zone: 'Asia/Tokyo' })).toEqual({ prompt: 'feed the cat', rrule: 'FREQ=MONTHLY;BYHOUR=9;BYMINUTE=0', time_zone: 'Asia/Tokyo', starts: '2026-11-30' })
    // a series of so many occurrences starts afresh: from its old start, the ones already past would count
    const counted = draftOf({ ...monthly, rrule: 'FREQ=MONTHLY;BYHOUR=9;BYMINUTE=0;COUNT=3' }, 'Europe/Berlin')
    expect(newReminderFields(counted)).toEqual({ prompt: 'feed the cat', rrule: 'FREQ=MONTHLY;BYHOUR=9;BYMINUTE=0;COUNT=3', time_zone: 'Europe/Berlin' })
    // anything the form has fields for is sent as its fields
    const daily = draftOf({ ...monthly, rrule: 'FREQ=DAILY;BYHOUR=7;BYMINUTE=5' }, 'Europe/Berlin')
    expect(newReminderFields(daily)).toEqual({ prompt: 'feed the cat', rrule: 'FREQ=DAILY;BYHOUR=7;BYMINUTE=5', time_zone: 'Europe/Berlin' })
  })

  it('says what is missing before anything is sent', () => {
    const draft = newDraft('UTC', 0)
    expect(draftProblem(draft)).toBe('Say what to remind you of.')
    expect(draftProblem({ ...draft, prompt: 'x', zone: 'PST' })).toBe('Pick a time zone from the list.')
    expect(draftProblem({ ...draft, prompt: 'x', kind: 'every', amount: '4' })).toBe('Repeat at most every 5 minutes.')
    expect(draftProblem({ ...draft, prompt: 'x', kind: 'after', amount: '1.5' })).toBe('Give a whole number greater than zero.')
    expect(draftProblem({ ...draft, prompt: 'x', kind: 'weekly', days: [] })).toBe('Pick at least one day.')
    expect(draftProblem({ ...draft, prompt: 'x', kind: 'after', amount: '3650', unit: 'd' })).toBeNull()
    expect(draftProblem({ ...draft, prompt: 'x', kind: 'after', amount: '3651', unit: 'd' })).toBe('Pick at most 10 years ahead (3,650 days).')
    expect(draftProblem({ ...draft, prompt: 'x', kind: 'every', amount: '99999999', unit: 'd' })).toBe('Repeat at least every 10 years (3,650 days).')
    expect(draftProblem({ ...draft, prompt: 'x' })).toBeNull()
  })
})

describe('a one-off draft\'s time in its zone', () => {
  const NOW = Date.parse('2026-12-02T02:32:00Z') // 21:32 on 1 December in New York
  const at = (date: string, time: string, zone = 'America/New_York') => ({ ...newDraft(zone, NOW), prompt: 'water the plants', date, time })

  it('finds the instant of a local time: the earlier of a repeated hour, none for a skipped one', () => {
    expect(localInstant('2026-12-01', '21:32', 'America/New_York')).toBe(NOW)
    expect(localInstant('2026-11-01', '01:30', 'America/New_York')).toBe(Date.parse('2026-11-01T05:30:00Z'))
    expect(localInstant('2027-03-14', '02:30', 'America/New_York')).toBeNull()
    expect(localInstant('2027-03-14', '03:00', 'America/New_York')).toBe(Date.parse('2027-03-14T07:00:00Z'))
    expect(localInstant('2026-12-31', '23:59', 'Pacific/Kiritimati')).toBe(Date.parse('2026-12-31T09:59:00Z'))
    // a day a zone skipped whole
    expect(localInstant('2011-12-30', '12:00', 'Pacific/Apia')).toBeNull()
  })

  it('says, in English on this browser\'s clock, when it has passed or a clock change skips it, and nothing when it can be used', () => {
    expect(whenProblem(at('2026-12-01', '09:00'), 'en-US', NOW)).toBe('Today 9:00 AM has already passed in New York (it is 9:32 PM there now). Pick a later time.')
    expect(whenProblem(at('2026-11-30', '18:00'), 'de-DE', NOW)).toBe('Yesterday 18:00 has already passed in New York (it is 21:32 there now). Pick a later time.')
    // the words of a date English too, as the sentence is (on the code before, "02:30 on Sonntag, 28. März 2027 does not exist")
    expect(whenProblem(at('2027-03-28', '02:30', 'Europe/Berlin'), 'de-DE', NOW)).toBe('02:30 on Sunday, 28 March 2027 does not exist in Berlin: the clocks skip that time. Pick another time.')
    expect(whenProblem(at('2026-12-01', '21:32'), 'en-US', NOW)).toBe('Today 9:32 PM has already passed in New York (it is 9:32 PM there now). Pick a later time.')
    expect(whenProblem(at('2027-03-14', '02:30'), 'en-US', NOW)).toBe('2:30 AM on Sunday, March 14, 2027 does not exist in New York: the clocks skip that time. Pick another time.')
    expect(whenProblem(at('2027-03-28', '02:30', 'Europe/Berlin'), 'en-GB', NOW)).toBe('02:30 on Sunday, 28 March 2027 does not exist in Berlin: the clocks skip that time. Pick another time.')
    expect(whenProblem(at('2026-12-01', '21:33'), 'en-US', NOW)).toBeNull()
    expect(whenProblem({ ...at('2026-12-01', '09:00'), kind: 'daily' }, 'en-US', NOW)).toBeNull()
    expect(whenProblem({ ...at('2026-12-01', '09:00'), zone: 'PST' }, 'en-US', NOW)).toBeNull()
  })

  it('says of a time the clocks repeat that it comes twice and the reminder is for the first, and nothing of any other', () => {
    expect(whenNote(at('2026-11-01', '01:30'), 'en-US')).toBe('1:30 AM on Sunday, November 1, 2026 comes twice in New York, as the clocks go back: this reminder is for the first, before they do.')
    expect(whenNote(at('2026-10-25', '02:00', 'Europe/Berlin'), 'en-GB')).toBe('02:00 on Sunday, 25 October 2026 comes twice in Berlin, as the clocks go back: this reminder is for the first, before they do.')
    // Lord Howe goes back half an hour
    expect(whenNote(at('2027-04-04', '01:45', 'Australia/Lord_Howe'), 'en-AU')).toBe('1:45 am on Sunday 4 April 2027 comes twice in Lord Howe, as the clocks go back: this reminder is for the first, before they do.')
    expect(whenNote(at('2026-11-01', '02:00'), 'en-US')).toBeNull()
    expect(whenNote(at('2026-11-01', '00:59'), 'en-US')).toBeNull()
    expect(whenNote(at('2027-03-14', '02:30'), 'en-US')).toBeNull()
    expect(whenNote({ ...at('2026-11-01', '01:30'), kind: 'daily' }, 'en-US')).toBeNull()
    expect(whenNote({ ...at('2026-11-01', '01:30'), zone: 'PST' }, 'en-US')).toBeNull()
  })

  it('keeps, in an edit, the time a one-off reminder has while the draft still names it: the second of two when the clocks repeat the hour, and its seconds', () => {
    // 01:30 EST on 1 November 2026 in New York: the second 01:30 (the first is 05:30Z, EDT)
    const second: ScheduleView = { ...view, scheduledAt: '2026-11-01T06:30:00.000Z', timeZone: 'America/New_York', scheduledAtLocal: '2026-11-01T01:30:00-05:00[America/New_York]' }
    const draft = draftOf(second, 'America/New_York')
    expect([draft.date, draft.time]).toEqual(['2026-11-01', '01:30'])
    expect(keptInstant(draft, second)).toBe(Date.parse('2026-11-01T06:30:00Z'))
    expect(whenNote(draft, 'en-US', keptInstant(draft, second))).toBe('1:30 AM on Sunday, November 1, 2026 comes twice in New York, as the clocks go back: this reminder is for the second, after they do.')
    expect(editFields({ ...draft, prompt: 'reset the thermostat' }, second)).toEqual({ prompt: 'reset the thermostat' })
    // the first of the two is said as the first
    const first: ScheduleView = { ...second, scheduledAt: '2026-11-01T05:30:00.000Z', scheduledAtLocal: '2026-11-01T01:30:00-04:00[America/New_York]' }
    expect(whenNote(draftOf(first, 'America/New_York'), 'en-US', keptInstant(draftOf(first, 'America/New_York'), first))).toBe(
      '1:30 AM on Sunday, November 1, 2026 comes twice in New York, as the clocks go back: this reminder is for the first, before they do.',
    )
    // another time, another zone or another kind is sent as the draft says, and a repeated time it names is the first
    expect(keptInstant({ ...draft, time: '01:45' }, second)).toBeNull()
    expect(editFields({ ...draft, time: '01:45' }, second)).toEqual({ prompt: 'feed the cat', at: { date: '2026-11-01', time: '01:45:00', time_zone: 'America/New_York' } })
    expect(whenNote({ ...draft, time: '01:45' }, 'en-US', keptInstant({ ...draft, time: '01:45' }, second))).toBe(
      '1:45 AM on Sunday, November 1, 2026 comes twice in New York, as the clocks go back: this reminder is for the first, before they do.',
    )
    expect(editFields({ ...draft, zone: 'America/Toronto' }, second)).toEqual({ prompt: 'feed the cat', at: { date: '2026-11-01', time: '01:30:00', time_zone: 'America/Toronto' } })
    expect(editFields({ ...draft, kind: 'after', amount: '5' }, second)).toEqual({ prompt: 'feed the cat', after_seconds: 300 })
    expect(keptInstant(draft, { ...second, kind: 'after', afterSeconds: 600 })).toBeNull()
    // a time with seconds (made from an instant) keeps them when only the words change
    const withSeconds: ScheduleView = { ...view, scheduledAt: '2026-12-01T18:00:30.000Z', timeZone: 'UTC' }
    expect(editFields({ ...draftOf(withSeconds, 'UTC'), prompt: 'feed the dog' }, withSeconds)).toEqual({ prompt: 'feed the dog' })
  })

  it('says of a daily or weekly time the next days within a year that the clocks skip or repeat it, on days the reminder comes, in date order', () => {
    const daily = (time: string, zone: string) => ({ ...at('2026-12-02', time, zone), kind: 'daily' as const })
    expect(ruleNote(daily('02:30', 'Europe/Berlin'), 'en-GB', NOW)).toBe(
      '02:30 on Sunday, 28 March 2027 does not exist in Berlin: the clocks skip it, so that day this reminder comes at 03:30. ' +
        '02:30 on Sunday, 31 October 2027 comes twice in Berlin, as the clocks go back: that day this reminder is for the first, before they do.',
    )
    expect(ruleNote(daily('01:30', 'America/New_York'), 'en-US', NOW)).toBe(
      '1:30 AM on Sunday, November 7, 2027 comes twice in New York, as the clocks go back: that day this reminder is for the first, before they do.',
    )
    expect(ruleNote(daily('02:15', 'America/New_York'), 'en-US', NOW)).toBe(
      '2:15 AM on Sunday, March 14, 2027 does not exist in New York: the clocks skip it, so that day this reminder comes at 3:15 AM.',
    )
    // Lord Howe goes forward half an hour
    expect(ruleNote(daily('02:15', 'Australia/Lord_Howe'), 'en-AU', NOW)).toBe(
      '2:15 am on Sunday 3 October 2027 does not exist in Lord Howe: the clocks skip it, so that day this reminder comes at 2:45 am.',
    )
    // the repeat of 1 November 2026 has passed; a time that comes once every day, a zone without changes, other days and other kinds say nothing
    expect(ruleNote(daily('03:30', 'America/New_York'), 'en-US', NOW)).toBeNull()
    expect(ruleNote(daily('02:30', 'Asia/Shanghai'), 'en-US', NOW)).toBeNull()
    expect(ruleNote({ ...daily('02:30', 'Europe/Berlin'), kind: 'weekly', days: ['MO', 'SA'] }, 'en-GB', NOW)).toBeNull()
    expect(ruleNote({ ...daily('02:30', 'Europe/Berlin'), kind: 'weekly', days: ['SU'] }, 'en-GB', NOW)).toBe(ruleNote(daily('02:30', 'Europe/Berlin'), 'en-GB', NOW))
    expect(ruleNote({ ...daily('02:30', 'Europe/Berlin'), kind: 'at' }, 'en-GB', NOW)).toBeNull()
    expect(ruleNote({ ...daily('02:30', 'Europe/Berlin'), zone: 'CEST' }, 'en-GB', NOW)).toBeNull()
    // from the day of a change on, that day counts while its time is still ahead
    expect(ruleNote(daily('02:30', 'Europe/Berlin'), 'en-GB', Date.parse('2027-03-28T00:00:00Z'))).toMatch(/^02:30 on Sunday, 28 March 2027 does not exist in Berlin/)
    expect(ruleNote(daily('02:30', 'Europe/Berlin'), 'en-GB', Date.parse('2027-03-28T02:00:00Z'))).toMatch(/^02:30 on Sunday, 31 October 2027 comes twice in Berlin.* 02:30 on Sunday, 26 March 2028 does not exist in Berlin/)
  })

  it('puts a refusal for the time in the same words, and leaves every other refusal as the server said it', () => {
    const passed = at('2026-12-01', '09:00')
    const server = 'the target 2026-12-01T14:00:00.000Z is not in the future (now is 2026-12-02T02:32:00.000Z)'
    expect(saveFailure('not_future', server, passed, 'en-US', NOW)).toBe('Today 9:00 AM has already passed in New York (it is 9:32 PM there now). Pick a later time.')
    expect(saveFailure('invalid_rule', '2027-03-14T02:30:00 does not exist in America/New_York: a clock change skips it', at('2027-03-14', '02:30'), 'en-US', NOW)).toBe(
      '2:30 AM on Sunday, March 14, 2027 does not exist in New York: the clocks skip that time. Pick another time.',
    )
    const rule = { ...passed, kind: 'rule' as const, rule: { rrule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0;UNTIL=20261130', starts: '2026-11-01' } }
    expect(saveFailure('not_future', 'the rule has no occurrence after now (2026-12-02T02:32:00.000Z)', rule, 'en-US', NOW)).toBe('This series has no time left after now.')
    expect(saveFailure('invalid_prompt', 'prompt must be a non-empty string', passed, 'en-US', NOW)).toBe('prompt must be a non-empty string')
    // ahead on this device's clock, passed on the server's
    expect(saveFailure('not_future', server, at('2026-12-02', '09:00'), 'en-US', NOW)).toBe(
      "Tomorrow 9:00 AM has already passed in New York by the server's clock (this device's clock may be behind). Pick a later time.",
    )
    expect(saveFailure('not_future', server, { ...passed, kind: 'after', amount: '5' }, 'en-US', NOW)).toBe(server)
  })
})

describe('toolOutcome', () => {
  it('tells a question from an error', () => {
    expect(toolOutcome(null)).toBe('running')
    expect(toolOutcome({ text: '{"code":"timezone_confirmation_required"}', isError: true })).toBe('question')
    expect(toolOutcome({ text: '{"code":"not_future"}', isError: true })).toBe('error')
    expect(toolOutcome({ text: '[]', isError: false })).toBe('done')
  })
})

describe('what Undo makes again of a deleted reminder', () => {
  const NOW = Date.parse('2026-12-02T02:32:00Z')
  const base = { state: 'scheduled' as const, deliveryMode: 'session-local' as const, upcoming: [] as string[], deliveries: 0, lastDeliveredAt: null, missed: 0 }
  it('keeps a local one in its zone, a repeated hour and an instant as their instant, and a rule as it is', () => {
    const local = { ...base, id: 'schedule-1', kind: 'at', prompt: 'call', scheduledAt: '2026-12-03T14:00:00.000Z', timeZone: 'America/New_York', scheduledAtLocal: '2026-12-03T09:00:00-05:00[America/New_York]' } as const
    expect(restoreFields(local, NOW)).toEqual({ prompt: 'call', at: { date: '2026-12-03', time: '09:00:00', time_zone: 'America/New_York' } })
    // the second 01:30 of the night the clocks go back: its wall time would name the first
    const second = { ...local, scheduledAt: '2027-11-07T06:30:00.000Z', scheduledAtLocal: '2027-11-07T01:30:00-05:00[America/New_York]' }
    expect(restoreFields(second, NOW)).toEqual({ prompt: 'call', at: '2027-11-07T06:30:00.000Z' })
    const after = { ...base, id: 'schedule-2', kind: 'after', prompt: 'tea', afterSeconds: 600, scheduledAt: '2026-12-02T02:40:00.000Z', timeZone: 'UTC', scheduledAtLocal: '2026-12-02T02:40:00+00:00[UTC]' } as const
    expect(restoreFields(after, NOW)).toEqual({ prompt: 'tea', at: '2026-12-02T02:40:00.000Z' })
    expect(restoreFields(after, Date.parse('2026-12-02T02:41:00Z'))).toBeNull()
    const every = { ...base, id: 'schedule-3', kind: 'every', prompt: 'water', everySeconds: 3600, scheduledAt: '2026-12-02T03:00:00.000Z', timeZone: 'UTC', scheduledAtLocal: '2026-12-02T03:00:00+00:00[UTC]' } as const
    expect(restoreFields(every, NOW)).toEqual({ prompt: 'water', every_seconds: 3600 })
    const rule = {
      ...base,
      id: 'schedule-4',
      kind: 'calendar',
      prompt: 'stand up',
      rrule: 'FREQ=DAILY;BYHOUR=8;BYMINUTE=30',
      timeZone: 'Europe/Berlin',
      starts: '2026-11-01',
      catchUp: 'skip',
      scheduledAt: '2026-12-02T07:30:00.000Z',
      scheduledAtLocal: '2026-12-02T08:30:00+01:00[Europe/Berlin]',
    } as const
    expect(restoreFields(rule, NOW)).toEqual({ prompt: 'stand up', rrule: 'FREQ=DAILY;BYHOUR=8;BYMINUTE=30', time_zone: 'Europe/Berlin', starts: '2026-11-01', catch_up: 'skip' })
  })
})

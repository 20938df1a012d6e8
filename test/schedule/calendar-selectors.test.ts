import { describe, expect, it } from 'vitest'
import type { ScheduleRecord } from '../../src/protocol/wire.ts'
import { timezoneConfirmationRequired } from '../../src/schedule/errors.ts'
import type { ImplicitZoneResult } from '../../src/schedule/implicit-zone.ts'
import { createRecord, parseUpdateArgs, resolveUpdate, type CreateContext } from '../../src/schedule/selectors.ts'

const NOW = Date.parse('2026-07-15T06:00:00.000Z')

function context(implicit: ImplicitZoneResult = { ok: true, timeZone: 'Europe/Berlin' }, now = NOW): CreateContext & { asked: string[] } {
  const asked: string[] = []
  return {
    now,
    nextId: 'schedule-1',
    asked,
    implicitZone: (subject) => {
      asked.push(subject)
      return implicit
    },
  }
}

function create(args: unknown, ctx: CreateContext = context()): unknown {
  const result = createRecord(args, ctx)
  return result.ok ? result.value : result.error.toToolError()
}

describe('createRecord: rrule', () => {
  it('stores the rule, its zone, the start date (today in the zone), the catch-up policy and the next occurrence', () => {
    expect(create({ prompt: 'stand-up', rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30', time_zone: 'America/New_York' })).toEqual({
      id: 'schedule-1',
      kind: 'calendar',
      prompt: 'stand-up',
      rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30',
      timeZone: 'America/New_York',
      starts: '2026-07-15',
      catchUp: 'latest',
      scheduledAt: '2026-07-15T12:30:00.000Z',
    })
  })

  it('takes starts and catch_up, and skips an occurrence of today that is already past', () => {
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYHOUR=7', time_zone: 'Europe/Berlin', catch_up: 'all' })).toMatchObject({
      starts: '2026-07-15',
      catchUp: 'all',
      scheduledAt: '2026-07-16T05:00:00.000Z',
    })
    expect(create({ prompt: 'x', rrule: 'FREQ=MONTHLY', time_zone: 'Europe/Berlin', starts: '2026-08-03' })).toMatchObject({
      starts: '2026-08-03',
      scheduledAt: '2026-08-03T07:00:00.000Z',
    })
  })

  it('uses the implicit zone only when no time_zone is given, exactly as for a local at', () => {
    const ctx = context({ ok: true, timeZone: 'Asia/Kolkata' })
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY' }, ctx)).toMatchObject({ timeZone: 'Asia/Kolkata', scheduledAt: '2026-07-16T03:30:00.000Z' })
    expect(ctx.asked).toEqual(['rrule'])
    const explicit = context()
    create({ prompt: 'x', rrule: 'FREQ=DAILY', time_zone: 'UTC' }, explicit)
    expect(explicit.asked).toEqual([])
  })

  it('answers timezone_confirmation_required when the zones do not agree', () => {
    const refusal = timezoneConfirmationRequired('Europe/Berlin', ['America/New_York'], 'rrule')
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY' }, context({ ok: false, error: refusal }))).toEqual({
      code: 'timezone_confirmation_required',
      message:
        'an rrule without time_zone needs the Session time zone and the client time zone of this request to be one and the same zone; ask the user which IANA time zone they mean and pass it as time_zone',
      sessionTimeZone: 'Europe/Berlin',
      clientTimeZones: ['America/New_York'],
    })
  })

  it.each([
    [{ rrule: 'FREQ=HOURLY' }, 'invalid_rule', 'rrule is not valid: FREQ must be one of DAILY, WEEKLY, MONTHLY, YEARLY, got "HOURLY"'],
    [{ rrule: 42 }, 'invalid_rule', 'rrule is not valid: rrule must be a string such as "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30"'],
    [{ rrule: 'FREQ=DAILY', time_zone: 'CST' }, 'invalid_time_zone', 'time_zone must be an IANA time zone name such as "Europe/Berlin", got "CST"'],
    [{ rrule: 'FREQ=DAILY', time_zone: 'UTC', starts: '2026-02-30' }, 'invalid_rule', 'starts must be a real calendar date in YYYY-MM-DD form, got "2026-02-30"'],
    [{ rrule: 'FREQ=DAILY', time_zone: 'UTC', catch_up: 'some' }, 'invalid_rule', 'catch_up must be "latest", "all" or "skip", got "some"'],
    [{ after_seconds: 60, time_zone: 'UTC' }, 'invalid_selector', 'time_zone applies only to rrule; a local at takes at.time_zone'],
    [{ after_seconds: 60, catch_up: 'all' }, 'invalid_selector', 'catch_up applies only to every_seconds and rrule'],
    [{ every_seconds: 600, starts: '2026-07-15' }, 'invalid_selector', 'starts applies only to rrule'],
    [{ rrule: 'FREQ=DAILY;BYMINUTE=0,4', time_zone: 'UTC' }, 'frequency_too_high', 'occurrences 2026-07-15T09:00:00.000Z and 2026-07-15T09:04:00.000Z are less than 300 seconds apart; a calendar rule needs at least 300 seconds between occurrences'],
    [{ rrule: 'FREQ=DAILY;COUNT=3', time_zone: 'UTC', starts: '2026-07-01' }, 'not_future', 'the rule has no occurrence after now (2026-07-15T06:00:00.000Z)'],
    [{ rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', time_zone: 'UTC' }, 'not_future', 'the rule has no occurrence after now (2026-07-15T06:00:00.000Z)'],
    [{ rrule: 'FREQ=YEARLY;BYMONTH=1;BYDAY=53MO', time_zone: 'UTC' }, 'invalid_rule', 'rrule is not valid: BYDAY=53MO can never select a day: with BYMONTH, a BYDAY ordinal counts within the month, and a month holds at most 5 of each weekday'],
  ])('refuses %j', (fields, code, message) => {
    expect(create({ prompt: 'x', ...fields })).toEqual({ code, message })
  })

  it('refuses a BYSETPOS that can never select before expanding the rule (it searched a century, ~34 s)', () => {
    const everyHour = 'FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23'
    expect(create({ prompt: 'x', rrule: `${everyHour};BYSETPOS=30`, time_zone: 'America/New_York' })).toEqual({
      code: 'invalid_rule',
      message: 'rrule is not valid: BYSETPOS=30 can never select an occurrence: each day of this rule holds at most 24 candidate times',
    })
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYHOUR=9;BYSETPOS=2', time_zone: 'America/New_York' })).toEqual({
      code: 'invalid_rule',
      message: 'rrule is not valid: BYSETPOS=2 can never select an occurrence: each day of this rule holds at most 1 candidate time',
    })
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYHOUR=9,10;BYSETPOS=2,3', time_zone: 'America/New_York' })).toMatchObject({ scheduledAt: '2026-07-15T14:00:00.000Z' })
  })

  it('refuses a rule whose occurrences come closer than 300 s only on a spring-forward night months after it starts', () => {
    // 01:58 EST and 03:00 EDT are 62 minutes apart on the wall, 2 minutes apart on 14 March 2027
    const refusal = {
      code: 'frequency_too_high',
      message: 'occurrences 2027-03-14T06:58:00.000Z and 2027-03-14T07:00:00.000Z are less than 300 seconds apart; a calendar rule needs at least 300 seconds between occurrences',
    }
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYHOUR=1,3;BYMINUTE=0,58', time_zone: 'America/New_York' })).toEqual(refusal)
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYHOUR=1,3;BYMINUTE=0,58', time_zone: 'America/New_York', starts: '2027-03-01' })).toEqual(refusal)
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYHOUR=1,3;BYMINUTE=0,58', time_zone: 'America/New_York', starts: '2030-06-01' })).toEqual({
      code: 'frequency_too_high',
      message: 'occurrences 2031-03-09T06:58:00.000Z and 2031-03-09T07:00:00.000Z are less than 300 seconds apart; a calendar rule needs at least 300 seconds between occurrences',
    })
    // 02:30 moves forward out of the gap to 03:30, a minute before 03:31
    expect(create({ prompt: 'x', rrule: 'FREQ=WEEKLY;BYDAY=SU;BYHOUR=2,3;BYMINUTE=30,31;BYSETPOS=1,4', time_zone: 'Europe/Berlin' })).toEqual({
      code: 'frequency_too_high',
      message: 'occurrences 2027-03-28T01:30:00.000Z and 2027-03-28T01:31:00.000Z are less than 300 seconds apart; a calendar rule needs at least 300 seconds between occurrences',
    })
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYHOUR=1,3;BYMINUTE=0,58', time_zone: 'Asia/Kolkata' })).toMatchObject({ scheduledAt: '2026-07-15T19:30:00.000Z' })
  })

  describe('a rule of the 14th of each month, every two hours at :00 and :58 in New York', () => {
    const fourteenth = 'FREQ=DAILY;BYMONTHDAY=14;BYHOUR=1,3,5,7,9,11,13,15,17,19,21,23;BYMINUTE=0,58'
    const at = (rrule: string): unknown => create({ prompt: 'x', rrule, time_zone: 'America/New_York', starts: '2027-04-01' })

    it('is refused for 14 March 2032, the first spring-forward night it meets, five years after it starts', () => {
      expect(at(fourteenth)).toEqual({
        code: 'frequency_too_high',
        message: 'occurrences 2032-03-14T06:58:00.000Z and 2032-03-14T07:00:00.000Z are less than 300 seconds apart; a calendar rule needs at least 300 seconds between occurrences',
      })
      expect(at(`${fourteenth};UNTIL=20320314T070000Z`)).toMatchObject({ code: 'frequency_too_high' })
      // 24 occurrences a month from April 2027 to February 2032 (1,416), then 01:00 and 01:58 EST and 03:00 EDT on 14 March 2032
      expect(at(`${fourteenth};COUNT=1419`)).toMatchObject({ code: 'frequency_too_high' })
    })

    it('is taken when it ends before that night, or on the 20th, which a clock change of New York never falls on', () => {
      expect(at(`${fourteenth};UNTIL=20320314T065800Z`)).toMatchObject({ scheduledAt: '2027-04-14T05:00:00.000Z' })
      expect(at(`${fourteenth};COUNT=1418`)).toMatchObject({ scheduledAt: '2027-04-14T05:00:00.000Z' })
      expect(at(`${fourteenth};UNTIL=20320313`)).toMatchObject({ scheduledAt: '2027-04-14T05:00:00.000Z' })
      expect(at(fourteenth.replace('BYMONTHDAY=14', 'BYMONTHDAY=20'))).toMatchObject({ scheduledAt: '2027-04-20T05:00:00.000Z' })
    })

    it('leaves a COUNT series longer than the library can count (10,000 days) creatable', () => {
      // 124 occurrences each January: 4,000 of them run 33 years
      expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYMONTH=1;BYHOUR=1,3;BYMINUTE=0,58;COUNT=4000', time_zone: 'America/New_York' })).toMatchObject({ scheduledAt: '2027-01-01T06:00:00.000Z' })
    })
  })

  it('takes a start more than a century ahead: the search for its first occurrence counts from the start, not from now', () => {
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY', time_zone: 'UTC', starts: '2200-01-01' })).toEqual({
      id: 'schedule-1',
      kind: 'calendar',
      prompt: 'x',
      rrule: 'FREQ=DAILY',
      timeZone: 'UTC',
      starts: '2200-01-01',
      catchUp: 'latest',
      scheduledAt: '2200-01-01T09:00:00.000Z',
    })
    expect(create({ prompt: 'x', rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29', time_zone: 'Asia/Tokyo', starts: '2199-03-01' })).toMatchObject({ scheduledAt: '2204-02-29T00:00:00.000Z' })
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYHOUR=12', time_zone: 'Europe/Berlin', starts: '9999-12-31' })).toMatchObject({ scheduledAt: '9999-12-31T11:00:00.000Z' })
  })

  it('answers time_out_of_range for a series whose next occurrence lies past year 9999, not_future for one that ends before', () => {
    const outOfRange = { code: 'time_out_of_range', message: 'the target must lie between 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z' }
    // 23:00 in New York on 31 December 9999 is 04:00 UTC on 1 January 10000
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYHOUR=23', time_zone: 'America/New_York', starts: '9999-12-31' })).toEqual(outOfRange)
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYHOUR=23;UNTIL=99991231', time_zone: 'America/New_York', starts: '9999-12-31' })).toEqual(outOfRange)
    expect(create({ prompt: 'x', rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29', time_zone: 'UTC', starts: '9997-03-01' })).toEqual(outOfRange)
    const lastDay = context(undefined, Date.parse('9999-12-31T10:00:00.000Z'))
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;COUNT=4', time_zone: 'UTC', starts: '9999-12-29' }, lastDay)).toEqual(outOfRange)
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;COUNT=3', time_zone: 'UTC', starts: '9999-12-29' }, lastDay)).toEqual({
      code: 'not_future',
      message: 'the rule has no occurrence after now (9999-12-31T10:00:00.000Z)',
    })
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYHOUR=23;UNTIL=99991231T235959Z', time_zone: 'America/New_York', starts: '9999-12-31' })).toEqual({
      code: 'not_future',
      message: 'the rule has no occurrence after now (2026-07-15T06:00:00.000Z)',
    })
  })

  it('creates a COUNT series whose end lies more than 10,000 periods past its start (it failed in rrule-temporal, and the route answered 500)', () => {
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=8', time_zone: 'UTC' })).toMatchObject({ scheduledAt: '2028-02-29T09:00:00.000Z' })
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYMONTHDAY=8;COUNT=2000;BYHOUR=3,4,6,20', time_zone: 'America/New_York' })).toMatchObject({
      scheduledAt: '2026-08-08T07:00:00.000Z',
    })
  })

  it('creates a COUNT series of a rare day whose COUNT runs for millennia', () => {
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=9999', time_zone: 'America/New_York' })).toMatchObject({ scheduledAt: '2028-02-29T14:00:00.000Z' })
    // 3.5 s of one create on the code that counted 100,000 days from its start at once (to April 2300)
    const hours = 'BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23'
    expect(
      create({ prompt: 'x', rrule: `FREQ=WEEKLY;BYMONTH=2;BYDAY=MO,TU,WE,TH,FR,SA,SU;${hours};BYMINUTE=0,5,10,15,20,25,30,35,40,45,50,55;BYSETPOS=1,-1;COUNT=9999`, time_zone: 'America/New_York' }),
    ).toMatchObject({ scheduledAt: '2027-02-01T05:00:00.000Z' })
  })

  it('answers a YEARLY rule of an ordinal and a weekday at every minute or every 5 minutes of the day (19 s for one create in Gaza)', () => {
    const hours = 'BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23'
    const everyFive = `${hours};BYMINUTE=0,5,10,15,20,25,30,35,40,45,50,55`
    const everyMinute = `${hours};BYMINUTE=${Array.from({ length: 60 }, (_, minute) => minute).join(',')}`
    expect(create({ prompt: 'x', rrule: `FREQ=YEARLY;BYDAY=MO,-1SU;${everyFive};BYSETPOS=-1;COUNT=9999`, time_zone: 'Asia/Gaza' })).toMatchObject({ scheduledAt: '2026-12-28T21:55:00.000Z' })
    expect(create({ prompt: 'x', rrule: `FREQ=YEARLY;BYDAY=MO,-1SU;${everyMinute}`, time_zone: 'America/Santiago' })).toEqual({
      code: 'frequency_too_high',
      message: 'occurrences 2026-07-20T04:00:00.000Z and 2026-07-20T04:01:00.000Z are less than 300 seconds apart; a calendar rule needs at least 300 seconds between occurrences',
    })
  })

  it('answers a rule of every 5 minutes of the day in Gaza with its next occurrence', () => {
    const everyFive = 'FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=0,5,10,15,20,25,30,35,40,45,50,55'
    expect(create({ prompt: 'x', rrule: everyFive, time_zone: 'Asia/Gaza' })).toMatchObject({ scheduledAt: '2026-07-15T06:05:00.000Z' })
  })

  it('answers rules kept to some days of the year, of many times a day or counted from centuries back (each took a second or more)', () => {
    const hours = 'BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23'
    const minutes = (from: number, step: number): string => `BYMINUTE=${Array.from({ length: Math.ceil((60 - from) / step) }, (_, i) => from + i * step).join(',')}`
    expect(create({ prompt: 'x', rrule: `FREQ=DAILY;BYMONTH=3,10;${hours};${minutes(0, 1)}`, time_zone: 'Australia/Lord_Howe' })).toEqual({
      code: 'frequency_too_high',
      message: 'occurrences 2026-09-30T13:30:00.000Z and 2026-09-30T13:31:00.000Z are less than 300 seconds apart; a calendar rule needs at least 300 seconds between occurrences',
    })
    expect(create({ prompt: 'x', rrule: `FREQ=DAILY;BYMONTH=3,10;${hours};${minutes(2, 5)}`, time_zone: 'Australia/Lord_Howe' })).toMatchObject({ scheduledAt: '2026-09-30T13:32:00.000Z' })
    expect(create({ prompt: 'x', rrule: `FREQ=DAILY;BYMONTHDAY=14;BYHOUR=0,12;${minutes(0, 1)};BYSETPOS=-1;COUNT=9999`, time_zone: 'Asia/Hebron', starts: '1900-01-01' })).toMatchObject({
      scheduledAt: '2026-08-14T09:59:00.000Z',
    })
    expect(create({ prompt: 'x', rrule: `FREQ=DAILY;BYMONTH=3,10;${hours};BYMINUTE=0,30;COUNT=9999`, time_zone: 'America/St_Johns', starts: '0001-01-01' })).toEqual({
      code: 'not_future',
      message: 'the rule has no occurrence after now (2026-07-15T06:00:00.000Z)',
    })
  })

  it('accepts a 300-second spacing exactly', () => {
    expect(create({ prompt: 'x', rrule: 'FREQ=DAILY;BYMINUTE=0,5', time_zone: 'UTC' })).toMatchObject({ scheduledAt: '2026-07-15T09:00:00.000Z' })
  })

  it('keeps a catch-up policy on every_seconds', () => {
    expect(create({ prompt: 'x', every_seconds: 900, catch_up: 'skip' })).toMatchObject({ kind: 'every', catchUp: 'skip' })
  })
})

const daily: ScheduleRecord = {
  id: 'schedule-3',
  kind: 'calendar',
  prompt: 'stand-up',
  rrule: 'FREQ=DAILY;BYHOUR=9',
  timeZone: 'Europe/Berlin',
  starts: '2026-07-15',
  catchUp: 'all',
  scheduledAt: '2026-07-15T07:00:00.000Z',
}

function update(record: ScheduleRecord, args: Record<string, unknown>, ctx = context()): unknown {
  const parsed = parseUpdateArgs({ id: record.id, ...args })
  if (!parsed.ok) return parsed.error.toToolError()
  const result = resolveUpdate(record, parsed.value.fields, ctx)
  return result.ok ? result.value : result.error.toToolError()
}

describe('resolveUpdate', () => {
  it('re-validates a changed rule with the same zone, start and policy when only the rule changes', () => {
    expect(update(daily, { rrule: 'FREQ=DAILY;BYHOUR=10', time_zone: 'Europe/Berlin' })).toEqual({ ...daily, rrule: 'FREQ=DAILY;BYHOUR=10', scheduledAt: '2026-07-15T08:00:00.000Z' })
  })

  it('keeps the reminder\'s own zone when only its rule changes, without asking for the implicit zone', () => {
    const ctx = context({ ok: true, timeZone: 'America/New_York' })
    // on the code before, the rule moved to the Session zone: 10:00 in New York, 14:00Z
    expect(update(daily, { rrule: 'FREQ=DAILY;BYHOUR=10' }, ctx)).toEqual({ ...daily, rrule: 'FREQ=DAILY;BYHOUR=10', scheduledAt: '2026-07-15T08:00:00.000Z' })
    expect(ctx.asked).toEqual([])
    expect(update(daily, { rrule: 'FREQ=DAILY;BYHOUR=10', time_zone: 'Asia/Tokyo' }, ctx)).toEqual({
      ...daily,
      rrule: 'FREQ=DAILY;BYHOUR=10',
      timeZone: 'Asia/Tokyo',
      scheduledAt: '2026-07-16T01:00:00.000Z',
    })
  })

  it('keeps the start of a series that starts on a later day when its rule changes, and starts one already running today', () => {
    const later = { ...daily, starts: '2026-09-01', scheduledAt: '2026-09-01T07:00:00.000Z' }
    // on the code before, the new rule started today: the series due on 1 September came due tomorrow morning
    expect(update(later, { rrule: 'FREQ=DAILY;BYHOUR=10', time_zone: 'Europe/Berlin' })).toEqual({
      ...later,
      rrule: 'FREQ=DAILY;BYHOUR=10',
      scheduledAt: '2026-09-01T08:00:00.000Z',
    })
    expect(update(later, { rrule: 'FREQ=DAILY;BYHOUR=10', starts: '2026-08-01' })).toMatchObject({ starts: '2026-08-01', scheduledAt: '2026-08-01T08:00:00.000Z' })
    const running = { ...daily, starts: '2026-07-01' }
    expect(update(running, { rrule: 'FREQ=DAILY;BYHOUR=10', time_zone: 'Europe/Berlin' })).toEqual({
      ...running,
      rrule: 'FREQ=DAILY;BYHOUR=10',
      starts: '2026-07-15',
      scheduledAt: '2026-07-15T08:00:00.000Z',
    })
  })

  it('changes the zone of a calendar rule and keeps its wall time', () => {
    expect(update(daily, { time_zone: 'America/New_York' })).toEqual({ ...daily, timeZone: 'America/New_York', scheduledAt: '2026-07-15T13:00:00.000Z' })
  })

  it('changes only the prompt without moving the target', () => {
    expect(update(daily, { prompt: '  stand up  ' })).toEqual({ ...daily, prompt: 'stand up' })
    const after: ScheduleRecord = { id: 'schedule-3', kind: 'after', prompt: 'tea', afterSeconds: 60, scheduledAt: '2026-07-15T06:01:00.000Z' }
    expect(update(after, { prompt: 'green tea' })).toEqual({ ...after, prompt: 'green tea' })
  })

  it('reads a local at in a new zone at the same wall time', () => {
    const at: ScheduleRecord = { id: 'schedule-3', kind: 'at', prompt: 'call', scheduledAt: '2026-07-16T07:30:00.000Z', timeZone: 'Europe/Berlin' }
    expect(update(at, { time_zone: 'Asia/Shanghai' })).toEqual({ ...at, scheduledAt: '2026-07-16T01:30:00.000Z', timeZone: 'Asia/Shanghai' })
  })

  it('replaces the selector, validated as on create (implicit zone included)', () => {
    const ctx = context({ ok: true, timeZone: 'Europe/Berlin' })
    expect(update(daily, { at: { date: '2026-07-16', time: '10:00:00' } }, ctx)).toEqual({
      id: 'schedule-3',
      kind: 'at',
      prompt: 'stand-up',
      scheduledAt: '2026-07-16T08:00:00.000Z',
      timeZone: 'Europe/Berlin',
    })
    expect(ctx.asked).toEqual(['at'])
    expect(update(daily, { every_seconds: 600 })).toMatchObject({ kind: 'every', everySeconds: 600, catchUp: 'all' })
  })

  it.each([
    [{}, 'invalid_selector', 'schedule_update needs at least one field to change'],
    [{ at: '2027-01-01T00:00:00Z', after_seconds: 5 }, 'invalid_selector', 'at most one of after_seconds, at, every_seconds, rrule may be changed, got after_seconds, at'],
    [{ colour: 'red' }, 'invalid_selector', 'schedule_update does not accept "colour"; it takes id, and optionally prompt, at most one of after_seconds, at, every_seconds, rrule, time_zone, starts, catch_up'],
    [{ prompt: ' ' }, 'invalid_prompt', 'prompt must be a non-empty string'],
    [{ prompt: 'tea\u0000' }, 'invalid_prompt', 'prompt must not contain the character U+0000'],
    [{ rrule: 'FREQ=DAILY;COUNT=1', time_zone: 'UTC', starts: '2026-01-01' }, 'not_future', 'the rule has no occurrence after now (2026-07-15T06:00:00.000Z)'],
  ])('refuses %j', (args, code, message) => {
    expect(update(daily, args)).toEqual({ code, message })
  })
})

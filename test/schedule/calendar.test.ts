import fc from 'fast-check'
import { RRuleTemporal } from 'rrule-temporal'
import { Temporal } from 'temporal-polyfill'
import { describe, expect, it } from 'vitest'
import { formatZonedTimestamp } from '../../src/protocol/index.ts'
import { parseRrule, type CalendarRule } from '../../src/protocol/rrule.ts'
import { instantsForWallTime } from '../../src/protocol/index.ts'
import { wallClockAt } from '../../src/schedule/absolute-time.ts'
import { occurrencesAfter, occurrencesBetween, SEARCH_PERIODS, type CalendarSpec } from '../../src/schedule/calendar.ts'
import { oracleWallTimes } from './rrule-oracle.ts'

function spec(rrule: string, timeZone: string, starts: string): CalendarSpec {
  const parsed = parseRrule(rrule)
  if (!parsed.ok) throw new Error(parsed.reason)
  const [year, month, day] = starts.split('-').map(Number)
  return { rrule, rule: parsed.rule, timeZone, starts: { year, month, day } }
}

/** The first `n` occurrences from the series start, as zoned timestamps; `*` marks a wall time moved forward out of a gap. */
function series(rrule: string, timeZone: string, starts: string, n: number): string[] {
  const s = spec(rrule, timeZone, starts)
  return occurrencesAfter(s, Date.parse(`${starts}T00:00:00Z`) - 86_400_000, n).map(
    (o) => formatZonedTimestamp(o.instant, timeZone) + (o.shifted ? '*' : ''),
  )
}

describe('calendar occurrences across DST (gap → forward by the gap, overlap → earlier instant)', () => {
  it.each([
    ['DAILY into a New York spring-forward gap', 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30', 'America/New_York', '2027-03-13', [
      '2027-03-13T02:30:00-05:00[America/New_York]', '2027-03-14T03:30:00-04:00[America/New_York]*', '2027-03-15T02:30:00-04:00[America/New_York]',
    ]],
    ['DAILY into a New York fall-back overlap', 'FREQ=DAILY;BYHOUR=1;BYMINUTE=30', 'America/New_York', '2026-10-31', [
      '2026-10-31T01:30:00-04:00[America/New_York]', '2026-11-01T01:30:00-04:00[America/New_York]', '2026-11-02T01:30:00-05:00[America/New_York]',
    ]],
    ['WEEKLY (BYDAY=SU) over the Berlin overlap', 'FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=30', 'Europe/Berlin', '2026-10-18', [
      '2026-10-18T02:30:00+02:00[Europe/Berlin]', '2026-10-25T02:30:00+02:00[Europe/Berlin]', '2026-11-01T02:30:00+01:00[Europe/Berlin]',
    ]],
    ['WEEKLY (BYDAY=SU) over the Berlin gap', 'FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=30', 'Europe/Berlin', '2027-03-21', [
      '2027-03-21T02:30:00+01:00[Europe/Berlin]', '2027-03-28T03:30:00+02:00[Europe/Berlin]*', '2027-04-04T02:30:00+02:00[Europe/Berlin]',
    ]],
    ['MONTHLY (BYDAY=1SU) into the Sydney gap', 'FREQ=MONTHLY;BYDAY=1SU;BYHOUR=2;BYMINUTE=30', 'Australia/Sydney', '2026-09-01', [
      '2026-09-06T02:30:00+10:00[Australia/Sydney]', '2026-10-04T03:30:00+11:00[Australia/Sydney]*', '2026-11-01T02:30:00+11:00[Australia/Sydney]',
    ]],
    ['DAILY over the Sydney overlap', 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30', 'Australia/Sydney', '2027-04-03', [
      '2027-04-03T02:30:00+11:00[Australia/Sydney]', '2027-04-04T02:30:00+11:00[Australia/Sydney]', '2027-04-05T02:30:00+10:00[Australia/Sydney]',
    ]],
    ['YEARLY (BYMONTH=10;BYDAY=1SU) into the 30-minute Lord Howe gap', 'FREQ=YEARLY;BYMONTH=10;BYDAY=1SU;BYHOUR=2;BYMINUTE=15', 'Australia/Lord_Howe', '2026-01-01', [
      '2026-10-04T02:45:00+11:00[Australia/Lord_Howe]*', '2027-10-03T02:45:00+11:00[Australia/Lord_Howe]*',
    ]],
    ['YEARLY (BYMONTH=4;BYDAY=1SU) in the 30-minute Lord Howe overlap', 'FREQ=YEARLY;BYMONTH=4;BYDAY=1SU;BYHOUR=1;BYMINUTE=45', 'Australia/Lord_Howe', '2027-01-01', [
      '2027-04-04T01:45:00+11:00[Australia/Lord_Howe]', '2028-04-02T01:45:00+11:00[Australia/Lord_Howe]',
    ]],
    ['MONTHLY (BYDAY=-1SU) into the Chatham gap', 'FREQ=MONTHLY;BYDAY=-1SU;BYHOUR=3', 'Pacific/Chatham', '2026-08-01', [
      '2026-08-30T03:00:00+12:45[Pacific/Chatham]', '2026-09-27T04:00:00+13:45[Pacific/Chatham]*', '2026-10-25T03:00:00+13:45[Pacific/Chatham]',
    ]],
    ['DAILY over the Chatham overlap', 'FREQ=DAILY;BYHOUR=3', 'Pacific/Chatham', '2027-04-03', [
      '2027-04-03T03:00:00+13:45[Pacific/Chatham]', '2027-04-04T03:00:00+13:45[Pacific/Chatham]', '2027-04-05T03:00:00+12:45[Pacific/Chatham]',
    ]],
    ['MONTHLY (BYMONTHDAY=-1) across the Chatham offset change', 'FREQ=MONTHLY;BYMONTHDAY=-1', 'Pacific/Chatham', '2026-07-15', [
      '2026-07-31T09:00:00+12:45[Pacific/Chatham]', '2026-08-31T09:00:00+12:45[Pacific/Chatham]', '2026-09-30T09:00:00+13:45[Pacific/Chatham]',
    ]],
    ['MONTHLY last weekday (BYSETPOS=-1) in Kolkata', 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1', 'Asia/Kolkata', '2026-07-15', [
      '2026-07-31T09:00:00+05:30[Asia/Kolkata]', '2026-08-31T09:00:00+05:30[Asia/Kolkata]', '2026-09-30T09:00:00+05:30[Asia/Kolkata]',
    ]],
    ['YEARLY on 29 February in UTC', 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=12', 'UTC', '2026-07-15', [
      '2028-02-29T12:00:00+00:00[UTC]', '2032-02-29T12:00:00+00:00[UTC]',
    ]],
    ['YEARLY (BYMONTH=10,3, the later month first;BYSETPOS=1,-1) in the London overlap', 'FREQ=YEARLY;BYMONTH=10,3;BYDAY=SU;BYHOUR=1;BYMINUTE=30;BYSETPOS=1,-1', 'Europe/London', '2026-07-15', [
      '2026-10-25T01:30:00+01:00[Europe/London]', '2027-03-07T01:30:00+00:00[Europe/London]', '2027-10-31T01:30:00+01:00[Europe/London]', '2028-03-05T01:30:00+00:00[Europe/London]',
    ]],
    ['WEEKLY weekdays in New York', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30', 'America/New_York', '2026-10-29', [
      '2026-10-29T08:30:00-04:00[America/New_York]', '2026-10-30T08:30:00-04:00[America/New_York]', '2026-11-02T08:30:00-05:00[America/New_York]',
    ]],
  ])('%s', (_name, rrule, zone, starts, expected) => {
    expect(series(rrule, zone, starts, expected.length)).toEqual(expected)
  })

  it('keeps each occurrence a real instant: a shifted one lies exactly one gap after the wall time it names', () => {
    const [gap] = occurrencesBetween(spec('FREQ=DAILY;BYHOUR=2;BYMINUTE=15', 'Australia/Lord_Howe', '2026-10-04'), Date.parse('2026-10-03T00:00:00Z'), Date.parse('2026-10-04T00:00:00Z'))
    expect(gap.shifted).toBe(true)
    expect(instantsForWallTime(gap.wall, 'Australia/Lord_Howe')).toEqual([])
    expect(wallClockAt('Australia/Lord_Howe', gap.instant)).toMatchObject({ year: 2026, month: 10, day: 4, hour: 2, minute: 45 })
  })
})

describe('occurrences of a long stretch', () => {
  it('lists more than a call can spread: every 5 minutes for 500 days, as a catch-up after a long outage counts them', () => {
    const every5 = `FREQ=DAILY;BYHOUR=${Array.from({ length: 24 }, (_, h) => h).join(',')};BYMINUTE=${Array.from({ length: 12 }, (_, m) => m * 5).join(',')}`
    const from = Date.parse('2026-01-01T00:00:00Z')
    // on the code before, RangeError: Maximum call stack size exceeded (one window's occurrences spread into push)
    const all = occurrencesBetween(spec(every5, 'UTC', '2026-01-01'), from, from + 500 * 86_400_000 - 1)
    expect({ count: all.length, first: all[0].instant, last: all.at(-1)?.instant }).toEqual({ count: 500 * 288, first: from, last: from + 500 * 86_400_000 - 300_000 })
  })
})

describe('COUNT and UNTIL', () => {
  it('ends after COUNT occurrences', () => {
    expect(series('FREQ=DAILY;COUNT=2', 'UTC', '2026-07-15', 5)).toEqual(['2026-07-15T09:00:00+00:00[UTC]', '2026-07-16T09:00:00+00:00[UTC]'])
  })

  it('ends at the end of an UNTIL date in the zone, inclusive', () => {
    expect(series('FREQ=DAILY;BYHOUR=23;UNTIL=20260716', 'Asia/Tokyo', '2026-07-15', 5)).toEqual([
      '2026-07-15T23:00:00+09:00[Asia/Tokyo]',
      '2026-07-16T23:00:00+09:00[Asia/Tokyo]',
    ])
  })

  it('counts a COUNT that runs past 10,000 periods of its start, where rrule-temporal gives up counting', () => {
    expect(series('FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=8', 'UTC', '2026-12-04', 10)).toEqual(
      [2028, 2032, 2036, 2040, 2044, 2048, 2052, 2056].map((year) => `${year}-02-29T09:00:00+00:00[UTC]`),
    )
    // four a month from 8 August 2026: the 2,000th is the last of 8 March 2068, about 15,000 days on
    const eighth = spec('FREQ=DAILY;BYMONTHDAY=8;BYHOUR=3,4,6,20;COUNT=2000', 'America/New_York', '2026-07-15')
    expect(occurrencesAfter(eighth, Date.parse('2068-02-09T02:00:00Z'), 10).map((o) => formatZonedTimestamp(o.instant, 'America/New_York'))).toEqual([
      '2068-03-08T03:00:00-05:00[America/New_York]',
      '2068-03-08T04:00:00-05:00[America/New_York]',
      '2068-03-08T06:00:00-05:00[America/New_York]',
      '2068-03-08T20:00:00-05:00[America/New_York]',
    ])
  })

  it('ends at an UNTIL instant, inclusive', () => {
    expect(series('FREQ=DAILY;UNTIL=20260716T070000Z', 'Europe/Berlin', '2026-07-15', 5)).toEqual(['2026-07-15T09:00:00+02:00[Europe/Berlin]', '2026-07-16T09:00:00+02:00[Europe/Berlin]'])
    expect(series('FREQ=DAILY;UNTIL=20260716T065959Z', 'Europe/Berlin', '2026-07-15', 5)).toEqual(['2026-07-15T09:00:00+02:00[Europe/Berlin]'])
  })
})

describe('YEARLY ordinals without BYMONTH count within the year (RFC 5545: 53MO is the 53rd Monday of the year)', () => {
  it.each([
    ['53MO only in a year with 53 Mondays', 'FREQ=YEARLY;BYDAY=53MO', '2026-01-01', 3, ['2029-12-31T09:00:00-05:00[America/New_York]', '2035-12-31T09:00:00-05:00[America/New_York]', '2040-12-31T09:00:00-05:00[America/New_York]']],
    ['-53TH only in a year with 53 Thursdays', 'FREQ=YEARLY;BYDAY=-53TH', '2026-01-01', 3, ['2026-01-01T09:00:00-05:00[America/New_York]', '2032-01-01T09:00:00-05:00[America/New_York]', '2037-01-01T09:00:00-05:00[America/New_York]']],
    ['53MO with BYSETPOS and COUNT counts only real occurrences', 'FREQ=YEARLY;BYDAY=1MO,53MO;BYSETPOS=-1;COUNT=4', '2026-07-15', 5, ['2027-01-04T09:00:00-05:00[America/New_York]', '2028-01-03T09:00:00-05:00[America/New_York]', '2029-12-31T09:00:00-05:00[America/New_York]', '2030-01-07T09:00:00-05:00[America/New_York]']],
    ['53FR beside a plain ordinal, with INTERVAL, two times and BYSETPOS', 'FREQ=YEARLY;INTERVAL=2;BYDAY=-1SU,53FR;BYHOUR=8,20;BYSETPOS=-2', '2026-07-15', 4, ['2026-12-27T08:00:00-05:00[America/New_York]', '2028-12-31T08:00:00-05:00[America/New_York]', '2030-12-29T08:00:00-05:00[America/New_York]', '2032-12-31T08:00:00-05:00[America/New_York]']],
    ['40SU (the first Sunday of October) in the Lord Howe spring-forward gap still moves forward', 'FREQ=YEARLY;BYDAY=40SU;BYHOUR=2;BYMINUTE=15', '2026-01-01', 2, ['2026-10-04T02:45:00+11:00[Australia/Lord_Howe]*', '2027-10-03T02:45:00+11:00[Australia/Lord_Howe]*']],
  ])('%s', (_name, rrule, starts, n, expected) => {
    const zone = expected[0].includes('Lord_Howe') ? 'Australia/Lord_Howe' : 'America/New_York'
    expect(series(rrule, zone, starts, n)).toEqual(expected)
  })

  it('ends at an UNTIL date inclusive', () => {
    expect(series('FREQ=YEARLY;BYDAY=53MO;UNTIL=20351231', 'America/New_York', '2026-01-01', 5)).toEqual(['2029-12-31T09:00:00-05:00[America/New_York]', '2035-12-31T09:00:00-05:00[America/New_York]'])
    expect(series('FREQ=YEARLY;BYDAY=53MO;UNTIL=20351230', 'America/New_York', '2026-01-01', 5)).toEqual(['2029-12-31T09:00:00-05:00[America/New_York]'])
  })
})

const EVERY_HOUR = Array.from({ length: 24 }, (_, hour) => hour).join(',')
const EVERY_MINUTE = Array.from({ length: 60 }, (_, minute) => minute).join(',')
const EVERY_FIVE_MINUTES = Array.from({ length: 12 }, (_, i) => i * 5).join(',')

/** The occurrences whose instants lie in `[from, to]`, as zoned timestamps; `*` marks a wall time moved forward out of a gap. */
function window(rrule: string, timeZone: string, starts: string, from: string, to: string): string[] {
  return occurrencesBetween(spec(rrule, timeZone, starts), Date.parse(from), Date.parse(to)).map((o) => formatZonedTimestamp(o.instant, timeZone) + (o.shifted ? '*' : ''))
}

describe('YEARLY ordinals over years of tens of thousands of candidate times (each window made them all: seconds for one create)', () => {
  it('picks the 100th and the 100th last of every minute of every Sunday and the last Monday', () => {
    expect(series(`FREQ=YEARLY;BYDAY=SU,-1MO;BYHOUR=${EVERY_HOUR};BYMINUTE=${EVERY_MINUTE};BYSETPOS=100,-100`, 'Africa/Casablanca', '2030-10-15', 6)).toEqual([
      '2030-12-30T22:20:00+00:00[Africa/Casablanca]', '2031-01-05T01:39:00+00:00[Africa/Casablanca]', '2031-12-29T22:20:00+00:00[Africa/Casablanca]',
      '2032-01-04T01:39:00+00:00[Africa/Casablanca]', '2032-12-27T22:20:00+00:00[Africa/Casablanca]', '2033-01-02T01:39:00+00:00[Africa/Casablanca]',
    ])
    expect(series(`FREQ=YEARLY;BYDAY=MO,-1SU;BYHOUR=${EVERY_HOUR};BYMINUTE=${EVERY_FIVE_MINUTES};BYSETPOS=-1;COUNT=9999`, 'Asia/Gaza', '2026-07-15', 4)).toEqual([
      '2026-12-28T23:55:00+02:00[Asia/Gaza]', '2027-12-27T23:55:00+02:00[Asia/Gaza]', '2028-12-31T23:55:00+02:00[Asia/Gaza]', '2029-12-31T23:55:00+02:00[Asia/Gaza]',
    ])
  })

  it('moves every 5 minutes of the 13th Saturday of 2027 forward out of the Gaza spring-forward gap, beside every Sunday', () => {
    expect(window(`FREQ=YEARLY;BYDAY=SU,13SA;BYHOUR=${EVERY_HOUR};BYMINUTE=${EVERY_FIVE_MINUTES}`, 'Asia/Gaza', '2027-01-01', '2027-03-26T23:45:00Z', '2027-03-27T00:15:00Z')).toEqual([
      '2027-03-27T01:45:00+02:00[Asia/Gaza]', '2027-03-27T01:50:00+02:00[Asia/Gaza]', '2027-03-27T01:55:00+02:00[Asia/Gaza]', '2027-03-27T03:00:00+03:00[Asia/Gaza]*',
      '2027-03-27T03:05:00+03:00[Asia/Gaza]*', '2027-03-27T03:10:00+03:00[Asia/Gaza]*', '2027-03-27T03:15:00+03:00[Asia/Gaza]*',
    ])
  })
})

describe('every 5 minutes of the day (each wall time read Intl 11 times: half a second for one create and one view)', () => {
  const everyFive = `FREQ=DAILY;BYHOUR=${EVERY_HOUR};BYMINUTE=${EVERY_FIVE_MINUTES}`

  it('moves the hour the Gaza spring-forward skips forward onto the next, and keeps the earlier instant of the hour its fall-back repeats', () => {
    expect(window(everyFive, 'Asia/Gaza', '2026-07-15', '2027-03-26T23:40:00Z', '2027-03-27T00:10:00Z')).toEqual([
      '2027-03-27T01:40:00+02:00[Asia/Gaza]', '2027-03-27T01:45:00+02:00[Asia/Gaza]', '2027-03-27T01:50:00+02:00[Asia/Gaza]', '2027-03-27T01:55:00+02:00[Asia/Gaza]',
      '2027-03-27T03:00:00+03:00[Asia/Gaza]*', '2027-03-27T03:05:00+03:00[Asia/Gaza]*', '2027-03-27T03:10:00+03:00[Asia/Gaza]*',
    ])
    expect(window(everyFive, 'Asia/Gaza', '2026-07-15', '2026-10-23T22:40:00Z', '2026-10-23T23:10:00Z')).toEqual([
      '2026-10-24T01:40:00+03:00[Asia/Gaza]', '2026-10-24T01:45:00+03:00[Asia/Gaza]', '2026-10-24T01:50:00+03:00[Asia/Gaza]', '2026-10-24T01:55:00+03:00[Asia/Gaza]',
    ])
  })
})

describe('a DAILY rule kept to two months, every 5 minutes (each of its days was a library call: a second for one create)', () => {
  it('moves the half hour the Lord Howe spring-forward skips forward by 30 minutes, onto the wall times after it', () => {
    const rrule = `FREQ=DAILY;BYMONTH=3,10;BYHOUR=${EVERY_HOUR};BYMINUTE=${Array.from({ length: 12 }, (_, i) => i * 5 + 2).join(',')}`
    expect(window(rrule, 'Australia/Lord_Howe', '2026-07-15', '2026-10-03T15:20:00Z', '2026-10-03T15:45:00Z')).toEqual([
      '2026-10-04T01:52:00+10:30[Australia/Lord_Howe]', '2026-10-04T01:57:00+10:30[Australia/Lord_Howe]', '2026-10-04T02:32:00+11:00[Australia/Lord_Howe]*',
      '2026-10-04T02:37:00+11:00[Australia/Lord_Howe]*', '2026-10-04T02:42:00+11:00[Australia/Lord_Howe]*',
    ])
  })
})

describe('the next occurrences of a rule of many times a day', () => {
  it('begin with all its occurrences of the month ahead, around clock changes too (the search stops a day past the last it needs)', () => {
    const rules = [
      `FREQ=DAILY;BYHOUR=${EVERY_HOUR};BYMINUTE=${EVERY_FIVE_MINUTES}`,
      'FREQ=DAILY;BYHOUR=0,1,2,3,4;BYMINUTE=0,7,14,21,28,35,42,49,56',
      `FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=${EVERY_HOUR};BYMINUTE=2,32;BYSETPOS=1,2,3,-1`,
      `FREQ=MONTHLY;BYDAY=-1SU,1SU;BYHOUR=${EVERY_HOUR};BYMINUTE=${EVERY_FIVE_MINUTES};COUNT=2000`,
    ]
    fc.assert(
      fc.property(
        fc.constantFrom(...rules),
        fc.constantFrom(['Asia/Gaza', '2027-03-27T00:00:00Z'], ['Australia/Lord_Howe', '2027-04-03T15:00:00Z'], ['Pacific/Chatham', '2026-09-26T14:00:00Z'], ['America/New_York', '2026-11-01T06:00:00Z']),
        fc.integer({ min: -72, max: 72 }),
        fc.constantFrom(1, 4, 400, 700),
        (rrule, [zone, change], hours, n) => {
          const s = spec(rrule, zone, '2026-07-01')
          const after = Date.parse(change) + hours * 3_600_000
          const month = occurrencesBetween(s, after + 1, after + 31 * 86_400_000).slice(0, n)
          expect(occurrencesAfter(s, after, n).slice(0, month.length)).toEqual(month)
        },
      ),
      { numRuns: 60, seed: 20270327 },
    )
  })
})

describe('DAILY with BYSETPOS picks the same times every day', () => {
  const everyFive = 'FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=0,5,10,15,20,25,30,35,40,45,50,55'
  it.each([
    ['the last of every 5 minutes', `${everyFive};BYSETPOS=-1`, ['2026-07-15T23:55:00+00:00[UTC]', '2026-07-16T23:55:00+00:00[UTC]', '2026-07-17T23:55:00+00:00[UTC]']],
    ['the first and last, with COUNT', `${everyFive};BYSETPOS=1,-1;COUNT=3`, ['2026-07-15T00:00:00+00:00[UTC]', '2026-07-15T23:55:00+00:00[UTC]', '2026-07-16T00:00:00+00:00[UTC]']],
    ['two times that are not whole lists', 'FREQ=DAILY;BYHOUR=9,17;BYMINUTE=0,30;BYSETPOS=2,3', ['2026-07-15T09:30:00+00:00[UTC]', '2026-07-15T17:00:00+00:00[UTC]', '2026-07-16T09:30:00+00:00[UTC]']],
    ['on limited days', 'FREQ=DAILY;BYDAY=SA,SU;BYHOUR=8,20;BYSETPOS=-1', ['2026-07-18T20:00:00+00:00[UTC]', '2026-07-19T20:00:00+00:00[UTC]', '2026-07-25T20:00:00+00:00[UTC]']],
  ])('%s', (_name, rrule, expected) => {
    expect(series(rrule, 'UTC', '2026-07-15', 5).slice(0, 3)).toEqual(expected)
  })

  it('picks the first and last of every 5 minutes, which are not whole BYHOUR and BYMINUTE lists, on every day', () => {
    expect(series(`${everyFive};BYSETPOS=1,-1`, 'America/New_York', '2026-07-15', 4)).toEqual([
      '2026-07-15T00:00:00-04:00[America/New_York]',
      '2026-07-15T23:55:00-04:00[America/New_York]',
      '2026-07-16T00:00:00-04:00[America/New_York]',
      '2026-07-16T23:55:00-04:00[America/New_York]',
    ])
  })
})

describe('a bounded search', () => {
  it(`looks at most SEARCH_PERIODS (${SEARCH_PERIODS}) periods of the rule's frequency ahead, so a rare rule costs a bounded expansion`, () => {
    // Monday 29 February: 2044, 2072, then 2112 — past 20,000 days from 2026, so the search stops before it
    expect(series('FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO', 'UTC', '2026-07-15', 5)).toEqual(['2044-02-29T09:00:00+00:00[UTC]', '2072-02-29T09:00:00+00:00[UTC]'])
    expect(series('FREQ=MONTHLY;INTERVAL=12;BYMONTH=3', 'UTC', '2026-02-01', 1)).toEqual([])
  })
})

const RULE_ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Asia/Kolkata', 'UTC']

const arbitraryRule = fc
  .record({
    freq: fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'),
    interval: fc.integer({ min: 1, max: 3 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.constantFrom(0, 15, 30, 45),
    days: fc.subarray(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'], { minLength: 0, maxLength: 3 }),
    ordinal: fc.constantFrom(null, 1, 2, -1, 53, -53),
    monthDay: fc.constantFrom(null, 1, 15, 28, -1),
    month: fc.constantFrom(null, 3, 10),
    setPos: fc.constantFrom(null, 1, -1),
    wkst: fc.constantFrom(null, 'SU'),
  })
  .map((r) => {
    const parts = [`FREQ=${r.freq}`]
    if (r.interval > 1) parts.push(`INTERVAL=${r.interval}`)
    const ordinalAllowed = r.freq === 'MONTHLY' || r.freq === 'YEARLY'
    if (r.days.length > 0) parts.push(`BYDAY=${r.days.map((d) => (ordinalAllowed && r.ordinal !== null ? `${r.ordinal}${d}` : d)).join(',')}`)
    if (r.monthDay !== null && r.freq !== 'WEEKLY') parts.push(`BYMONTHDAY=${r.monthDay}`)
    if (r.month !== null && r.freq !== 'DAILY') parts.push(`BYMONTH=${r.month}`)
    if (r.setPos !== null && r.freq !== 'DAILY' && r.days.length > 1) parts.push(`BYSETPOS=${r.setPos}`)
    if (r.wkst !== null && r.freq === 'WEEKLY') parts.push(`WKST=${r.wkst}`)
    parts.push(`BYHOUR=${r.hour}`, `BYMINUTE=${r.minute}`)
    return parts.join(';')
  })

describe('why the expansion is trusted', () => {
  it('does not use rrule-temporal in the zone: 2.2.8 drops the New York spring-forward occurrence there, where SPEC 7.7 moves it forward', () => {
    const zoned = new RRuleTemporal({
      rruleString: 'FREQ=DAILY;COUNT=3;BYHOUR=2;BYMINUTE=30',
      dtstart: Temporal.ZonedDateTime.from('2027-03-13T02:30:00[America/New_York]'),
    })
    expect(zoned.all().map(String)).toEqual(['2027-03-13T02:30:00-05:00[America/New_York]', '2027-03-15T02:30:00-04:00[America/New_York]', '2027-03-16T02:30:00-04:00[America/New_York]'])
    expect(series('FREQ=DAILY;COUNT=3;BYHOUR=2;BYMINUTE=30', 'America/New_York', '2027-03-13', 3)).toEqual([
      '2027-03-13T02:30:00-05:00[America/New_York]',
      '2027-03-14T03:30:00-04:00[America/New_York]*',
      '2027-03-15T02:30:00-04:00[America/New_York]',
    ])
  })

  it('makes the wall times rrule-temporal 2.2.8 made in UTC for the rules it expanded (all but YEARLY ordinals within the year; BYSETPOS and COUNT were never handed to it)', () => {
    const libraryRule = fc
      .record({
        freq: fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'),
        interval: fc.integer({ min: 1, max: 4 }),
        hours: fc.uniqueArray(fc.integer({ min: 0, max: 23 }), { minLength: 1, maxLength: 3 }),
        minutes: fc.uniqueArray(fc.constantFrom(0, 5, 30, 59), { minLength: 1, maxLength: 2 }),
        days: fc.subarray(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'], { minLength: 0, maxLength: 3 }),
        ordinal: fc.constantFrom(null, null, 1, 2, -1, -2, 5, -5),
        monthDays: fc.constantFrom(null, [1], [15, -1], [29, 30, 31], [-31], [31, 1]),
        months: fc.constantFrom(null, [2], [3, 10], [11, 1, 6]),
        wkst: fc.constantFrom(null, 'SU', 'TH'),
        until: fc.constantFrom(null, '20270315', '20261231T235900Z'),
      })
      .map((r) => {
        const parts = [`FREQ=${r.freq}`, `INTERVAL=${r.interval}`, `BYHOUR=${r.hours.join(',')}`, `BYMINUTE=${r.minutes.join(',')}`]
        const ordinals = (r.freq === 'MONTHLY' || r.freq === 'YEARLY') && r.ordinal !== null && r.monthDays === null
        if (r.days.length > 0) parts.push(`BYDAY=${r.days.map((d) => (ordinals ? `${r.ordinal}${d}` : d)).join(',')}`)
        if (r.monthDays !== null && r.freq !== 'WEEKLY') parts.push(`BYMONTHDAY=${r.monthDays.join(',')}`)
        if (r.months !== null) parts.push(`BYMONTH=${r.months.join(',')}`)
        if (r.wkst !== null) parts.push(`WKST=${r.wkst}`)
        if (r.until !== null) parts.push(`UNTIL=${r.until}`)
        return parts.join(';')
      })
    const floatingZoned = (ms: number): Temporal.ZonedDateTime => Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO('UTC')
    fc.assert(
      fc.property(libraryRule, fc.integer({ min: 0, max: 700 }), fc.integer({ min: 0, max: 2000 }), (rrule, offsetDays, laterDays) => {
        const parsed = parseRrule(rrule)
        if (!parsed.ok) return
        const rule = parsed.rule
        if (rule.freq === 'YEARLY' && rule.byMonth === null && rule.byDay?.some((d) => d.ordinal !== null) === true) return
        const start = Date.UTC(2026, 0, 1) + offsetDays * 86_400_000
        const startDate = new Date(start)
        const starts = { year: startDate.getUTCFullYear(), month: startDate.getUTCMonth() + 1, day: startDate.getUTCDate() }
        const library = new RRuleTemporal({
          freq: rule.freq,
          interval: rule.interval,
          byHour: rule.byHour,
          byMinute: rule.byMinute,
          bySecond: [0],
          tzid: 'UTC',
          dtstart: floatingZoned(start + (rule.byHour[0] * 60 + rule.byMinute[0]) * 60_000),
          cache: false,
          ...(rule.byDay === null ? {} : { byDay: rule.byDay.map((d) => `${d.ordinal ?? ''}${d.weekday}`) }),
          ...(rule.byMonthDay === null ? {} : { byMonthDay: rule.byMonthDay }),
          ...(rule.byMonth === null ? {} : { byMonth: rule.byMonth }),
          ...(rule.wkst === null ? {} : { wkst: rule.wkst }),
          ...(rule.end.kind === 'until-date' ? { until: floatingZoned(Date.UTC(rule.end.year, rule.end.month - 1, rule.end.day, 23, 59, 59)) } : {}),
          ...(rule.end.kind === 'until-instant' ? { until: floatingZoned(rule.end.epochMs + 26 * 3_600_000) } : {}),
        })
        const from = start + laterDays * 86_400_000
        const to = from + 120 * 86_400_000
        // an UNTIL instant was handed to it a day and 2 hours late (the widest offset), and its instant then ended the series
        const last = rule.end.kind === 'until-instant' ? rule.end.epochMs : Infinity
        const expected = library.between(new Date(from), new Date(to), true).map((zoned) => zoned.epochMilliseconds).filter((wall) => wall <= last)
        const floating: CalendarSpec = { rrule, rule, timeZone: 'UTC', starts }
        expect(occurrencesBetween(floating, from, to).map((o) => new Date(o.instant).toISOString())).toEqual(expected.map((wall) => new Date(wall).toISOString()))
      }),
      { numRuns: 400, seed: 20270101 },
    )
  })

  it('expands wall-clock dates exactly as an independent day-by-day RFC 5545 reading of the subset does', () => {
    fc.assert(
      fc.property(arbitraryRule, fc.integer({ min: 0, max: 700 }), (rrule, offsetDays) => {
        const parsed = parseRrule(rrule)
        if (!parsed.ok) return
        const start = new Date(Date.UTC(2026, 0, 1) + offsetDays * 86_400_000)
        const starts = { year: start.getUTCFullYear(), month: start.getUTCMonth() + 1, day: start.getUTCDate() }
        const horizonDays = 800
        const compared = start.getTime() + (horizonDays - 400) * 86_400_000
        const expected = oracleWallTimes(parsed.rule, starts, horizonDays).filter((t) => t < compared).slice(0, 12)
        const floating: CalendarSpec = { rrule, rule: parsed.rule, timeZone: 'UTC', starts }
        const got = occurrencesBetween(floating, start.getTime() - 86_400_000, compared - 1).map((o) => o.instant).slice(0, 12)
        expect(got.map((t) => new Date(t).toISOString())).toEqual(expected.map((t) => new Date(t).toISOString()))
      }),
      { numRuns: 300, seed: 20260715 },
    )
  })

  it('resolves every wall time to its own time of day, unless the zone skipped it (then one gap later), with instants rising at least 300 s apart', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...RULE_ZONES),
        fc.integer({ min: 0, max: 23 }),
        fc.constantFrom(0, 15, 30, 45),
        fc.constantFrom('FREQ=DAILY', 'FREQ=WEEKLY;BYDAY=SU', 'FREQ=MONTHLY;BYDAY=1SU,-1SU', 'FREQ=YEARLY;BYMONTH=3,4,9,10,11;BYDAY=SU'),
        fc.integer({ min: 0, max: 400 }),
        (zone, hour, minute, base, offsetDays) => {
          const start = new Date(Date.UTC(2026, 6, 1) + offsetDays * 86_400_000)
          const starts = start.toISOString().slice(0, 10)
          const occurrences = occurrencesAfter(spec(`${base};BYHOUR=${hour};BYMINUTE=${minute}`, zone, starts), start.getTime() - 86_400_000, 40)
          let previous = -Infinity
          for (const o of occurrences) {
            const wall = wallClockAt(zone, o.instant)
            expect(o.wall).toMatchObject({ hour, minute })
            if (o.shifted) {
              expect(instantsForWallTime(o.wall, zone)).toEqual([])
              expect(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute)).toBeGreaterThan(Date.UTC(o.wall.year, o.wall.month - 1, o.wall.day, hour, minute))
            } else {
              expect(wall).toMatchObject({ year: o.wall.year, month: o.wall.month, day: o.wall.day, hour, minute })
              expect(instantsForWallTime(o.wall, zone)[0]).toBe(o.instant)
            }
            expect(o.instant - previous).toBeGreaterThanOrEqual(300_000)
            previous = o.instant
          }
        },
      ),
      { numRuns: 120, seed: 7 },
    )
  })
})

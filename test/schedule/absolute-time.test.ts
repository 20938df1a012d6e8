import { describe, expect, it } from 'vitest'
import { instantsForWallTime, utcOffsetMs, wallFieldsAsUtc } from '../../src/protocol/index.ts'
import {
  checkTarget,
  daysInMonth,
  formatLocalDateTime,
  isInRange,
  localToInstant,
  MAX_INSTANT_MS,
  MIN_INSTANT_MS,
  parseCanonicalInstant,
  parseLocalDate,
  parseLocalTime,
  parseRfc3339,
  toScheduledAt,
  wallClockAt,
  type LocalDate,
  type LocalTime,
} from '../../src/schedule/absolute-time.ts'

const iso = (value: string): number => Date.parse(value)

function date(value: string): LocalDate {
  const parsed = parseLocalDate(value)
  if (parsed === null) throw new Error(`bad test date ${value}`)
  return parsed
}

function time(value: string): LocalTime {
  const parsed = parseLocalTime(value)
  if (parsed === null) throw new Error(`bad test time ${value}`)
  return parsed
}

function instants(d: string, t: string, zone: string): string[] {
  return instantsForWallTime({ ...date(d), ...time(t) }, zone).map(toScheduledAt)
}

function resolved(d: string, t: string, zone: string): unknown {
  const result = localToInstant(date(d), time(t), zone)
  return result.ok ? toScheduledAt(result.value) : result.error.toToolError()
}

function gap(d: string, t: string, zone: string): unknown {
  return { code: 'invalid_rule', message: `${d}T${t} does not exist in ${zone}: a clock change skips it` }
}

describe('range constants', () => {
  it('are the first and last instants with a four-digit year', () => {
    expect(toScheduledAt(MIN_INSTANT_MS)).toBe('0001-01-01T00:00:00.000Z')
    expect(toScheduledAt(MAX_INSTANT_MS)).toBe('9999-12-31T23:59:59.999Z')
  })
})

describe('parseRfc3339', () => {
  it.each([
    ['2026-07-15T09:30:00Z', '2026-07-15T09:30:00.000Z'],
    ['2026-07-15T09:30:00.5Z', '2026-07-15T09:30:00.500Z'],
    ['2026-07-15T09:30:00.05Z', '2026-07-15T09:30:00.050Z'],
    ['2026-07-15T09:30:00.123Z', '2026-07-15T09:30:00.123Z'],
    ['2026-07-15T09:30:00+08:00', '2026-07-15T01:30:00.000Z'],
    ['2026-07-15T09:30:00-05:00', '2026-07-15T14:30:00.000Z'],
    ['2026-07-15T09:30:00+05:45', '2026-07-15T03:45:00.000Z'],
    ['2026-07-15T09:30:00+00:00', '2026-07-15T09:30:00.000Z'],
    ['2026-07-15T09:30:00+23:59', '2026-07-14T09:31:00.000Z'],
    ['2026-07-15T09:30:00-23:59', '2026-07-16T09:29:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29T23:59:59.999Z', '2000-02-29T23:59:59.999Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['0099-06-01T00:00:00Z', '0099-06-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ['2026-12-31T23:00:00-01:00', '2027-01-01T00:00:00.000Z'],
  ])('accepts %s as %s', (input, expected) => {
    const ms = parseRfc3339(input)
    expect(ms === null ? null : toScheduledAt(ms)).toBe(expected)
  })

  it('parses four-digit years outside the accepted range (the range check comes later)', () => {
    expect(parseRfc3339('0000-01-01T00:00:00Z')).toBe(MIN_INSTANT_MS - 366 * 86_400_000)
    expect(parseRfc3339('0001-01-01T00:00:00+00:01')).toBe(MIN_INSTANT_MS - 60_000)
    expect(parseRfc3339('9999-12-31T23:59:59.999-00:01')).toBe(MAX_INSTANT_MS + 60_000)
  })

  it.each([
    ['lowercase t', '2026-07-15t09:30:00Z'],
    ['lowercase z', '2026-07-15T09:30:00z'],
    ['space separator', '2026-07-15 09:30:00Z'],
    ['no seconds', '2026-07-15T09:30Z'],
    ['no offset', '2026-07-15T09:30:00'],
    ['four fraction digits', '2026-07-15T09:30:00.1234Z'],
    ['empty fraction', '2026-07-15T09:30:00.Z'],
    ['comma fraction', '2026-07-15T09:30:00,5Z'],
    ['leap second', '2016-12-31T23:59:60Z'],
    ['hour 24', '2026-07-15T24:00:00Z'],
    ['minute 60', '2026-07-15T09:60:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['month 00', '2026-00-01T00:00:00Z'],
    ['day 00', '2026-07-00T00:00:00Z'],
    ['31 April', '2026-04-31T00:00:00Z'],
    ['29 February of a common year', '2023-02-29T00:00:00Z'],
    ['29 February 1900', '1900-02-29T00:00:00Z'],
    ['offset hours 24', '2026-07-15T09:30:00+24:00'],
    ['offset minutes 60', '2026-07-15T09:30:00+05:60'],
    ['negative zero offset', '2026-07-15T09:30:00-00:00'],
    ['offset without colon', '2026-07-15T09:30:00+0800'],
    ['offset without minutes', '2026-07-15T09:30:00+08'],
    ['offset and Z', '2026-07-15T09:30:00+08:00Z'],
    ['trailing space', '2026-07-15T09:30:00Z '],
    ['leading space', ' 2026-07-15T09:30:00Z'],
    ['trailing newline', '2026-07-15T09:30:00Z\n'],
    ['expanded year', '+02026-07-15T09:30:00Z'],
    ['five-digit year', '20260-07-15T09:30:00Z'],
    ['short month', '2026-7-15T09:30:00Z'],
    ['non-ASCII digits', '٢٠٢٦-07-15T09:30:00Z'],
    ['date only', '2026-07-15'],
    ['zone name', '2026-07-15T09:30:00[Europe/Berlin]'],
    ['empty string', ''],
  ])('rejects %s', (_name, input) => {
    expect(parseRfc3339(input)).toBeNull()
  })

  it('rejects non-strings', () => {
    for (const value of [null, undefined, 0, 1_700_000_000_000, {}, [], true]) expect(parseRfc3339(value)).toBeNull()
  })
})

describe('parseLocalDate', () => {
  it('parses a real calendar date', () => {
    expect(parseLocalDate('2026-07-15')).toEqual({ year: 2026, month: 7, day: 15 })
    expect(parseLocalDate('2024-02-29')).toEqual({ year: 2024, month: 2, day: 29 })
    expect(parseLocalDate('0001-01-01')).toEqual({ year: 1, month: 1, day: 1 })
    expect(parseLocalDate('0000-02-29')).toEqual({ year: 0, month: 2, day: 29 })
  })

  it.each(['2026-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '2026-1-5', '26-01-05', '2026-01-05T00:00:00', ' 2026-01-05', '2026/01/05', ''])(
    'rejects %j',
    (input) => {
      expect(parseLocalDate(input)).toBeNull()
    },
  )

  it('rejects non-strings', () => {
    expect(parseLocalDate(20260715)).toBeNull()
    expect(parseLocalDate(null)).toBeNull()
    expect(parseLocalDate({ year: 2026, month: 7, day: 15 })).toBeNull()
  })
})

describe('parseLocalTime', () => {
  it('parses a time of day with up to three fraction digits', () => {
    expect(parseLocalTime('09:30:00')).toEqual({ hour: 9, minute: 30, second: 0, millisecond: 0 })
    expect(parseLocalTime('23:59:59.9')).toEqual({ hour: 23, minute: 59, second: 59, millisecond: 900 })
    expect(parseLocalTime('00:00:00.01')).toEqual({ hour: 0, minute: 0, second: 0, millisecond: 10 })
    expect(parseLocalTime('12:00:00.123')).toEqual({ hour: 12, minute: 0, second: 0, millisecond: 123 })
  })

  it.each(['09:30', '9:30:00', '24:00:00', '23:60:00', '23:59:60', '09:30:00.1234', '09:30:00.', '09:30:00Z', '09:30:00+01:00', 'T09:30:00', ''])(
    'rejects %j',
    (input) => {
      expect(parseLocalTime(input)).toBeNull()
    },
  )

  it('rejects non-strings', () => {
    expect(parseLocalTime(930)).toBeNull()
    expect(parseLocalTime(undefined)).toBeNull()
  })
})

describe('daysInMonth', () => {
  it('follows the proleptic Gregorian leap-year rule', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((m) => daysInMonth(2026, m))).toEqual([
      31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
    ])
    expect(daysInMonth(2024, 2)).toBe(29)
    expect(daysInMonth(2000, 2)).toBe(29)
    expect(daysInMonth(1900, 2)).toBe(28)
    expect(daysInMonth(0, 2)).toBe(29)
  })
})

describe('wallFieldsAsUtc', () => {
  it('keeps years 0 to 99 literal', () => {
    const value = { year: 50, month: 6, day: 1, hour: 12, minute: 0, second: 0, millisecond: 7 }
    expect(toScheduledAt(wallFieldsAsUtc(value))).toBe('0050-06-01T12:00:00.007Z')
  })
})

describe('wallClockAt and utcOffsetMs', () => {
  it('reads the wall clock with milliseconds', () => {
    expect(wallClockAt('Asia/Kathmandu', iso('2026-07-15T03:45:00.250Z'))).toEqual({
      year: 2026,
      month: 7,
      day: 15,
      hour: 9,
      minute: 30,
      second: 0,
      millisecond: 250,
    })
  })

  it('reads years before the common era as astronomical years', () => {
    expect(wallClockAt('UTC', MIN_INSTANT_MS - 1)).toEqual({
      year: 0,
      month: 12,
      day: 31,
      hour: 23,
      minute: 59,
      second: 59,
      millisecond: 999,
    })
  })

  it('gives offsets with seconds for local mean time', () => {
    expect(utcOffsetMs('America/New_York', iso('1800-01-01T00:00:00Z'))).toBe(-(4 * 3600 + 56 * 60 + 2) * 1000)
    expect(utcOffsetMs('Pacific/Chatham', iso('2026-07-15T00:00:00Z'))).toBe((12 * 60 + 45) * 60_000)
  })
})

describe('formatLocalDateTime', () => {
  it('pads fields and shows milliseconds only when present', () => {
    expect(formatLocalDateTime(date('0007-01-02'), time('03:04:05'))).toBe('0007-01-02T03:04:05')
    expect(formatLocalDateTime(date('2026-01-02'), time('03:04:05.6'))).toBe('2026-01-02T03:04:05.600')
  })
})

describe('localToInstant: fixed and fractional offsets', () => {
  it.each([
    ['UTC', '2026-07-15', '09:30:00', '2026-07-15T09:30:00.000Z'],
    ['Asia/Kolkata', '2026-07-15', '09:30:00', '2026-07-15T04:00:00.000Z'],
    ['Asia/Kathmandu', '2026-07-15', '09:30:00', '2026-07-15T03:45:00.000Z'],
    ['Australia/Adelaide', '2026-07-15', '09:30:00', '2026-07-15T00:00:00.000Z'],
    ['Australia/Adelaide', '2026-01-15', '09:30:00', '2026-01-14T23:00:00.000Z'],
    ['Pacific/Chatham', '2026-07-15', '09:30:00', '2026-07-14T20:45:00.000Z'],
    ['Pacific/Chatham', '2026-01-15', '09:30:00', '2026-01-14T19:45:00.000Z'],
    ['Australia/Lord_Howe', '2026-07-15', '09:30:00', '2026-07-14T23:00:00.000Z'],
    ['Australia/Lord_Howe', '2026-01-15', '09:30:00', '2026-01-14T22:30:00.000Z'],
    ['Asia/Shanghai', '2026-07-15', '09:30:00.123', '2026-07-15T01:30:00.123Z'],
    ['America/New_York', '1800-01-01', '00:00:00', '1800-01-01T04:56:02.000Z'],
    ['UTC', '0050-06-01', '12:00:00', '0050-06-01T12:00:00.000Z'],
    ['Asia/Tokyo', '0001-01-01', '00:00:00', '0000-12-31T14:41:01.000Z'],
  ])('%s %s %s → %s', (zone, d, t, expected) => {
    expect(resolved(d, t, zone)).toBe(expected)
  })

  it('Asia/Kathmandu: the 15-minute gap of 1986-01-01 is rejected', () => {
    expect(resolved('1986-01-01', '00:10:00', 'Asia/Kathmandu')).toEqual(gap('1986-01-01', '00:10:00', 'Asia/Kathmandu'))
    expect(resolved('1986-01-01', '00:15:00', 'Asia/Kathmandu')).toBe('1985-12-31T18:30:00.000Z')
    expect(resolved('1985-12-31', '23:59:59.999', 'Asia/Kathmandu')).toBe('1985-12-31T18:29:59.999Z')
  })

  it('Asia/Kolkata: wartime +06:30 of 1942 and its end in 1945', () => {
    expect(resolved('1943-06-01', '12:00:00', 'Asia/Kolkata')).toBe('1943-06-01T05:30:00.000Z')
    expect(resolved('1946-06-01', '12:00:00', 'Asia/Kolkata')).toBe('1946-06-01T06:30:00.000Z')
  })

  it('Pacific/Apia: the whole skipped day 2011-12-30 is a gap', () => {
    expect(resolved('2011-12-30', '12:00:00', 'Pacific/Apia')).toEqual(gap('2011-12-30', '12:00:00', 'Pacific/Apia'))
    expect(resolved('2011-12-29', '23:59:59', 'Pacific/Apia')).toBe('2011-12-30T09:59:59.000Z')
    expect(resolved('2011-12-31', '00:00:00', 'Pacific/Apia')).toBe('2011-12-30T10:00:00.000Z')
  })
})

describe('localToInstant: DST gaps are invalid_rule', () => {
  it.each([
    ['America/New_York', '2026-03-08', '02:00:00'],
    ['America/New_York', '2026-03-08', '02:30:00'],
    ['America/New_York', '2026-03-08', '02:59:59.999'],
    ['Europe/Berlin', '2026-03-29', '02:30:00'],
    ['Australia/Sydney', '2026-10-04', '02:30:00'],
    ['America/Santiago', '2026-09-06', '00:00:00'],
    ['America/Santiago', '2026-09-06', '00:30:00'],
    ['Pacific/Auckland', '2026-09-27', '02:30:00'],
    ['Australia/Lord_Howe', '2026-10-04', '02:00:00'],
    ['Australia/Lord_Howe', '2026-10-04', '02:15:00'],
    ['Australia/Lord_Howe', '2026-10-04', '02:29:59.999'],
    ['Australia/Adelaide', '2026-10-04', '02:30:00'],
    ['Pacific/Chatham', '2026-09-27', '02:45:00'],
    ['Pacific/Chatham', '2026-09-27', '03:00:00'],
  ])('%s %s %s', (zone, d, t) => {
    expect(instants(d, t, zone)).toEqual([])
    expect(resolved(d, t, zone)).toEqual(gap(d, t, zone))
  })

  it('renders the gap message with milliseconds when the time has them', () => {
    expect(resolved('2026-03-08', '02:59:59.999', 'America/New_York')).toEqual({
      code: 'invalid_rule',
      message: '2026-03-08T02:59:59.999 does not exist in America/New_York: a clock change skips it',
    })
  })

  it.each([
    ['America/New_York', '2026-03-08', '01:59:59.999', '2026-03-08T06:59:59.999Z'],
    ['America/New_York', '2026-03-08', '03:00:00', '2026-03-08T07:00:00.000Z'],
    ['Europe/Berlin', '2026-03-29', '03:00:00', '2026-03-29T01:00:00.000Z'],
    ['America/Santiago', '2026-09-05', '23:59:59', '2026-09-06T03:59:59.000Z'],
    ['America/Santiago', '2026-09-06', '01:00:00', '2026-09-06T04:00:00.000Z'],
    ['Australia/Lord_Howe', '2026-10-04', '01:59:59', '2026-10-03T15:29:59.000Z'],
    ['Australia/Lord_Howe', '2026-10-04', '02:30:00', '2026-10-03T15:30:00.000Z'],
    ['Pacific/Chatham', '2026-09-27', '03:45:00', '2026-09-26T14:00:00.000Z'],
  ])('%s %s %s next to the gap → %s', (zone, d, t, expected) => {
    expect(resolved(d, t, zone)).toBe(expected)
  })
})

describe('localToInstant: DST overlaps resolve to the earlier instant', () => {
  it.each([
    ['America/New_York', '2026-11-01', '01:00:00', ['2026-11-01T05:00:00.000Z', '2026-11-01T06:00:00.000Z']],
    ['America/New_York', '2026-11-01', '01:30:00', ['2026-11-01T05:30:00.000Z', '2026-11-01T06:30:00.000Z']],
    ['America/New_York', '2026-11-01', '01:59:59.999', ['2026-11-01T05:59:59.999Z', '2026-11-01T06:59:59.999Z']],
    ['Europe/Berlin', '2026-10-25', '02:30:00', ['2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z']],
    ['Australia/Sydney', '2026-04-05', '02:30:00', ['2026-04-04T15:30:00.000Z', '2026-04-04T16:30:00.000Z']],
    ['America/Santiago', '2026-04-04', '23:30:00', ['2026-04-05T02:30:00.000Z', '2026-04-05T03:30:00.000Z']],
    ['Pacific/Auckland', '2026-04-05', '02:30:00', ['2026-04-04T13:30:00.000Z', '2026-04-04T14:30:00.000Z']],
    ['Australia/Lord_Howe', '2026-04-05', '01:30:00', ['2026-04-04T14:30:00.000Z', '2026-04-04T15:00:00.000Z']],
    ['Australia/Lord_Howe', '2026-04-05', '01:45:00', ['2026-04-04T14:45:00.000Z', '2026-04-04T15:15:00.000Z']],
    ['Australia/Adelaide', '2026-04-05', '02:30:00', ['2026-04-04T16:00:00.000Z', '2026-04-04T17:00:00.000Z']],
    ['Pacific/Chatham', '2026-04-05', '03:00:00', ['2026-04-04T13:15:00.000Z', '2026-04-04T14:15:00.000Z']],
  ])('%s %s %s', (zone, d, t, both) => {
    expect(instants(d, t, zone)).toEqual(both)
    expect(resolved(d, t, zone)).toBe(both[0])
  })

  it.each([
    ['America/New_York', '2026-11-01', '00:59:59', '2026-11-01T04:59:59.000Z'],
    ['America/New_York', '2026-11-01', '02:00:00', '2026-11-01T07:00:00.000Z'],
    ['Australia/Lord_Howe', '2026-04-05', '01:29:59', '2026-04-04T14:29:59.000Z'],
    ['Australia/Lord_Howe', '2026-04-05', '02:00:00', '2026-04-04T15:30:00.000Z'],
    ['Pacific/Chatham', '2026-04-05', '03:45:00', '2026-04-04T15:00:00.000Z'],
  ])('%s %s %s next to the overlap has one instant %s', (zone, d, t, only) => {
    expect(instants(d, t, zone)).toEqual([only])
  })
})

describe('isInRange', () => {
  it('accepts exactly the four-digit-year instants', () => {
    expect(isInRange(MIN_INSTANT_MS)).toBe(true)
    expect(isInRange(MAX_INSTANT_MS)).toBe(true)
    expect(isInRange(MIN_INSTANT_MS - 1)).toBe(false)
    expect(isInRange(MAX_INSTANT_MS + 1)).toBe(false)
    expect(isInRange(Number.NaN)).toBe(false)
    expect(isInRange(Number.POSITIVE_INFINITY)).toBe(false)
  })
})

describe('checkTarget', () => {
  const now = iso('2026-07-15T09:00:00.000Z')

  it('yields the canonical scheduledAt of a future target', () => {
    expect(checkTarget(now + 1, now)).toEqual({ ok: true, value: '2026-07-15T09:00:00.001Z' })
    expect(checkTarget(MAX_INSTANT_MS, now)).toEqual({ ok: true, value: '9999-12-31T23:59:59.999Z' })
  })

  it('rejects a target equal to now or before it as not_future', () => {
    for (const target of [now, now - 1]) {
      const result = checkTarget(target, now)
      expect(result.ok ? null : result.error.toToolError()).toEqual({
        code: 'not_future',
        message: `the target ${toScheduledAt(target)} is not in the future (now is 2026-07-15T09:00:00.000Z)`,
      })
    }
  })

  it('checks the range before the future', () => {
    for (const target of [MIN_INSTANT_MS - 1, MAX_INSTANT_MS + 1, Number.NaN]) {
      const result = checkTarget(target, now)
      expect(result.ok ? null : result.error.code).toBe('time_out_of_range')
    }
  })
})

describe('parseCanonicalInstant', () => {
  it('accepts exactly the toISOString form within range', () => {
    expect(parseCanonicalInstant('2026-07-15T09:00:00.000Z')).toBe(iso('2026-07-15T09:00:00.000Z'))
    expect(parseCanonicalInstant('0001-01-01T00:00:00.000Z')).toBe(MIN_INSTANT_MS)
  })

  it.each(['2026-07-15T09:00:00Z', '2026-07-15T09:00:00.0Z', '2026-07-15T11:00:00.000+02:00', '0000-12-31T23:59:59.999Z', '+010000-01-01T00:00:00.000Z', '', '2026-02-30T09:00:00.000Z', '2026-07-15T09:00:00.000z', ' 2026-07-15T09:00:00.000Z', '2026-07-15T24:00:00.000Z', 'Wed, 15 Jul 2026 09:00:00 GMT', '2026-07-15'])(
    'rejects %j',
    (input) => {
      expect(parseCanonicalInstant(input)).toBeNull()
    },
  )

  it('rejects non-strings', () => {
    expect(parseCanonicalInstant(0)).toBeNull()
  })
})

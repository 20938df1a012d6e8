import { describe, expect, it } from 'vitest'
import { formatZonedTimestamp, parseZonedTimestamp } from '../../src/protocol/index.ts'

const JULY = Date.UTC(2026, 6, 15, 1, 1, 1)
const JANUARY = Date.UTC(2026, 0, 15, 1, 1, 1)

describe('formatZonedTimestamp', () => {
  it.each([
    [JULY, 'Asia/Shanghai', '2026-07-15T09:01:01+08:00[Asia/Shanghai]'],
    [JULY, 'UTC', '2026-07-15T01:01:01+00:00[UTC]'],
    [JULY, 'America/New_York', '2026-07-14T21:01:01-04:00[America/New_York]'],
    [JANUARY, 'America/New_York', '2026-01-14T20:01:01-05:00[America/New_York]'],
    [JULY, 'America/Los_Angeles', '2026-07-14T18:01:01-07:00[America/Los_Angeles]'],
    [JULY, 'Asia/Kolkata', '2026-07-15T06:31:01+05:30[Asia/Kolkata]'],
    [JULY, 'Asia/Kathmandu', '2026-07-15T06:46:01+05:45[Asia/Kathmandu]'],
    [JULY, 'America/St_Johns', '2026-07-14T22:31:01-02:30[America/St_Johns]'],
    [JANUARY, 'America/St_Johns', '2026-01-14T21:31:01-03:30[America/St_Johns]'],
    [JANUARY, 'Pacific/Chatham', '2026-01-15T14:46:01+13:45[Pacific/Chatham]'],
    [JANUARY, 'Europe/London', '2026-01-15T01:01:01+00:00[Europe/London]'],
    [JULY, 'Europe/London', '2026-07-15T02:01:01+01:00[Europe/London]'],
    [JANUARY, 'Australia/Sydney', '2026-01-15T12:01:01+11:00[Australia/Sydney]'],
    [JULY, 'Pacific/Kiritimati', '2026-07-15T15:01:01+14:00[Pacific/Kiritimati]'],
    [JULY, 'Pacific/Pago_Pago', '2026-07-14T14:01:01-11:00[Pacific/Pago_Pago]'],
  ])('formats %i in %s as %s', (epochMs, zone, text) => {
    expect(formatZonedTimestamp(epochMs, zone)).toBe(text)
  })

  it('floors to whole seconds', () => {
    expect(formatZonedTimestamp(JULY + 999, 'Asia/Shanghai')).toBe('2026-07-15T09:01:01+08:00[Asia/Shanghai]')
    expect(formatZonedTimestamp(Date.UTC(1969, 11, 31, 23, 59, 59) + 500, 'UTC')).toBe('1969-12-31T23:59:59+00:00[UTC]')
  })

  it('writes the offset of an instant in the years 1–99 as it was, and reads such a timestamp back', () => {
    const year1 = new Date(0)
    year1.setUTCFullYear(1, 2, 1)
    // on the code before, the offset was measured against 1901 ("+16655036:29") and the text read back as nothing
    expect(formatZonedTimestamp(year1.getTime(), 'UTC')).toBe('0001-03-01T00:00:00+00:00[UTC]')
    expect(formatZonedTimestamp(year1.getTime(), 'America/St_Johns')).toBe('0001-02-28T20:29:08-03:31[America/St_Johns]')
    expect(parseZonedTimestamp('0001-03-01T00:00:00+00:00[UTC]')).toEqual({ epochMs: year1.getTime(), zone: 'UTC', offsetMinutes: 0, date: '0001-03-01', time: '00:00:00', offset: '+00:00' })
  })

  it('renders midnight as 00, not 24', () => {
    expect(formatZonedTimestamp(Date.UTC(2026, 6, 14, 16, 0, 0), 'Asia/Shanghai')).toBe('2026-07-15T00:00:00+08:00[Asia/Shanghai]')
  })

  it('keeps the zone name it was given', () => {
    expect(formatZonedTimestamp(JULY, 'US/Eastern')).toBe('2026-07-14T21:01:01-04:00[US/Eastern]')
  })

  it('crosses the New York spring-forward gap', () => {
    expect(formatZonedTimestamp(Date.UTC(2026, 2, 8, 6, 59, 59), 'America/New_York')).toBe('2026-03-08T01:59:59-05:00[America/New_York]')
    expect(formatZonedTimestamp(Date.UTC(2026, 2, 8, 7, 0, 0), 'America/New_York')).toBe('2026-03-08T03:00:00-04:00[America/New_York]')
  })

  it('tells the two New York fall-back hours apart by offset', () => {
    expect(formatZonedTimestamp(Date.UTC(2026, 10, 1, 5, 30, 0), 'America/New_York')).toBe('2026-11-01T01:30:00-04:00[America/New_York]')
    expect(formatZonedTimestamp(Date.UTC(2026, 10, 1, 6, 30, 0), 'America/New_York')).toBe('2026-11-01T01:30:00-05:00[America/New_York]')
  })

  it('crosses the Berlin and Sydney transitions', () => {
    expect(formatZonedTimestamp(Date.UTC(2026, 2, 29, 0, 59, 59), 'Europe/Berlin')).toBe('2026-03-29T01:59:59+01:00[Europe/Berlin]')
    expect(formatZonedTimestamp(Date.UTC(2026, 2, 29, 1, 0, 0), 'Europe/Berlin')).toBe('2026-03-29T03:00:00+02:00[Europe/Berlin]')
    expect(formatZonedTimestamp(Date.UTC(2026, 3, 4, 15, 30, 0), 'Australia/Sydney')).toBe('2026-04-05T02:30:00+11:00[Australia/Sydney]')
    expect(formatZonedTimestamp(Date.UTC(2026, 3, 4, 16, 30, 0), 'Australia/Sydney')).toBe('2026-04-05T02:30:00+10:00[Australia/Sydney]')
  })

  it('gives the same text for repeated calls in several zones', () => {
    const first = formatZonedTimestamp(JULY, 'Asia/Tokyo')
    formatZonedTimestamp(JULY, 'Europe/Paris')
    expect(formatZonedTimestamp(JULY, 'Asia/Tokyo')).toBe(first)
    expect(formatZonedTimestamp(JULY + 1000, 'Asia/Tokyo')).toBe('2026-07-15T10:01:02+09:00[Asia/Tokyo]')
  })

  it('throws for an unknown zone and a non-finite instant', () => {
    expect(() => formatZonedTimestamp(JULY, 'Not/A_Real_Zone')).toThrow(RangeError)
    expect(() => formatZonedTimestamp(Number.NaN, 'UTC')).toThrow(new RangeError('time-context: instant must be finite, got NaN'))
  })
})

describe('parseZonedTimestamp', () => {
  it('parses the SPEC example', () => {
    expect(parseZonedTimestamp('2026-07-15T09:01:01+08:00[Asia/Shanghai]')).toEqual({
      epochMs: JULY,
      zone: 'Asia/Shanghai',
      offsetMinutes: 480,
      date: '2026-07-15',
      time: '09:01:01',
      offset: '+08:00',
    })
  })

  it('parses negative, half-hour and 45-minute offsets', () => {
    expect(parseZonedTimestamp('2026-07-14T21:01:01-04:00[America/New_York]')).toEqual({ epochMs: JULY, zone: 'America/New_York', offsetMinutes: -240, date: '2026-07-14', time: '21:01:01', offset: '-04:00' })
    expect(parseZonedTimestamp('2026-07-15T06:31:01+05:30[Asia/Kolkata]')).toEqual({ epochMs: JULY, zone: 'Asia/Kolkata', offsetMinutes: 330, date: '2026-07-15', time: '06:31:01', offset: '+05:30' })
    expect(parseZonedTimestamp('2026-07-15T06:46:01+05:45[Asia/Kathmandu]')).toEqual({ epochMs: JULY, zone: 'Asia/Kathmandu', offsetMinutes: 345, date: '2026-07-15', time: '06:46:01', offset: '+05:45' })
    expect(parseZonedTimestamp('2026-01-14T21:31:01-03:30[America/St_Johns]')).toEqual({ epochMs: JANUARY, zone: 'America/St_Johns', offsetMinutes: -210, date: '2026-01-14', time: '21:31:01', offset: '-03:30' })
  })

  it('parses UTC with +00:00', () => {
    expect(parseZonedTimestamp('2026-07-15T01:01:01+00:00[UTC]')).toEqual({ epochMs: JULY, zone: 'UTC', offsetMinutes: 0, date: '2026-07-15', time: '01:01:01', offset: '+00:00' })
  })

  it('resolves each repeated fall-back hour by its offset', () => {
    expect(parseZonedTimestamp('2026-11-01T01:30:00-04:00[America/New_York]')?.epochMs).toBe(Date.UTC(2026, 10, 1, 5, 30, 0))
    expect(parseZonedTimestamp('2026-11-01T01:30:00-05:00[America/New_York]')?.epochMs).toBe(Date.UTC(2026, 10, 1, 6, 30, 0))
  })

  it('round-trips instants across zones and transitions', () => {
    const zones = ['UTC', 'Asia/Shanghai', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Europe/Berlin']
    for (const zone of zones) {
      for (let epochMs = Date.UTC(2026, 0, 1); epochMs < Date.UTC(2027, 0, 1); epochMs += 3 * 3_600_000 + 17_000) {
        const parsed = parseZonedTimestamp(formatZonedTimestamp(epochMs, zone))
        expect(parsed?.epochMs).toBe(epochMs)
        expect(parsed?.zone).toBe(zone)
      }
    }
  })

  it.each([
    ['the Z designator', '2026-07-15T01:01:01Z[UTC]'],
    ['no zone', '2026-07-15T09:01:01+08:00'],
    ['an offset that is not the zone offset', '2026-07-15T09:01:01+09:00[Asia/Shanghai]'],
    ['-00:00', '2026-07-15T01:01:01-00:00[UTC]'],
    ['offset minutes past 59', '2026-07-15T09:01:01+07:60[Asia/Shanghai]'],
    ['a rounded local-mean-time offset', '1900-01-01T08:05:43+08:06[Asia/Shanghai]'],
    ['an offset without a colon', '2026-07-15T09:01:01+0800[Asia/Shanghai]'],
    ['fractional seconds', '2026-07-15T09:01:01.000+08:00[Asia/Shanghai]'],
    ['no seconds', '2026-07-15T09:01+08:00[Asia/Shanghai]'],
    ['a local time inside the spring-forward gap', '2026-03-08T02:30:00-05:00[America/New_York]'],
    ['February 30', '2026-02-30T09:01:01+08:00[Asia/Shanghai]'],
    ['hour 24', '2026-07-15T24:00:00+08:00[Asia/Shanghai]'],
    ['an unknown zone', '2026-07-15T09:01:01+08:00[Not/A_Real_Zone]'],
    ['an abbreviation', '2026-07-15T09:01:01+08:00[CST]'],
    ['an empty zone', '2026-07-15T09:01:01+08:00[]'],
    ['a space instead of T', '2026-07-15 09:01:01+08:00[Asia/Shanghai]'],
    ['trailing text', '2026-07-15T09:01:01+08:00[Asia/Shanghai] '],
    ['leading text', ' 2026-07-15T09:01:01+08:00[Asia/Shanghai]'],
    ['a two-digit year', '26-07-15T09:01:01+08:00[Asia/Shanghai]'],
    ['an empty string', ''],
  ])('rejects %s', (_name, text) => {
    expect(parseZonedTimestamp(text)).toBeNull()
  })

  it('accepts a text exactly when rendering the instant it names gives it back', () => {
    const zones = ['UTC', 'Asia/Shanghai', 'America/New_York', 'Australia/Lord_Howe', 'Europe/Dublin', 'Pacific/Chatham', 'America/Sao_Paulo']
    const variants = (text: string): string[] => {
      const out = [text]
      for (let i = 0; i < text.length; i++) {
        const c = text[i]
        if (c >= '0' && c <= '9') for (const d of [String((Number(c) + 1) % 10), String((Number(c) + 9) % 10)]) out.push(text.slice(0, i) + d + text.slice(i + 1))
        if (c === '+' || c === '-') out.push(text.slice(0, i) + (c === '+' ? '-' : '+') + text.slice(i + 1))
      }
      return out
    }
    let accepted = 0
    let rejected = 0
    for (const zone of zones) {
      for (let epochMs = Date.UTC(1899, 11, 31, 12); epochMs < Date.UTC(2040, 0, 1); epochMs += 397 * 86_400_000 + 3_601_000) {
        for (const text of variants(formatZonedTimestamp(epochMs, zone))) {
          const parsed = parseZonedTimestamp(text)
          if (parsed === null) rejected++
          else {
            accepted++
            expect(formatZonedTimestamp(parsed.epochMs, zone)).toBe(text)
          }
          const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})([+-])(\d{2}):(\d{2})\[/.exec(text)
          if (m !== null) {
            const offset = (m[7] === '-' ? -1 : 1) * (Number(m[8]) * 60 + Number(m[9]))
            const named = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) - offset * 60_000
            expect(parsed === null).toBe(!Number.isFinite(named) || formatZonedTimestamp(named, zone) !== text)
          }
        }
      }
    }
    expect(accepted).toBeGreaterThan(zones.length * 130)
    expect(rejected).toBeGreaterThan(zones.length * 1000)
  })
})

import { fromZonedTime } from 'date-fns-tz'
import { describe, expect, it } from 'vitest'
import {
  coarseCountdown,
  dayOffset,
  durationWords,
  everyWords,
  formatClock,
  formatOffset,
  formatStamp,
  formatWhen,
  msUntilCountdownChanges,
  offsetMinutes,
  currentZoneName,
  usesTwelveHourClock,
  zoneDetail,
  zoneOption,
  zonesInListOrder,
  zonePlace,
} from '../../src/overlay/lib/display/index.ts'

const ZONES = ['Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Eucla', 'Pacific/Chatham', 'America/St_Johns', 'America/New_York', 'UTC']
const NOW_WALL = '2026-12-01T10:00:00'
const WALLS = ['2026-12-01T18:30:00', '2026-12-02T07:45:00', '2026-11-30T22:10:00', '2026-12-07T08:00:00', '2026-12-20T09:05:00', '2027-01-15T21:00:00']

/** What a person in each locale reads for WALLS, seen on 1 Dec 2026 at 10:00 on the same wall clock, whatever the zone (English words on the locale's clock). */
const EXPECTED: Record<string, string[]> = {
  'en-US': ['today 6:30 PM', 'tomorrow 7:45 AM', 'yesterday 10:10 PM', 'Monday 8:00 AM', 'Sun, Dec 20, 9:05 AM', 'Jan 15, 2027, 9:00 PM'],
  'en-GB': ['today 18:30', 'tomorrow 07:45', 'yesterday 22:10', 'Monday 08:00', 'Sun 20 Dec, 09:05', '15 Jan 2027, 21:00'],
  // the words in English, as the rest of the overlay's text is, in the order the locale puts day and month; the clock the locale's
  'de-DE': ['today 18:30', 'tomorrow 07:45', 'yesterday 22:10', 'Monday 08:00', 'Sun 20 Dec, 09:05', '15 Jan 2027, 21:00'],
  'fr-FR': ['today 18:30', 'tomorrow 07:45', 'yesterday 22:10', 'Monday 08:00', 'Sun 20 Dec, 09:05', '15 Jan 2027, 21:00'],
  'pt-BR': ['today 18:30', 'tomorrow 07:45', 'yesterday 22:10', 'Monday 08:00', 'Sun 20 Dec, 09:05', '15 Jan 2027, 21:00'],
  'zh-CN': ['today 18:30', 'tomorrow 07:45', 'yesterday 22:10', 'Monday 08:00', 'Sun, Dec 20, 09:05', 'Jan 15, 2027, 21:00'],
  'ja-JP': ['today 18:30', 'tomorrow 07:45', 'yesterday 22:10', 'Monday 08:00', 'Sun, Dec 20, 09:05', 'Jan 15, 2027, 21:00'],
  'hi-IN': ['today 6:30 pm', 'tomorrow 7:45 am', 'yesterday 10:10 pm', 'Monday 8:00 am', 'Sun 20 Dec, 9:05 am', '15 Jan 2027, 9:00 pm'],
}

const at = (wall: string, zone: string): number => fromZonedTime(wall, zone).getTime()

describe('formatWhen', () => {
  for (const [locale, expected] of Object.entries(EXPECTED)) {
    for (const zone of ZONES) {
      it(`reads English day words on the ${locale} clock in ${zone}`, () => {
        const now = at(NOW_WALL, zone)
        expect(WALLS.map((wall) => formatWhen(at(wall, zone), zone, locale, now))).toEqual(expected)
      })
    }
  }

  it('counts days on the wall clock of the zone shown, not of the instant in UTC', () => {
    const now = Date.parse('2026-12-01T10:00:00Z')
    const instant = Date.parse('2026-12-01T11:30:00Z')
    expect(formatWhen(instant, 'Pacific/Chatham', 'en-GB', now)).toBe('tomorrow 01:15')
    expect(formatWhen(instant, 'America/New_York', 'en-GB', now)).toBe('today 06:30')
    expect(formatWhen(Date.parse('2026-12-01T11:00:00Z'), 'Pacific/Chatham', 'en-GB', Date.parse('2026-12-01T10:00:00Z'))).toBe('tomorrow 00:45')
    expect(dayOffset(Date.parse('2026-12-01T11:00:00Z'), Date.parse('2026-12-01T10:00:00Z'), 'Pacific/Chatham')).toBe(1)
    expect(dayOffset(Date.parse('2026-12-01T11:00:00Z'), Date.parse('2026-12-01T10:00:00Z'), 'UTC')).toBe(0)
  })

  it('names the weekday up to six days ahead, and a date from the seventh and for a day before yesterday', () => {
    const zone = 'Asia/Kathmandu'
    const now = at('2026-12-01T10:00:00', zone)
    expect(formatWhen(at('2026-12-03T10:00:00', zone), zone, 'en-GB', now)).toBe('Thursday 10:00')
    expect(formatWhen(at('2026-12-07T10:00:00', zone), zone, 'en-US', now)).toBe('Monday 10:00 AM')
    // on the code before, last Wednesday read "Wednesday 10:00", as if it were the coming one
    expect(formatWhen(at('2026-11-25T10:00:00', zone), zone, 'en-GB', now)).toBe('Wed 25 Nov, 10:00')
    expect(formatWhen(at('2026-11-29T10:00:00', zone), zone, 'en-US', now)).toBe('Sun, Nov 29, 10:00 AM')
    expect(formatWhen(at('2026-11-29T10:00:00', zone), zone, 'de-DE', now)).toBe('Sun 29 Nov, 10:00')
    expect(formatWhen(at('2026-11-30T10:00:00', zone), zone, 'en-US', now)).toBe('yesterday 10:00 AM')
    expect(formatWhen(at('2026-11-24T10:00:00', zone), zone, 'en-GB', now)).toBe('Tue 24 Nov, 10:00')
    expect(formatWhen(at('2026-12-08T10:00:00', zone), zone, 'en-GB', now)).toBe('Tue 8 Dec, 10:00')
  })

  it('keeps the day right across a DST change', () => {
    const zone = 'America/New_York'
    const now = at('2026-03-07T23:30:00', zone)
    expect(formatWhen(at('2026-03-08T03:30:00', zone), zone, 'en-US', now)).toBe('tomorrow 3:30 AM')
  })
})

describe('formatClock and formatStamp', () => {
  it('follows the locale hour cycle', () => {
    const instant = Date.parse('2026-12-01T13:05:00Z')
    expect(formatClock(instant, 'Asia/Kolkata', 'en-US')).toBe('6:35 PM')
    expect(formatClock(instant, 'Asia/Kolkata', 'de-DE')).toBe('18:35')
    expect(formatClock(instant, 'Asia/Kolkata', 'en-GB')).toBe('18:35')
    expect(formatClock(instant, 'Asia/Kolkata', 'en-US-u-hc-h23')).toBe('18:35')
    expect(usesTwelveHourClock('en-US')).toBe(true)
    expect(usesTwelveHourClock('de-DE')).toBe(false)
  })

  it('names the zone\'s clock when the clocks go back and a time happens twice, and only then', () => {
    // 01:30 on 7 November 2027 in New York: first on summer time (UTC−4), an hour later on winter time (UTC−5)
    const first = Date.parse('2027-11-07T05:30:00Z')
    const second = Date.parse('2027-11-07T06:30:00Z')
    expect([first, second].map((t) => formatClock(t, 'America/New_York', 'en-US'))).toEqual(['1:30 AM EDT', '1:30 AM EST'])
    expect(formatClock(Date.parse('2027-11-07T08:30:00Z'), 'America/New_York', 'en-US')).toBe('3:30 AM')
    expect(formatClock(Date.parse('2027-11-06T05:30:00Z'), 'America/New_York', 'en-US')).toBe('1:30 AM')
    const now = Date.parse('2027-06-01T12:00:00Z')
    expect(formatWhen(first, 'America/New_York', 'en-US', now)).toBe('Sun, Nov 7, 1:30 AM EDT')
    expect(formatWhen(Date.parse('2027-11-07T05:30:00Z'), 'America/New_York', 'en-US', Date.parse('2027-11-06T12:00:00Z'))).toBe('tomorrow 1:30 AM EDT')
  })

  it('shows the clock alone today and with the day otherwise', () => {
    const now = Date.parse('2026-12-01T12:00:00Z')
    expect(formatStamp(Date.parse('2026-12-01T09:00:00Z'), 'UTC', 'en-GB', now)).toBe('09:00')
    expect(formatStamp(Date.parse('2026-11-30T09:00:00Z'), 'UTC', 'en-GB', now)).toBe('yesterday 09:00')
  })
})

describe('offsets', () => {
  const december = Date.parse('2026-12-01T10:00:00Z')
  const july = Date.parse('2026-07-01T10:00:00Z')
  it('reads half-hour, 45-minute and negative offsets', () => {
    expect(
      ZONES.map((zone) => [zone, formatOffset(offsetMinutes(zone, december) as number), formatOffset(offsetMinutes(zone, july) as number)]),
    ).toEqual([
      ['Asia/Kolkata', 'UTC+05:30', 'UTC+05:30'],
      ['Asia/Kathmandu', 'UTC+05:45', 'UTC+05:45'],
      ['Australia/Eucla', 'UTC+08:45', 'UTC+08:45'],
      ['Pacific/Chatham', 'UTC+13:45', 'UTC+12:45'],
      ['America/St_Johns', 'UTC−03:30', 'UTC−02:30'],
      ['America/New_York', 'UTC−05:00', 'UTC−04:00'],
      ['UTC', 'UTC', 'UTC'],
    ])
  })

  it('answers null for an unknown zone', () => {
    expect(offsetMinutes('Not/A_Zone', december)).toBeNull()
  })
})

describe('place names', () => {
  it('shows places, with today’s names for legacy ids whatever the runtime calls them', () => {
    expect(
      ['Asia/Calcutta', 'Asia/Kolkata', 'Europe/Kiev', 'Europe/Kyiv', 'Asia/Saigon', 'Asia/Rangoon', 'US/Eastern', 'America/New_York', 'America/Buenos_Aires', 'Pacific/Chatham', 'Etc/UTC', 'UTC'].map(zonePlace),
    ).toEqual(['Kolkata', 'Kolkata', 'Kyiv', 'Kyiv', 'Ho Chi Minh', 'Yangon', 'New York', 'New York', 'Buenos Aires', 'Chatham', 'UTC', 'UTC'])
    expect(currentZoneName('Asia/Calcutta')).toBe('Asia/Kolkata')
    expect(currentZoneName('Europe/Kiev')).toBe('Europe/Kyiv')
  })

  it('keeps the IANA id as given with its offset for hover', () => {
    expect(zoneDetail('Asia/Calcutta', Date.parse('2026-12-01T10:00:00Z'))).toBe('Asia/Calcutta · UTC+05:30')
  })

  it('lists zones by region, then by the place they are shown as, whatever the runtime calls them', () => {
    const zones = ['Pacific/Truk', 'Asia/Chita', 'America/Indianapolis', 'Asia/Calcutta', 'Pacific/Chatham', 'America/Indiana/Winamac', 'Asia/Brunei', 'America/Inuvik', 'Asia/Katmandu', 'Africa/Abidjan', 'Pacific/Easter']
    expect(zonesInListOrder(zones)).toEqual([
      'Africa/Abidjan',
      'America/Indianapolis',
      'America/Inuvik',
      'America/Indiana/Winamac',
      'Asia/Brunei',
      'Asia/Chita',
      'Asia/Katmandu',
      'Asia/Calcutta',
      'Pacific/Chatham',
      'Pacific/Truk',
      'Pacific/Easter',
    ])
    expect(zonesInListOrder([])).toEqual([])
  })

  it('lists a zone in the picker by its place, offset and today’s IANA name', () => {
    const now = Date.parse('2026-12-01T10:00:00Z')
    expect(['Asia/Calcutta', 'Europe/Kiev', 'Asia/Saigon', 'America/New_York', 'UTC', 'Etc/GMT+5'].map((zone) => zoneOption(zone, now))).toEqual([
      'Kolkata (UTC+05:30, Asia/Kolkata)',
      'Kyiv (UTC+02:00, Europe/Kyiv)',
      'Ho Chi Minh (UTC+07:00, Asia/Ho_Chi_Minh)',
      'New York (UTC−05:00, America/New_York)',
      'UTC',
      'GMT+5 (UTC−05:00, Etc/GMT+5)',
    ])
  })
})

describe('coarseCountdown', () => {
  const T = Date.parse('2026-07-15T01:00:00.000Z')
  it('coarsens with distance', () => {
    expect(coarseCountdown(T, T - (2 * 86_400 + 4 * 3_600 + 59 * 60) * 1000)).toBe('in 2 d 4 h')
    expect(coarseCountdown(T, T - 2 * 86_400_000)).toBe('in 2 d')
    expect(coarseCountdown(T, T - (3 * 3_600 + 20 * 60 + 30) * 1000)).toBe('in 3 h 20 min')
    expect(coarseCountdown(T, T - 3_600_000)).toBe('in 1 h')
    expect(coarseCountdown(T, T - 245_000)).toBe('in 4:05')
    expect(coarseCountdown(T, T - 1)).toBe('in 0:01')
  })

  it('reads due now in its first second, then overdue', () => {
    expect(coarseCountdown(T, T)).toBe('due now')
    expect(coarseCountdown(T, T + 999)).toBe('due now')
    expect(coarseCountdown(T, T + 63_000)).toBe('overdue by 1:03')
    expect(coarseCountdown(T, T + 7_500_000)).toBe('overdue by 2 h 5 min')
  })

  it('ticks per second within the hour and per minute beyond', () => {
    expect(msUntilCountdownChanges(T, T - 245_300)).toBe(300)
    expect(msUntilCountdownChanges(T, T - 245_000)).toBe(1000)
    expect(msUntilCountdownChanges(T, T - 3 * 3_600_000 - 12_000)).toBe(12_000)
  })
})

describe('durations in words', () => {
  it('reads spans the way people say them', () => {
    expect([900, 5_400, 3_600, 86_400, 172_800, 45, 0, 90_061].map(durationWords)).toEqual([
      '15 min',
      '1 h 30 min',
      '1 h',
      '1 day',
      '2 days',
      '45 s',
      '0 s',
      '1 day 1 h 1 min 1 s',
    ])
    expect([900, 86_400, 172_800].map(everyWords)).toEqual(['Every 15 min', 'Every day', 'Every 2 days'])
  })
})

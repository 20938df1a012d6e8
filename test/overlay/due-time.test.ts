import { describe, expect, it } from 'vitest'
import { formatClockTime, formatDueTimes, formatInstantInZone } from '../../src/overlay/lib/due-time.ts'

const T = Date.parse('2026-07-15T01:30:00.000Z')

describe('formatInstantInZone', () => {
  it('renders the wall time and offset of the zone', () => {
    expect(formatInstantInZone(T, 'Asia/Shanghai')).toBe('Wed 15 Jul 2026, 09:30:00 +08:00')
    expect(formatInstantInZone(T, 'America/New_York')).toBe('Tue 14 Jul 2026, 21:30:00 -04:00')
    expect(formatInstantInZone(T, 'UTC')).toBe('Wed 15 Jul 2026, 01:30:00 +00:00')
  })

  it('returns null for an unusable zone or instant', () => {
    expect(formatInstantInZone(T, 'Not/A_Real_Zone')).toBeNull()
    expect(formatInstantInZone(Number.NaN, 'UTC')).toBeNull()
  })
})

describe('formatDueTimes', () => {
  it('formats in the Session zone and the browser zone', () => {
    expect(formatDueTimes(T, 'Asia/Shanghai', 'America/New_York')).toEqual({
      session: { zone: 'Asia/Shanghai', text: 'Wed 15 Jul 2026, 09:30:00 +08:00' },
      browser: { zone: 'America/New_York', text: 'Tue 14 Jul 2026, 21:30:00 -04:00' },
      sameZone: false,
    })
  })

  it('compares the zones canonically', () => {
    expect(formatDueTimes(T, 'America/New_York', 'US/Eastern').sameZone).toBe(true)
    expect(formatDueTimes(T, 'UTC', 'Etc/UTC').sameZone).toBe(true)
  })

  it('has no Session time for a headerless Session', () => {
    expect(formatDueTimes(T, null, 'UTC')).toEqual({
      session: null,
      browser: { zone: 'UTC', text: 'Wed 15 Jul 2026, 01:30:00 +00:00' },
      sameZone: false,
    })
  })
})

describe('formatClockTime', () => {
  it('shows only the time on the same day in that zone', () => {
    expect(formatClockTime(T, 'Asia/Shanghai', T + 60_000)).toBe('09:30')
  })

  it('adds the date on another day', () => {
    expect(formatClockTime(T, 'Asia/Shanghai', T + 86_400_000)).toBe('15 Jul 2026, 09:30')
  })

  it('falls back to UTC without a zone', () => {
    expect(formatClockTime(T, null, T)).toBe('01:30')
  })
})

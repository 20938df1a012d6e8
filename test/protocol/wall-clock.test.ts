import { describe, expect, it } from 'vitest'
import { wallClockAt, zoneFormatter } from '../../src/protocol/index.ts'

describe('wallClockAt', () => {
  it('reads the wall clock of an instant in a zone, floored to the second', () => {
    expect(wallClockAt('Asia/Shanghai', Date.UTC(2026, 6, 15, 1, 1, 1, 999))).toEqual({
      year: 2026,
      month: 7,
      day: 15,
      hour: 9,
      minute: 1,
      second: 1,
    })
    expect(wallClockAt('America/New_York', Date.UTC(2026, 0, 1, 4, 59, 59))).toEqual({
      year: 2025,
      month: 12,
      day: 31,
      hour: 23,
      minute: 59,
      second: 59,
    })
  })

  it('answers a second read again in a zone with an equal, separate object', () => {
    const at = Date.UTC(2026, 6, 15, 1, 1, 1, 250)
    const first = wallClockAt('Asia/Kolkata', at)
    first.hour = 99
    expect(wallClockAt('Asia/Kolkata', at + 500)).toEqual({ year: 2026, month: 7, day: 15, hour: 6, minute: 31, second: 1 })
    expect(wallClockAt('Asia/Kolkata', at + 1000)).toEqual({ year: 2026, month: 7, day: 15, hour: 6, minute: 31, second: 2 })
    expect(wallClockAt('America/New_York', at)).toEqual({ year: 2026, month: 7, day: 14, hour: 21, minute: 1, second: 1 })
    expect(wallClockAt('Asia/Kolkata', at)).toEqual({ year: 2026, month: 7, day: 15, hour: 6, minute: 31, second: 1 })
  })

  it('reads midnight as hour 0', () => {
    expect(wallClockAt('UTC', Date.UTC(2026, 6, 15))).toEqual({ year: 2026, month: 7, day: 15, hour: 0, minute: 0, second: 0 })
  })

  it('floors instants before the epoch to the earlier second', () => {
    expect(wallClockAt('UTC', -1)).toEqual({ year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59 })
  })

  it('counts years before 1 CE astronomically (1 BC is year 0)', () => {
    const firstInstant = Date.UTC(2000, 0, 1) - 730_119 * 86_400_000
    expect(wallClockAt('UTC', firstInstant)).toEqual({ year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0 })
    expect(wallClockAt('America/New_York', firstInstant).year).toBe(0)
    expect(wallClockAt('America/New_York', firstInstant)).toMatchObject({ month: 12, day: 31 })
  })

  it('throws a RangeError for an unknown zone', () => {
    expect(() => wallClockAt('Not/A_Real_Zone', 0)).toThrow(RangeError)
  })
})

describe('zoneFormatter', () => {
  it('hands out one cached formatter per zone', () => {
    expect(zoneFormatter('Asia/Tokyo')).toBe(zoneFormatter('Asia/Tokyo'))
    expect(zoneFormatter('Asia/Tokyo')).not.toBe(zoneFormatter('Europe/Paris'))
    expect(zoneFormatter('Asia/Tokyo').resolvedOptions().timeZone).toBe('Asia/Tokyo')
  })
})

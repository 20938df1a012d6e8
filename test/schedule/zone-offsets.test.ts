import { describe, expect, it } from 'vitest'
import { utcOffsetMs } from '../../src/protocol/index.ts'
import { resolveWallTime } from '../../src/schedule/absolute-time.ts'
import { zoneOffsetReader } from '../../src/schedule/zone-offsets.ts'

const QUARTER_HOUR_MS = 15 * 60_000

/** The instants in `[from, to]` (every 15 minutes, and every second of a quarter hour in which Intl reads a change) where the reader and Intl disagree. */
function disagreements(zone: string, from: string, to: string): string[] {
  const offsets = zoneOffsetReader(zone)
  const out: string[] = []
  let previous = utcOffsetMs(zone, Date.parse(from))
  for (let t = Date.parse(from); t <= Date.parse(to); t += QUARTER_HOUR_MS) {
    const offset = utcOffsetMs(zone, t)
    const seconds = offset === previous ? [t] : Array.from({ length: QUARTER_HOUR_MS / 1000 }, (_, i) => t - QUARTER_HOUR_MS + (i + 1) * 1000)
    for (const second of seconds) if (offsets(second) !== utcOffsetMs(zone, second)) out.push(new Date(second).toISOString())
    previous = offset
  }
  return out
}

describe('zoneOffsetReader', () => {
  it.each([
    ['Asia/Gaza', '2027-03-20T00:00:00Z', '2027-04-02T00:00:00Z'],
    ['Asia/Gaza', '2040-10-15T00:00:00Z', '2040-11-01T00:00:00Z'],
    ['Australia/Lord_Howe', '2026-09-30T00:00:00Z', '2026-10-08T00:00:00Z'],
    ['Pacific/Apia', '2011-12-28T00:00:00Z', '2012-01-02T00:00:00Z'],
    ['Africa/Casablanca', '2026-02-10T00:00:00Z', '2026-03-30T00:00:00Z'],
    ['Antarctica/Troll', '2027-03-25T00:00:00Z', '2027-04-01T00:00:00Z'],
    ['America/Boa_Vista', '2000-10-05T00:00:00Z', '2000-10-20T00:00:00Z'],
    ['Africa/Freetown', '1939-08-28T00:00:00Z', '1939-09-10T00:00:00Z'],
    ['Europe/Amsterdam', '1937-06-28T00:00:00Z', '1937-07-04T00:00:00Z'],
  ])('reads the offsets of %s from %s to %s as Intl does, to the second of each change', (zone, from, to) => {
    expect(disagreements(zone, from, to)).toEqual([])
  })

  it('resolves every 5 minutes of clock-change nights as reading Intl for each wall time does', () => {
    const nights: [string, string][] = [['Asia/Gaza', '2027-03-26'], ['Asia/Gaza', '2026-10-23'], ['Australia/Lord_Howe', '2026-10-03'], ['Australia/Lord_Howe', '2027-04-03'], ['Pacific/Apia', '2011-12-29'], ['America/St_Johns', '2026-11-01']]
    for (const [zone, date] of nights) {
      const offsets = zoneOffsetReader(zone)
      const [year, month, day] = date.split('-').map(Number)
      for (let minutes = 0; minutes < 3 * 24 * 60; minutes += 5) {
        const at = new Date(Date.UTC(year, month - 1, day, 0, minutes))
        const wall = { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate(), hour: at.getUTCHours(), minute: at.getUTCMinutes(), second: 0, millisecond: 0 }
        expect(resolveWallTime(wall, wall, zone, offsets)).toEqual(resolveWallTime(wall, wall, zone))
      }
    }
  })
})

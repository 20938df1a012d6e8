import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { instantsForWallTime, wallFieldsAsUtc } from '../../src/protocol/index.ts'
import {
  localToInstant,
  MAX_INSTANT_MS,
  MIN_INSTANT_MS,
  parseCanonicalInstant,
  parseRfc3339,
  toScheduledAt,
  wallClockAt,
} from '../../src/schedule/absolute-time.ts'

const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'Australia/Sydney',
  'America/Santiago',
  'Pacific/Auckland',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Adelaide',
  'Pacific/Chatham',
  'Pacific/Apia',
  'America/St_Johns',
  'Europe/Dublin',
]

const instant = fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) })
const anyInRange = fc.integer({ min: MIN_INSTANT_MS, max: MAX_INSTANT_MS })

describe('absolute time properties', () => {
  it('every wall time read off the clock maps back to an instant at or before it with the same wall time', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), instant, (zone, ms) => {
        const wall = wallClockAt(zone, ms)
        const result = localToInstant(wall, wall, zone)
        expect(result.ok).toBe(true)
        if (!result.ok) return
        expect(result.value).toBeLessThanOrEqual(ms)
        expect(wallClockAt(zone, result.value)).toEqual(wall)
        expect(instantsForWallTime(wall, zone)).toContain(ms)
      }),
      { numRuns: 2000 },
    )
  })

  it('every instant found for a wall time reads back as that wall time', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), instant, (zone, ms) => {
        const wall = wallClockAt('UTC', ms)
        for (const found of instantsForWallTime(wall, zone)) {
          expect(wallFieldsAsUtc(wallClockAt(zone, found))).toBe(wallFieldsAsUtc(wall))
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('parses its own canonical output for every instant in range', () => {
    fc.assert(
      fc.property(anyInRange, (ms) => {
        expect(parseRfc3339(toScheduledAt(ms))).toBe(ms)
        expect(parseCanonicalInstant(toScheduledAt(ms))).toBe(ms)
      }),
      { numRuns: 2000 },
    )
  })
})

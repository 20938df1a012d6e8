import { describe, expect, it } from 'vitest'
import { snoozedAgain } from '../../src/overlay/lib/zoned-time.ts'

// Wednesday 2 December 2026, 18:54 in Berlin (12:54 in New York)
const NOW = Date.parse('2026-12-02T17:54:00Z')
const UNTIL = Date.parse('2026-12-02T18:04:00Z')

describe('snoozedAgain', () => {
  it('says when a snoozed occurrence comes back on the Session clock, naming both places when the browser is elsewhere', () => {
    expect(snoozedAgain(UNTIL, 'Europe/Berlin', 'America/New_York', 'en-US', NOW)).toBe('again today 7:04 PM · Berlin (today 1:04 PM · New York)')
    expect(snoozedAgain(UNTIL, 'Europe/Berlin', 'Europe/Berlin', 'en-US', NOW)).toBe('again today 7:04 PM')
    expect(snoozedAgain(UNTIL, 'Europe/Berlin', null, 'en-GB', NOW)).toBe('again today 19:04')
    expect(snoozedAgain(UNTIL, 'Asia/Tokyo', 'Europe/Berlin', 'en-GB', NOW)).toBe('again today 03:04 · Tokyo (today 19:04 · Berlin)')
    expect(snoozedAgain(null, 'Europe/Berlin', 'America/New_York', 'en-US', NOW)).toBe('again later')
  })
})

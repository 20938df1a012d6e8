import { describe, expect, it } from 'vitest'
import { clockSkewMs, clockWarnings, type TimeProbe } from '../../src/overlay/lib/clock-check.ts'

const probe = (patch: Partial<TimeProbe>): TimeProbe => ({
  sentAt: 1_000_000,
  receivedAt: 1_000_200,
  serverNow: 1_000_100,
  zone: 'Asia/Kolkata',
  browserOffset: 330,
  serverOffset: 330,
  ...patch,
})

describe('clock check', () => {
  it('takes the server reading as the midpoint of the round trip', () => {
    expect(clockSkewMs(probe({}))).toBe(0)
    expect(clockSkewMs(probe({ serverNow: 1_000_100 - 420_000 }))).toBe(420_000)
  })

  it('stays quiet within 2 minutes and speaks plainly beyond', () => {
    expect(clockWarnings(probe({ serverNow: 1_000_100 - 120_000 }))).toEqual([])
    expect(clockWarnings(probe({ serverNow: 1_000_100 - 420_000 }))).toEqual([
      'Your device clock is 7 min ahead of the server. Reminders and times shown here depend on it.',
    ])
    expect(clockWarnings(probe({ serverNow: 1_000_100 + 3_900_000 }))).toEqual([
      'Your device clock is 1 h 5 min behind the server. Reminders and times shown here depend on it.',
    ])
  })

  it('says when this browser’s tzdata puts its zone at another offset than the server’s', () => {
    expect(clockWarnings(probe({ zone: 'Asia/Calcutta', serverOffset: 345 }))).toEqual([
      'This browser puts Kolkata at UTC+05:30, the server at UTC+05:45: one of them has outdated time zone data, so local times may be off.',
    ])
    expect(clockWarnings(probe({ serverOffset: null }))).toEqual([])
  })
})

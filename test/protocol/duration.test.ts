import { describe, expect, it } from 'vitest'
import { formatDuration, formatSeconds, isDurationText, parseDuration } from '../../src/protocol/index.ts'

const S = 1000
const M = 60 * S
const H = 60 * M
const D = 24 * H

describe('formatDuration', () => {
  it.each([
    [D + H + M + S, '1d 1h 1m 1s'],
    [M + S, '1m 1s'],
    [H, '1h 0s'],
    [0, '0s'],
    [999, '0s'],
    [1999, '1s'],
    [59 * S + 999, '59s'],
    [M, '1m 0s'],
    [D, '1d 0s'],
    [D + M, '1d 1m 0s'],
    [D + S, '1d 1s'],
    [2 * D + 23 * H + 59 * M + 59 * S + 999, '2d 23h 59m 59s'],
    [400 * D + 5 * S, '400d 5s'],
  ])('formats %i ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
  })

  it('clamps a negative span (wall clock behind the baseline) to 0s', () => {
    expect(formatDuration(-1)).toBe('0s')
    expect(formatDuration(-5 * D)).toBe('0s')
  })

  it('renders null as unavailable', () => {
    expect(formatDuration(null)).toBe('unavailable')
  })

  it('refuses a non-finite span', () => {
    expect(() => formatDuration(Number.NaN)).toThrow(new RangeError('time-context: duration must be finite, got NaN'))
    expect(() => formatDuration(Number.POSITIVE_INFINITY)).toThrow(RangeError)
  })
})

describe('parseDuration', () => {
  it('reads back every rendered duration', () => {
    for (const seconds of [0, 1, 59, 60, 61, 3599, 3600, 3601, 86_399, 86_400, 86_401, 90_061, 9_000_000]) {
      expect(parseDuration(formatDuration(seconds * 1000))).toBe(seconds)
    }
  })

  it.each(['', 'unavailable', '0h 1s', '1h 0m 0s', '60s', '60m 0s', '24h 0s', '01s', '0d 1s', '1d1s', ' 0s', '0s ', '-1s', '1.5s', '1m 1h 1s'])(
    'rejects %j',
    (text) => {
      expect(parseDuration(text)).toBeNull()
    },
  )
})

describe('formatSeconds', () => {
  it('leaves out zero days, hours and minutes but always shows seconds', () => {
    expect(formatSeconds(90_061)).toBe('1d 1h 1m 1s')
    expect(formatSeconds(61)).toBe('1m 1s')
    expect(formatSeconds(3_600)).toBe('1h 0s')
    expect(formatSeconds(0)).toBe('0s')
    expect(formatSeconds(86_400 + 5)).toBe('1d 5s')
  })

  it('floors fractions and clamps negatives to 0s', () => {
    expect(formatSeconds(59.9)).toBe('59s')
    expect(formatSeconds(-5)).toBe('0s')
  })
})

describe('isDurationText', () => {
  it('accepts every rendered shape, any day count included', () => {
    for (const text of ['0s', '59s', '1m 0s', '1h 0s', '23h 59m 59s', '1d 1h 1m 1s', '123456789012345678901234567890d 0s']) {
      expect(isDurationText(text)).toBe(true)
    }
  })

  it.each(['', 'unavailable', '0h 1s', '60s', '24h 0s', '01s', '0d 1s', '1d1s', ' 0s'])('rejects %j', (text) => {
    expect(isDurationText(text)).toBe(false)
  })
})

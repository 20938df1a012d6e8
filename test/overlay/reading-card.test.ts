import { describe, expect, it } from 'vitest'
import { readingCard, splitReadingTimestamp } from '../../src/overlay/lib/reading-card.ts'

const reading = (client: string, session = 'Asia/Shanghai', baseline = 'model-visible message', elapsed = '1m 1s') =>
  [
    'Time sampled while preparing turn 2, step 1: 2026-07-15T09:01:01+08:00[Asia/Shanghai]',
    `Session time zone: ${session}.`,
    `Client time zone for this request: ${client}.`,
    `Elapsed since the preceding ${baseline}: ${elapsed}.`,
  ].join('\n')

describe('splitReadingTimestamp', () => {
  it('splits date, time, offset and zone and computes the instant', () => {
    expect(splitReadingTimestamp('2026-07-15T09:01:01+08:00[Asia/Shanghai]')).toEqual({
      date: '2026-07-15',
      time: '09:01:01',
      offset: '+08:00',
      zone: 'Asia/Shanghai',
      instantMs: Date.parse('2026-07-15T01:01:01Z'),
    })
  })

  it('rejects other shapes', () => {
    expect(splitReadingTimestamp('2026-07-15T09:01:01Z')).toBeNull()
    expect(splitReadingTimestamp('2026-07-15T09:01:01+08:00')).toBeNull()
  })

  it('rejects a timestamp whose offset is not its zone offset at that time', () => {
    expect(splitReadingTimestamp('2026-07-15T09:01:01+09:00[Asia/Shanghai]')).toBeNull()
    expect(splitReadingTimestamp('2026-07-15T09:01:01+08:00[Not/A_Real_Zone]')).toBeNull()
  })
})

describe('readingCard', () => {
  it('models a resolved reading', () => {
    expect(readingCard(reading('Asia/Shanghai'))).toEqual({
      turn: 2,
      step: 1,
      timestamp: '2026-07-15T09:01:01+08:00[Asia/Shanghai]',
      sampled: { date: '2026-07-15', time: '09:01:01', offset: '+08:00', zone: 'Asia/Shanghai', instantMs: Date.parse('2026-07-15T01:01:01Z') },
      sessionZone: 'Asia/Shanghai',
      clientKind: 'resolved',
      clientZones: ['Asia/Shanghai'],
      clientLabel: 'Asia/Shanghai',
      baseline: 'model-visible message',
      elapsed: '1m 1s',
      tone: 'ok',
    })
  })

  it('marks a mixed reading as a warning and lists its zones', () => {
    const card = readingCard(reading('mixed ["America/New_York","Asia/Shanghai"]', 'Asia/Shanghai', 'step context', '0s'))
    expect(card).toMatchObject({
      clientKind: 'mixed',
      clientZones: ['America/New_York', 'Asia/Shanghai'],
      clientLabel: 'mixed: America/New_York, Asia/Shanghai',
      baseline: 'step context',
      elapsed: '0s',
      tone: 'warning',
    })
  })

  it('keeps a missing reading neutral', () => {
    expect(readingCard(reading('missing'))).toMatchObject({ clientKind: 'missing', clientZones: [], clientLabel: 'missing', tone: 'neutral' })
  })

  it('shows a headerless Session as unavailable and keeps an unavailable elapsed value', () => {
    expect(readingCard(reading('UTC', 'unavailable', 'model-visible message', 'unavailable'))).toMatchObject({
      sessionZone: null,
      elapsed: 'unavailable',
    })
  })

  it('returns null for text that is not a reading', () => {
    expect(readingCard('hello')).toBeNull()
    expect(readingCard(`${reading('UTC')}\n`)).toBeNull()
  })
})

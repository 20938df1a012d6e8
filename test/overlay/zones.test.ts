import { describe, expect, it } from 'vitest'
import { compareZones } from '../../src/overlay/lib/zones.ts'

describe('compareZones', () => {
  it('agrees on canonically equal zones', () => {
    expect(compareZones('Asia/Shanghai', 'Asia/Shanghai')).toEqual({ kind: 'same' })
    expect(compareZones('America/New_York', 'US/Eastern')).toEqual({ kind: 'same' })
    expect(compareZones('UTC', 'Etc/UTC')).toEqual({ kind: 'same' })
  })

  it('reports different zones', () => {
    expect(compareZones('Asia/Shanghai', 'America/New_York')).toEqual({
      kind: 'different',
      sessionZone: 'Asia/Shanghai',
      browserZone: 'America/New_York',
    })
  })

  it('reports a headerless Session', () => {
    expect(compareZones(null, 'Europe/Berlin')).toEqual({ kind: 'headerless', browserZone: 'Europe/Berlin' })
  })

  it('reports a browser without a usable zone', () => {
    expect(compareZones('UTC', null)).toEqual({ kind: 'browser-unknown', sessionZone: 'UTC' })
    expect(compareZones('UTC', 'CST')).toEqual({ kind: 'browser-unknown', sessionZone: 'UTC' })
  })
})

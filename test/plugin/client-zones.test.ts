import { describe, expect, it } from 'vitest'
import {
  clientZoneOfSource,
  clientZonesFrom,
  deriveClientZones,
  renderClientZones,
} from '../../src/protocol/client-zones.ts'
import type { UserMessage } from '../../src/protocol/events.ts'
import { buildReadingMessage } from '../../src/plugin/reading-message.ts'
import { plainMessage, pluginMessage, rpcMessage } from './log-builder.ts'

function withSource(source: unknown): UserMessage {
  return { id: 'x', role: 'user', content: [{ type: 'text', text: 'x' }], source } as UserMessage
}

describe('deriveClientZones', () => {
  it('is missing with no messages', () => {
    expect(deriveClientZones([])).toEqual({ kind: 'missing' })
  })

  it('resolves one user-rpc zone', () => {
    expect(deriveClientZones([rpcMessage('a', 'Asia/Shanghai')])).toEqual({ kind: 'resolved', timeZone: 'Asia/Shanghai' })
  })

  it('de-duplicates equal zone strings', () => {
    const messages = [rpcMessage('a', 'Asia/Shanghai'), rpcMessage('b', 'Asia/Shanghai')]
    expect(deriveClientZones(messages)).toEqual({ kind: 'resolved', timeZone: 'Asia/Shanghai' })
  })

  it('sorts two or more zones with the default JS sort', () => {
    const messages = [rpcMessage('a', 'UTC'), rpcMessage('b', 'Asia/Shanghai'), rpcMessage('c', 'America/New_York'), rpcMessage('d', 'UTC')]
    expect(deriveClientZones(messages)).toEqual({ kind: 'mixed', timeZones: ['America/New_York', 'Asia/Shanghai', 'UTC'] })
  })

  it('sorts by UTF-16 code units, not locale', () => {
    const messages = [rpcMessage('a', 'america/x'), rpcMessage('b', 'Zulu/X')]
    expect(deriveClientZones(messages)).toEqual({ kind: 'mixed', timeZones: ['Zulu/X', 'america/x'] })
  })

  it('ignores messages without a browser, plugin messages and readings', () => {
    const messages = [plainMessage('a'), pluginMessage('b', 'schedule'), buildReadingMessage(1, 1, 'text')]
    expect(deriveClientZones(messages)).toEqual({ kind: 'missing' })
  })

  it('counts a message only when rpcId and clientTimeZone are both strings', () => {
    const messages = [
      withSource({ kind: 'user', rpcId: 1, clientTimeZone: 'Asia/Tokyo' }),
      withSource({ kind: 'user', clientTimeZone: 'Asia/Tokyo' }),
      withSource({ kind: 'user', rpcId: 'r', clientTimeZone: null }),
      withSource({ kind: 'plugin', rpcId: 'r', clientTimeZone: 'Asia/Tokyo' }),
      withSource(null),
      withSource({ kind: 'user', rpcId: 'r', clientTimeZone: 'Europe/Paris' }),
    ]
    expect(deriveClientZones(messages)).toEqual({ kind: 'resolved', timeZone: 'Europe/Paris' })
  })

  it('takes any iterable', () => {
    function* messages(): Generator<UserMessage> {
      yield rpcMessage('a', 'Europe/Paris')
      yield rpcMessage('b', 'Asia/Tokyo')
    }
    expect(deriveClientZones(messages())).toEqual({ kind: 'mixed', timeZones: ['Asia/Tokyo', 'Europe/Paris'] })
  })
})

describe('clientZoneOfSource', () => {
  it('returns the zone of a user-rpc source', () => {
    expect(clientZoneOfSource({ kind: 'user', rpcId: 'r', clientTimeZone: 'Asia/Tokyo' })).toBe('Asia/Tokyo')
  })

  it('returns null for every other source', () => {
    expect(clientZoneOfSource({ kind: 'user' })).toBeNull()
    expect(clientZoneOfSource(undefined)).toBeNull()
    expect(clientZoneOfSource('user')).toBeNull()
  })
})

describe('clientZonesFrom', () => {
  it('derives from plain zone strings', () => {
    expect(clientZonesFrom([])).toEqual({ kind: 'missing' })
    expect(clientZonesFrom(['UTC', 'UTC'])).toEqual({ kind: 'resolved', timeZone: 'UTC' })
    expect(clientZonesFrom(['UTC', 'Asia/Tokyo'])).toEqual({ kind: 'mixed', timeZones: ['Asia/Tokyo', 'UTC'] })
  })
})

describe('renderClientZones', () => {
  it('renders missing', () => {
    expect(renderClientZones({ kind: 'missing' })).toBe('missing')
  })

  it('renders a resolved zone as its name', () => {
    expect(renderClientZones({ kind: 'resolved', timeZone: 'Asia/Shanghai' })).toBe('Asia/Shanghai')
  })

  it('renders mixed zones as mixed plus their JSON list', () => {
    expect(renderClientZones({ kind: 'mixed', timeZones: ['America/New_York', 'Asia/Shanghai'] })).toBe(
      'mixed ["America/New_York","Asia/Shanghai"]',
    )
  })
})

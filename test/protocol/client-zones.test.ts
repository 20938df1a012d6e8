import { describe, expect, it } from 'vitest'
import type { SessionEvent, UserMessage } from '../../src/protocol/index.ts'
import {
  buildReadingMessage,
  clientZoneOfSource,
  clientZonesFrom,
  nextTurnZones,
  renderClientZones,
  turnClientZones,
} from '../../src/protocol/index.ts'
import { LogBuilder, plainMessage, pluginMessage, rpcMessage } from '../support/log-builder.ts'

function withSource(source: unknown): UserMessage {
  return { id: 'x', role: 'user', content: [{ type: 'text', text: 'x' }], source } as UserMessage
}

describe('turnClientZones of a batch alone', () => {
  it('is missing with no messages', () => {
    expect(turnClientZones([], [])).toEqual({ kind: 'missing' })
  })

  it('resolves one user-rpc zone', () => {
    expect(turnClientZones([], [rpcMessage('a', 'Asia/Shanghai')])).toEqual({ kind: 'resolved', timeZone: 'Asia/Shanghai' })
  })

  it('de-duplicates equal zone strings', () => {
    const messages = [rpcMessage('a', 'Asia/Shanghai'), rpcMessage('b', 'Asia/Shanghai')]
    expect(turnClientZones([], messages)).toEqual({ kind: 'resolved', timeZone: 'Asia/Shanghai' })
  })

  it('sorts two or more zones with the default JS sort', () => {
    const messages = [rpcMessage('a', 'UTC'), rpcMessage('b', 'Asia/Shanghai'), rpcMessage('c', 'America/New_York'), rpcMessage('d', 'UTC')]
    expect(turnClientZones([], messages)).toEqual({ kind: 'mixed', timeZones: ['America/New_York', 'Asia/Shanghai', 'UTC'] })
  })

  it('sorts by UTF-16 code units, not locale', () => {
    const messages = [rpcMessage('a', 'america/x'), rpcMessage('b', 'Zulu/X')]
    expect(turnClientZones([], messages)).toEqual({ kind: 'mixed', timeZones: ['Zulu/X', 'america/x'] })
  })

  it('ignores messages without a browser, plugin messages and readings', () => {
    const messages = [plainMessage('a'), pluginMessage('b', 'schedule'), buildReadingMessage(1, 1, 'text')]
    expect(turnClientZones([], messages)).toEqual({ kind: 'missing' })
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
    expect(turnClientZones([], messages)).toEqual({ kind: 'resolved', timeZone: 'Europe/Paris' })
  })

  it('takes any iterable', () => {
    function* messages(): Generator<UserMessage> {
      yield rpcMessage('a', 'Europe/Paris')
      yield rpcMessage('b', 'Asia/Tokyo')
    }
    expect(turnClientZones([], messages())).toEqual({ kind: 'mixed', timeZones: ['Asia/Tokyo', 'Europe/Paris'] })
  })
})

function foldZones(events: readonly SessionEvent[]): readonly string[] {
  let zones: readonly string[] = []
  let open = false
  for (const event of events) {
    zones = nextTurnZones(zones, event, open)
    if (event.type === 'turn/start') open = true
    if (event.type === 'turn/end') open = false
  }
  return zones
}

describe('nextTurnZones', () => {
  it('collects the sorted distinct user-rpc zones of the open turn', () => {
    const log = new LogBuilder()
      .turnStart(1)
      .stepStart(1, 1)
      .message(rpcMessage('a', 'UTC'))
      .message(plainMessage('b'))
      .message(rpcMessage('c', 'Asia/Tokyo'))
      .message(buildReadingMessage(1, 1, 'text'))
      .stepEnd(1, 1)
      .stepStart(1, 2)
      .message(rpcMessage('d', 'UTC'))
    expect(foldZones(log.events)).toEqual(['Asia/Tokyo', 'UTC'])
  })

  it('empties at turn/end and at the next turn/start, and ignores messages between turns', () => {
    const log = new LogBuilder().turnStart(1).message(rpcMessage('a', 'UTC')).turnEnd(1)
    expect(foldZones(log.events)).toEqual([])
    log.message(rpcMessage('b', 'Asia/Tokyo'))
    expect(foldZones(log.events)).toEqual([])
    log.turnStart(2).message(rpcMessage('c', 'Europe/Paris'))
    expect(foldZones(log.events)).toEqual(['Europe/Paris'])
    expect(nextTurnZones(['Europe/Paris'], log.draft({ type: 'turn/start', data: { turn: 3 } }), true)).toEqual([])
  })

  it('returns the same list when an event adds no new zone', () => {
    const zones = ['Asia/Tokyo', 'UTC']
    const log = new LogBuilder().message(rpcMessage('a', 'UTC')).message(plainMessage('b')).stepStart(1, 1).requestHeader()
    for (const event of log.events) expect(nextTurnZones(zones, event, true)).toBe(zones)
  })

  it('copies the list instead of changing it when a zone joins', () => {
    const zones = Object.freeze(['UTC'])
    const event = new LogBuilder().push({ type: 'user/message', data: rpcMessage('a', 'Asia/Tokyo'), surfaceOp: 'append' })
    expect(nextTurnZones(zones, event, true)).toEqual(['Asia/Tokyo', 'UTC'])
    expect(zones).toEqual(['UTC'])
  })
})

describe('turnClientZones', () => {
  it('joins the folded zones of the turn with the zones of the proposed batch', () => {
    expect(turnClientZones(['UTC'])).toEqual({ kind: 'resolved', timeZone: 'UTC' })
    expect(turnClientZones(['UTC'], [rpcMessage('a', 'UTC')])).toEqual({ kind: 'resolved', timeZone: 'UTC' })
    expect(turnClientZones(['UTC'], [rpcMessage('a', 'Asia/Tokyo'), plainMessage('b')])).toEqual({
      kind: 'mixed',
      timeZones: ['Asia/Tokyo', 'UTC'],
    })
  })

  it('never hands out the folded list itself', () => {
    const zones = ['Asia/Tokyo', 'UTC']
    const client = turnClientZones(zones)
    expect(client).toEqual({ kind: 'mixed', timeZones: ['Asia/Tokyo', 'UTC'] })
    expect(client.kind === 'mixed' && client.timeZones).not.toBe(zones)
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

import { describe, expect, it } from 'vitest'
import type { SessionHeader } from '../../src/protocol/events.ts'
import { openTurnStartIndex, resolveImplicitZone } from '../../src/schedule/implicit-zone.ts'
import { header, LogBuilder as Log, plainMessage, rpcMessage, sampleReading as reading } from '../support/log-builder.ts'

const CONFIRM =
  'a local at without time_zone needs the Session time zone and the client time zone of this request to be one and the same zone; ask the user which IANA time zone they mean and pass it as at.time_zone'

function resolve(h: SessionHeader, log: Log): unknown {
  const result = resolveImplicitZone(h, log.events)
  return result.ok ? result : result.error.toToolError()
}

function refused(sessionTimeZone: string, clientTimeZones: string[]): unknown {
  return { code: 'timezone_confirmation_required', message: CONFIRM, sessionTimeZone, clientTimeZones }
}

function openStep(...messages: unknown[]): Log {
  const log = new Log().turnStart(1).stepStart(1, 1)
  for (const message of messages) log.message(message)
  return log.toolCall(1, 1)
}

describe('resolveImplicitZone: accepted', () => {
  it('accepts the Session zone when the turn has a reading and one equal client zone', () => {
    expect(resolve(header('Asia/Shanghai'), openStep(rpcMessage('m1', 'Asia/Shanghai'), reading(1, 1)))).toEqual({
      ok: true,
      timeZone: 'Asia/Shanghai',
    })
  })

  it('compares zones canonically and answers the canonical Session zone', () => {
    expect(resolve(header('America/New_York'), openStep(rpcMessage('m1', 'US/Eastern'), reading(1, 1)))).toEqual({
      ok: true,
      timeZone: 'America/New_York',
    })
    expect(resolve(header('US/Eastern'), openStep(rpcMessage('m1', 'America/New_York'), reading(1, 1)))).toEqual({
      ok: true,
      timeZone: 'America/New_York',
    })
  })

  it('counts a reading from an earlier step of the same turn', () => {
    const log = new Log()
      .turnStart(1)
      .stepStart(1, 1)
      .message(rpcMessage('m1', 'Asia/Shanghai'))
      .message(reading(1, 1))
      .toolCall(1, 1)
      .stepEnd(1, 1)
      .stepStart(1, 2)
      .toolCall(1, 2)
    expect(resolve(header('Asia/Shanghai'), log)).toEqual({ ok: true, timeZone: 'Asia/Shanghai' })
  })

  it('ignores client zones of earlier turns', () => {
    const log = new Log()
      .turnStart(1)
      .stepStart(1, 1)
      .message(rpcMessage('m1', 'America/New_York'))
      .message(reading(1, 1))
      .stepEnd(1, 1)
      .turnEnd(1)
      .turnStart(2)
      .stepStart(2, 1)
      .message(rpcMessage('m2', 'Asia/Shanghai'))
      .message(reading(2, 1))
      .toolCall(2, 1)
    expect(resolve(header('Asia/Shanghai'), log)).toEqual({ ok: true, timeZone: 'Asia/Shanghai' })
  })

  it('ignores messages without a browser beside one user-rpc message', () => {
    expect(
      resolve(header('Asia/Shanghai'), openStep(plainMessage('m0'), rpcMessage('m1', 'Asia/Shanghai'), reading(1, 1))),
    ).toEqual({ ok: true, timeZone: 'Asia/Shanghai' })
  })
})

describe('resolveImplicitZone: zones not agreed', () => {
  it('refuses a client zone that differs from the Session zone', () => {
    expect(resolve(header('Asia/Shanghai'), openStep(rpcMessage('m1', 'Europe/Berlin'), reading(1, 1)))).toEqual(
      refused('Asia/Shanghai', ['Europe/Berlin']),
    )
  })

  it('refuses mixed client zones, listing them sorted', () => {
    const log = new Log()
      .turnStart(1)
      .stepStart(1, 1)
      .message(rpcMessage('m1', 'Asia/Shanghai'))
      .message(reading(1, 1))
      .toolCall(1, 1)
      .stepEnd(1, 1)
      .stepStart(1, 2)
      .message(rpcMessage('m2', 'America/New_York'))
      .message(reading(1, 2))
      .toolCall(1, 2)
    expect(resolve(header('Asia/Shanghai'), log)).toEqual(refused('Asia/Shanghai', ['America/New_York', 'Asia/Shanghai']))
  })

  it('refuses a headerless Session, reporting its zone as unavailable', () => {
    expect(resolve(header(), openStep(rpcMessage('m1', 'Asia/Shanghai'), reading(1, 1)))).toEqual(
      refused('unavailable', ['Asia/Shanghai']),
    )
  })

  it('refuses a missing client zone', () => {
    expect(resolve(header('Asia/Shanghai'), openStep(plainMessage('m1'), reading(1, 1)))).toEqual(refused('Asia/Shanghai', []))
  })

  it('refuses without a reading in the open turn, reporting no client zones', () => {
    expect(resolve(header('Asia/Shanghai'), openStep(rpcMessage('m1', 'Asia/Shanghai')))).toEqual(refused('Asia/Shanghai', []))
  })

  it('does not count a reading of an earlier turn', () => {
    const log = new Log()
      .turnStart(1)
      .stepStart(1, 1)
      .message(rpcMessage('m1', 'Asia/Shanghai'))
      .message(reading(1, 1))
      .stepEnd(1, 1)
      .turnEnd(1)
      .turnStart(2)
      .stepStart(2, 1)
      .message(rpcMessage('m2', 'Asia/Shanghai'))
      .toolCall(2, 1)
    expect(resolve(header('Asia/Shanghai'), log)).toEqual(refused('Asia/Shanghai', []))
  })
})

describe('resolveImplicitZone: no open turn', () => {
  it('refuses an empty log', () => {
    expect(resolve(header('Asia/Shanghai'), new Log())).toEqual(refused('Asia/Shanghai', []))
  })

  it('refuses when a step/end comes before any step/start on the way back', () => {
    const log = openStep(rpcMessage('m1', 'Asia/Shanghai'), reading(1, 1)).stepEnd(1, 1)
    expect(resolve(header('Asia/Shanghai'), log)).toEqual(refused('Asia/Shanghai', []))
  })

  it('refuses when a turn/end comes first on the way back', () => {
    const log = openStep(rpcMessage('m1', 'Asia/Shanghai'), reading(1, 1)).stepEnd(1, 1).turnEnd(1)
    expect(resolve(header('Asia/Shanghai'), log)).toEqual(refused('Asia/Shanghai', []))
  })

  it('refuses a step/start without its turn/start', () => {
    const log = new Log().stepStart(1, 1).message(rpcMessage('m1', 'Asia/Shanghai')).message(reading(1, 1))
    expect(resolve(header('Asia/Shanghai'), log)).toEqual(refused('Asia/Shanghai', []))
  })

  it('refuses a step/start whose turn/start names another turn', () => {
    const log = new Log().turnStart(1).stepStart(2, 1).message(rpcMessage('m1', 'Asia/Shanghai')).message(reading(2, 1))
    expect(resolve(header('Asia/Shanghai'), log)).toEqual(refused('Asia/Shanghai', []))
  })

  it('refuses a step/start preceded by a turn/end before any turn/start', () => {
    const log = new Log()
      .turnStart(1)
      .turnEnd(1)
      .stepStart(1, 1)
      .message(rpcMessage('m1', 'Asia/Shanghai'))
      .message(reading(1, 1))
    expect(resolve(header('Asia/Shanghai'), log)).toEqual(refused('Asia/Shanghai', []))
  })
})

describe('resolveImplicitZone: fail-closed reading shapes', () => {
  const exact = reading(1, 1)
  const text = exact.content[0].text
  const source = exact.source as Record<string, unknown>
  const section = { name: 'time-context', text }

  it.each([
    ['an extra key in the source', { ...exact, source: { ...source, zone: 'Asia/Shanghai' } }],
    ['an extra key in the section', { ...exact, source: { ...source, sections: [{ ...section, zone: 'x' }] } }],
    ['array-like sections', { ...exact, source: { ...source, sections: { 0: section, length: 1 } } }],
    ['two sections', { ...exact, source: { ...source, sections: [section, section] } }],
    ['no sections', { ...exact, source: { ...source, sections: [] } }],
    ['section text differing from the content', { ...exact, source: { ...source, sections: [{ ...section, text: `${text} ` }] } }],
    ['another form', { ...exact, source: { ...source, form: 'summary' } }],
    ['another plugin', { ...exact, source: { ...source, plugin: 'time-context2' } }],
    ['two content blocks', { ...exact, content: [exact.content[0], exact.content[0]] }],
    ['an extra key in the content block', { ...exact, content: [{ ...exact.content[0], extra: 1 }] }],
    ['a missing source', { ...exact, source: undefined }],
  ])('does not count a reading with %s', (_name, message) => {
    expect(resolve(header('Asia/Shanghai'), openStep(rpcMessage('m1', 'Asia/Shanghai'), message))).toEqual(
      refused('Asia/Shanghai', []),
    )
  })
})

describe('openTurnStartIndex', () => {
  it('finds the turn/start of the open step', () => {
    const log = new Log().turnStart(1).stepStart(1, 1).stepEnd(1, 1).turnEnd(1).turnStart(2).stepStart(2, 1).toolCall(2, 1)
    expect(openTurnStartIndex(log.events)).toBe(4)
  })

  it('is -1 without an open step', () => {
    expect(openTurnStartIndex(new Log().turnStart(1).events)).toBe(-1)
    expect(openTurnStartIndex(new Log().turnStart(1).stepStart(1, 1).stepEnd(1, 1).events)).toBe(-1)
  })
})

import { describe, expect, it } from 'vitest'
import { surfaceFold, titleFold } from '../../src/host/index.ts'
import type { SessionEvent } from '../../src/protocol/index.ts'

const T = Date.UTC(2026, 6, 15, 6, 0, 0)

function fold<S>(f: { init: (header: never) => S; apply: (state: S, event: SessionEvent) => S }, events: SessionEvent[]): S {
  let state = f.init(undefined as never)
  for (const event of events) state = f.apply(state, event)
  return state
}

function user(seq: number, texts: string[], surfaceOp?: SessionEvent['surfaceOp']): SessionEvent {
  return {
    seq,
    time: T + seq,
    type: 'user/message',
    data: { id: `m-${seq}`, content: texts.map((text) => ({ type: 'text', text })), source: { kind: 'user', rpcId: `rpc-${seq}`, clientTimeZone: 'Europe/Berlin' } },
    ...(surfaceOp === undefined ? {} : { surfaceOp }),
  } as SessionEvent
}

function assistant(seq: number, text: string, calls: { name: string; arguments: string }[] = []): SessionEvent {
  return {
    seq,
    time: T + seq,
    type: 'assistant/message',
    data: { content: [{ type: 'text', text }], ...(calls.length === 0 ? {} : { toolCalls: calls.map((call, i) => ({ id: `c-${i}`, ...call })) }) },
  } as SessionEvent
}

describe('host/surface fold', () => {
  it('keeps each surface message with its size, and drops the sizes of a replaced range', () => {
    const events = [
      user(1, ['hello', ' there']),
      assistant(2, 'hi', [{ name: 'schedule_list', arguments: '{}' }]),
      { seq: 3, time: T + 3, type: 'turn/end', data: { turn: 1, reason: 'completed' } } as SessionEvent,
      user(4, ['four']),
    ]
    expect(fold(surfaceFold, events)).toEqual({ seqs: [1, 2, 4], chars: 11 + 2 + 13 + 2 + 4, sizes: [11, 17, 4], sinceCompaction: 3 })
    const compacted = fold(surfaceFold, [...events, user(5, ['summary'], { op: 'replace', start: 1, end: 2 }), user(6, ['after'])])
    expect(compacted).toEqual({ seqs: [4, 5, 6], chars: 4 + 7 + 5, sizes: [4, 7, 5], sinceCompaction: 1 })
  })
})

describe('host/title fold', () => {
  it('joins a message of several blocks and of one block alike', () => {
    expect(fold(titleFold, [user(1, ['call ', ' mum', '  tomorrow'])])).toEqual({ title: 'call mum tomorrow', renamed: false })
    expect(fold(titleFold, [user(1, ['  water the plants '])])).toEqual({ title: 'water the plants', renamed: false })
  })
})

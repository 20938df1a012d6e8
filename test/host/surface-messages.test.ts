import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/protocol/index.ts'
import { SurfaceMessages } from '../../src/host/surface.ts'

const events: SessionEvent[] = [
  { seq: 0, time: 1, type: 'user/message', data: { id: 'm0', role: 'user', content: [{ type: 'text', text: 'hel' }, { type: 'text', text: 'lo' }], source: { kind: 'user' } } },
  { seq: 1, time: 2, type: 'turn/start', data: { turn: 1 } },
  { seq: 2, time: 3, type: 'assistant/message', data: { turn: 1, step: 1, id: 'a2', content: [{ type: 'text', text: 'calling' }], toolCalls: [{ callId: 'c1', name: 'clock', arguments: '{}' }] } },
  { seq: 3, time: 4, type: 'tool/result', data: { turn: 1, step: 1, callId: 'c1', content: [{ type: 'text', text: 'noon' }], isError: true } },
  { seq: 4, time: 5, type: 'assistant/message', data: { turn: 1, step: 2, id: 'a4', content: [{ type: 'text', text: 'It is noon.' }] } },
] as SessionEvent[]

const at = (seq: number): SessionEvent => events[seq] as SessionEvent

const USER = { role: 'user', text: 'hello' }
const CALLING = { role: 'assistant', text: 'calling', toolCalls: [{ callId: 'c1', name: 'clock', arguments: '{}' }] }
const RESULT = { role: 'tool', callId: 'c1', text: 'noon', isError: true }
const NOON = { role: 'assistant', text: 'It is noon.', toolCalls: [] }

describe('SurfaceMessages', () => {
  it('converts only what the surface gained since the last call, and hands out arrays the caller keeps', () => {
    const surface = new SurfaceMessages()
    const seqs = [0, 2]
    const converted: number[] = []
    const counting = (seq: number): SessionEvent => {
      converted.push(seq)
      return at(seq)
    }
    const first = surface.of(seqs, counting)
    expect(first).toEqual([USER, CALLING])
    seqs.push(3, 4)
    const second = surface.of(seqs, counting)
    expect(second).toEqual([USER, CALLING, RESULT, NOON])
    expect(first).toEqual([USER, CALLING])
    expect(converted).toEqual([0, 2, 3, 4])
    expect(surface.of(seqs, counting)).toEqual(second)
    expect(converted).toEqual([0, 2, 3, 4])
  })

  it('rebuilds for another seqs array (a compaction) or a shorter one', () => {
    const surface = new SurfaceMessages()
    const seqs = [0, 2, 3, 4]
    expect(surface.of(seqs, at)).toEqual([USER, CALLING, RESULT, NOON])
    expect(surface.of([4], at)).toEqual([NOON])
    const shrunk = [0, 2, 3]
    expect(surface.of(shrunk, at)).toEqual([USER, CALLING, RESULT])
    shrunk.length = 1
    expect(surface.of(shrunk, at)).toEqual([USER])
  })

  it('refuses a surface seq that is not a message event', () => {
    expect(() => new SurfaceMessages().of([1], at)).toThrow(new Error('surface seq 1 is not a message event'))
  })
})

import { describe, expect, it } from 'vitest'
import { SseParser } from '../../src/overlay/lib/sse-parser.ts'

describe('SseParser', () => {
  it('parses events split across chunks anywhere, with ids, names and multi-line data', () => {
    const wire = 'id: 7\nevent: session\ndata: {"a":1}\n\n: keep-alive\n\nevent: reminder-due\ndata: line one\ndata: line two\r\n\r\ndata: plain\n\n'
    for (const size of [1, 3, 7, wire.length]) {
      const parser = new SseParser()
      const out = []
      for (let i = 0; i < wire.length; i += size) out.push(...parser.push(wire.slice(i, i + size)))
      expect(out).toEqual([
        { event: 'session', data: '{"a":1}', id: '7' },
        { event: 'reminder-due', data: 'line one\nline two', id: null },
        { event: 'message', data: 'plain', id: null },
      ])
      expect(parser.lastEventId).toBe('7')
    }
  })

  it('waits for the blank line before dispatching and ignores events without data', () => {
    const parser = new SseParser()
    expect(parser.push('event: x\ndata: 1\n')).toEqual([])
    expect(parser.push('\nevent: empty\n\n')).toEqual([{ event: 'x', data: '1', id: null }])
  })

  it('keeps a CR at a chunk end until it knows whether LF follows', () => {
    const parser = new SseParser()
    expect(parser.push('data: a\r')).toEqual([])
    expect(parser.push('\n\r\n')).toEqual([{ event: 'message', data: 'a', id: null }])
  })
})

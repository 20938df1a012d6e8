import { describe, expect, it } from 'vitest'
import type { SessionEvent, SessionHeader } from '../../src/protocol/events.ts'
import { contiguousEnd, hasGap, lastSeq, mergeEvents } from '../../src/overlay/lib/event-log.ts'

const header: SessionHeader = { type: 'session', version: 1, id: 's1', createdAt: 1, timeZone: 'Asia/Shanghai' }
const turnStart = (seq: number): SessionEvent => ({ seq, time: 1000 + seq, type: 'turn/start', data: { turn: seq + 1 } })

describe('mergeEvents', () => {
  it('creates a log from nothing, sorted by seq, with the header', () => {
    expect(mergeEvents(undefined, [turnStart(1), turnStart(0)], header)).toEqual({ header, events: [turnStart(0), turnStart(1)] })
  })

  it('drops events whose seq is already held and keeps the held copy', () => {
    const held = mergeEvents(undefined, [turnStart(0), turnStart(1)], header)
    const replay = { ...turnStart(1), time: 99 } as SessionEvent
    const merged = mergeEvents(held, [replay, turnStart(2), turnStart(2)])
    expect(merged.events).toEqual([turnStart(0), turnStart(1), turnStart(2)])
  })

  it('returns the same log object when nothing new arrives', () => {
    const held = mergeEvents(undefined, [turnStart(0)], header)
    expect(mergeEvents(held, [turnStart(0)])).toBe(held)
    expect(mergeEvents(held, [])).toBe(held)
  })

  it('fills a gap in order', () => {
    const held = mergeEvents(undefined, [turnStart(0), turnStart(3)], header)
    expect(mergeEvents(held, [turnStart(2), turnStart(1)]).events.map((e) => e.seq)).toEqual([0, 1, 2, 3])
  })

  it('keeps the first header it learned', () => {
    const held = mergeEvents(undefined, [], header)
    const other: SessionHeader = { ...header, timeZone: 'UTC' }
    expect(mergeEvents(held, [turnStart(0)], other).header).toBe(header)
    expect(mergeEvents(undefined, [turnStart(0)]).header).toBeNull()
  })
})

describe('contiguousEnd, lastSeq and hasGap', () => {
  it('reports -1 for an empty log', () => {
    expect(contiguousEnd([])).toBe(-1)
    expect(lastSeq([])).toBe(-1)
    expect(hasGap([])).toBe(false)
  })

  it('finds the end of the run that starts at seq 0', () => {
    const events = [turnStart(0), turnStart(1), turnStart(3)]
    expect(contiguousEnd(events)).toBe(1)
    expect(lastSeq(events)).toBe(3)
    expect(hasGap(events)).toBe(true)
  })

  it('treats a log without seq 0 as having a gap', () => {
    expect(contiguousEnd([turnStart(4)])).toBe(-1)
    expect(hasGap([turnStart(4)])).toBe(true)
  })

  it('sees no gap in a contiguous log', () => {
    expect(hasGap([turnStart(0), turnStart(1)])).toBe(false)
  })
})

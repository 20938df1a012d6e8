import { describe, expect, it } from 'vitest'
import {
  EMPTY_TIME_CONTEXT_INDEX,
  applyToTimeContextIndex,
  timeContextIndexFold,
} from '../../src/plugin/index-fold.ts'
import type { TimeContextIndex } from '../../src/plugin/index-fold.ts'
import { buildReadingMessage } from '../../src/protocol/index.ts'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { LogBuilder, header, plainMessage, rpcMessage } from '../support/log-builder.ts'

function fold(events: readonly SessionEvent[]): TimeContextIndex {
  let state = timeContextIndexFold.init(header('UTC'))
  for (const event of events) state = timeContextIndexFold.apply(state, event)
  return state
}

describe('timeContextIndexFold', () => {
  it('starts empty', () => {
    expect(timeContextIndexFold.name).toBe('time-context/index')
    expect(timeContextIndexFold.init(header())).toEqual({
      lastModelVisibleTime: null,
      lastReadingTime: null,
      turn: null,
      turnZones: [],
      turnReadingTime: null,
    })
    expect(timeContextIndexFold.validate).toBeUndefined()
  })

  it('tracks the open turn, its zones and its latest reading', () => {
    const log = new LogBuilder()
      .turnStart(1, 100)
      .stepStart(1, 1, 100)
      .message(rpcMessage('m1', 'UTC'), 110)
      .message(rpcMessage('m2', 'Asia/Tokyo'), 120)
      .message(plainMessage('m3'), 130)
      .message(buildReadingMessage(1, 1, 'r'), 140)
      .requestHeader(150)
      .assistant(1, 1, 160)
      .toolCall(1, 1, 170)
      .toolResult(1, 1, 180)
      .stepEnd(1, 1, 190)
    expect(fold(log.events)).toEqual({
      lastModelVisibleTime: 180,
      lastReadingTime: 140,
      turn: 1,
      turnZones: ['Asia/Tokyo', 'UTC'],
      turnReadingTime: 140,
    })
  })

  it('closes the turn on turn/end but keeps the session-wide times', () => {
    const log = new LogBuilder()
      .turnStart(1, 100)
      .stepStart(1, 1, 100)
      .message(rpcMessage('m1', 'UTC'), 110)
      .message(buildReadingMessage(1, 1, 'r'), 140)
      .assistant(1, 1, 160)
      .stepEnd(1, 1, 190)
      .turnEnd(1, 200)
    expect(fold(log.events)).toEqual({
      lastModelVisibleTime: 160,
      lastReadingTime: 140,
      turn: null,
      turnZones: [],
      turnReadingTime: null,
    })
  })

  it('starts every turn with no zones and no reading', () => {
    const log = new LogBuilder()
      .turnStart(1, 100)
      .message(rpcMessage('m1', 'UTC'), 110)
      .message(buildReadingMessage(1, 1, 'r'), 140)
      .turnStart(2, 300)
    expect(fold(log.events)).toEqual({
      lastModelVisibleTime: 140,
      lastReadingTime: 140,
      turn: 2,
      turnZones: [],
      turnReadingTime: null,
    })
  })

  it('counts messages outside a turn as model-visible but not as turn zones', () => {
    const log = new LogBuilder().message(rpcMessage('m1', 'UTC'), 50).message(buildReadingMessage(1, 1, 'r'), 60)
    expect(fold(log.events)).toEqual({ ...EMPTY_TIME_CONTEXT_INDEX, lastModelVisibleTime: 60, lastReadingTime: 60 })
  })

  it('keeps readings and messages shadowed by compaction (raw log)', () => {
    const log = new LogBuilder()
      .turnStart(1, 100)
      .message(rpcMessage('m1', 'UTC'), 110)
      .message(buildReadingMessage(1, 1, 'r'), 140)
      .assistant(1, 1, 160)
      .turnEnd(1, 200)
      .compact(0, 4, 150)
    expect(fold(log.events)).toEqual({ ...EMPTY_TIME_CONTEXT_INDEX, lastModelVisibleTime: 150, lastReadingTime: 140 })
  })

  it('returns the same state for events it does not track', () => {
    const before = fold(new LogBuilder().turnStart(1, 100).message(rpcMessage('m1', 'UTC'), 110).events)
    const log = new LogBuilder().stepStart(1, 1, 1).requestHeader(2).toolCall(1, 1, 3).stepEnd(1, 1, 4).scheduleChange(5)
    log.push({ type: 'compact/summary', data: { shadowedFrom: 0, shadowedTo: 1, summary: 's' } }, 6)
    log.push({ type: 'inbox/enqueued', data: { target: 'next-step', message: rpcMessage('q', 'Asia/Tokyo') } }, 7)
    log.push({ type: 'inbox/dropped', data: { ids: ['q'], reason: 'cancel' } }, 8)
    for (const event of log.events) expect(applyToTimeContextIndex(before, event)).toBe(before)
  })

  it('shares the zone list when a message repeats a known zone', () => {
    const state = fold(new LogBuilder().turnStart(1, 100).message(rpcMessage('m1', 'UTC'), 110).events)
    const next = applyToTimeContextIndex(state, new LogBuilder().draft({ type: 'user/message', data: rpcMessage('m2', 'UTC') }, 120))
    expect(next.turnZones).toBe(state.turnZones)
    expect(next.lastModelVisibleTime).toBe(120)
  })

  it('never mutates the state it is given', () => {
    const log = new LogBuilder()
      .turnStart(1, 100)
      .message(rpcMessage('m1', 'UTC'), 110)
      .message(rpcMessage('m2', 'Asia/Tokyo'), 120)
      .message(buildReadingMessage(1, 1, 'r'), 140)
      .turnEnd(1, 200)
    let state: TimeContextIndex = Object.freeze({ ...EMPTY_TIME_CONTEXT_INDEX })
    for (const event of log.events) {
      const snapshot = structuredClone(state)
      const next = Object.freeze(applyToTimeContextIndex(state, event))
      expect(state).toEqual(snapshot)
      state = next
    }
  })

  it('is a pure function of the events: a rebuild from the parsed log equals the live fold', () => {
    const log = new LogBuilder()
      .turnStart(1, 100)
      .message(rpcMessage('m1', 'UTC'), 110)
      .message(buildReadingMessage(1, 1, 'r'), 140)
      .turnEnd(1, 200)
      .turnStart(2, 300)
      .message(rpcMessage('m2', 'Europe/Paris'), 310)
    const reparsed = log.events.map((event) => JSON.parse(JSON.stringify(event)) as SessionEvent)
    expect(fold(reparsed)).toEqual(fold(log.events))
  })
})

import { describe, expect, it } from 'vitest'
import { checkSessionLog } from '../../src/invariant/check-session-log.ts'
import { InvariantError } from '../../src/invariant/invariant-error.ts'
import { INITIAL_INVARIANT_STATE, applyToInvariantState, invariantFold } from '../../src/invariant/invariant-fold.ts'
import { createInvariantPlugin } from '../../src/invariant/invariant-plugin.ts'
import { decideReading } from '../../src/plugin/decide.ts'
import { EMPTY_TIME_CONTEXT_INDEX, applyToTimeContextIndex } from '../../src/plugin/index-fold.ts'
import type { TimeContextIndex } from '../../src/plugin/index-fold.ts'
import type { SessionEvent, SessionHeader, UserMessage } from '../../src/protocol/events.ts'
import { fakeContext } from '../plugin/fake-context.ts'
import { LogBuilder, header, plainMessage, reading, readingEvent, rpcMessage, stateOf, text } from './builder.ts'

const X = Date.UTC(2026, 0, 1, 0, 0, 0)
const UTC = header('UTC')
const VALID = text(
  'Time sampled while preparing turn 1, step 1: 2026-01-01T00:00:01+00:00[UTC]',
  'Session time zone: UTC.',
  'Client time zone for this request: Europe/Paris.',
  'Elapsed since the preceding model-visible message: unavailable.',
)

function openStep(): LogBuilder {
  return new LogBuilder().turnStart(1, X).stepStart(1, 1, X).message(rpcMessage('m', 'Europe/Paris'), X)
}

describe('InvariantError', () => {
  it('carries the reason, the seq and the SPEC message', () => {
    const error = new InvariantError('time-context step 2 already has a reading', 17)
    expect(error).toBeInstanceOf(Error)
    expect(error.message).toBe('invariant violated by "time-context": time-context step 2 already has a reading')
    expect(error.reason).toBe('time-context step 2 already has a reading')
    expect(error.seq).toBe(17)
    expect(error.name).toBe('InvariantError')
    expect(error.code).toBe('time-context-invariant')
  })
})

describe('invariantFold', () => {
  it('folds positions over every event', () => {
    expect(invariantFold.name).toBe('time-context/invariant')
    expect(invariantFold.init(UTC)).toEqual({
      openTurn: null,
      openStep: null,
      headerInStep: false,
      readingInStep: false,
      turnZones: [],
      lastModelVisibleTime: null,
      stepBaselineTime: null,
      turnReadingTime: null,
    })
    const log = new LogBuilder()
      .assistant(0, 1, X - 5)
      .turnStart(1, X)
      .stepStart(1, 1, X + 1)
      .message(rpcMessage('a', 'Europe/Paris'), X + 2)
      .message(rpcMessage('b', 'Asia/Tokyo'), X + 3)
      .message(reading(VALID), X + 4)
      .requestHeader(X + 5)
    expect(stateOf(UTC, log.events)).toEqual({
      openTurn: 1,
      openStep: 1,
      headerInStep: true,
      readingInStep: true,
      turnZones: ['Asia/Tokyo', 'Europe/Paris'],
      lastModelVisibleTime: X + 4,
      stepBaselineTime: X - 5,
      turnReadingTime: X + 4,
    })
    log.assistant(1, 1, X + 6).toolResult(1, 1, X + 7).stepEnd(1, 1, X + 8).stepStart(1, 2, X + 9)
    expect(stateOf(UTC, log.events)).toEqual({
      openTurn: 1,
      openStep: 2,
      headerInStep: false,
      readingInStep: false,
      turnZones: ['Asia/Tokyo', 'Europe/Paris'],
      lastModelVisibleTime: X + 7,
      stepBaselineTime: X + 7,
      turnReadingTime: X + 4,
    })
    log.stepEnd(1, 2, X + 10).turnEnd(1, X + 11)
    expect(stateOf(UTC, log.events)).toEqual({
      ...INITIAL_INVARIANT_STATE,
      lastModelVisibleTime: X + 7,
      stepBaselineTime: X + 7,
    })
  })

  it('returns the same state for events that change no position', () => {
    const state = stateOf(UTC, openStep().events)
    const log = new LogBuilder().toolCall(1, 1, X).scheduleChange(X)
    log.push({ type: 'compact/summary', data: { shadowedFrom: 0, shadowedTo: 1, summary: 's' } }, X)
    log.push({ type: 'inbox/enqueued', data: { target: 'next-turn', message: plainMessage('q') } }, X)
    log.push({ type: 'inbox/dropped', data: { ids: ['q'], reason: 'cancel' } }, X)
    for (const event of log.events) expect(applyToInvariantState(state, event)).toBe(state)
  })

  it('validates without changing the state it was given', () => {
    const state = Object.freeze(stateOf(UTC, openStep().events))
    const snapshot = structuredClone(state)
    const log = openStep()
    expect(() => invariantFold.validate?.(state, readingEvent(log, reading('bad'), X + 1000), UTC)).toThrow(InvariantError)
    invariantFold.validate?.(state, readingEvent(log, reading(VALID), X + 1000), UTC)
    expect(state).toEqual(snapshot)
  })
})

describe('checkSessionLog', () => {
  it('accepts an empty log and a log without readings', () => {
    expect(checkSessionLog(UTC, [])).toEqual({ ok: true })
    expect(checkSessionLog(UTC, openStep().events)).toEqual({ ok: true })
  })

  it('reports the first violation with its seq and message', () => {
    const log = openStep().message(reading(VALID), X + 1000).message(reading(VALID), X + 1000).message(reading('bad'), X + 1000)
    expect(checkSessionLog(UTC, log.events)).toEqual({
      ok: false,
      seq: 4,
      message: 'invariant violated by "time-context": time-context step 1 already has a reading',
    })
  })

  it('reads the events once from any iterable', () => {
    const events = openStep().message(reading(VALID), X + 1000).events
    let reads = 0
    function* stream(): Generator<SessionEvent> {
      for (const event of events) {
        reads += 1
        yield event
      }
    }
    expect(checkSessionLog(UTC, stream())).toEqual({ ok: true })
    expect(reads).toBe(events.length)
  })

  it('lets errors that are not invariant failures through', () => {
    const broken = { seq: 0, time: X, type: 'turn/start', data: null } as unknown as SessionEvent
    expect(() => checkSessionLog(UTC, [broken])).toThrow(TypeError)
  })
})

describe('createInvariantPlugin', () => {
  it('registers only the invariant fold', () => {
    const plugin = createInvariantPlugin()
    const fake = fakeContext([X])
    void plugin.install(fake.ctx)
    expect(plugin.name).toBe('time-context-invariant')
    expect(fake.folds).toEqual([invariantFold])
    expect(fake.folds[0]).toBe(invariantFold)
    expect(fake.listeners).toEqual([])
    expect(fake.tools).toEqual([])
    expect(fake.callbacks).toEqual([])
  })
})

function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0
    return state / 2 ** 32
  }
}

function simulate(seed: number, hdr: SessionHeader, refreshIntervalMs: number): { events: SessionEvent[]; readings: number } {
  const rand = random(seed)
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]
  const zones = ['Asia/Shanghai', 'America/New_York', 'Asia/Kathmandu', 'UTC', 'Australia/Lord_Howe']
  const log = new LogBuilder()
  let index: TimeContextIndex = EMPTY_TIME_CONTEXT_INDEX
  let state = invariantFold.init(hdr)
  const push = (event: SessionEvent): void => {
    invariantFold.validate?.(state, event, hdr)
    state = invariantFold.apply(state, event)
    index = applyToTimeContextIndex(index, event)
    log.events.push(event)
  }
  let clock = X
  let readings = 0
  const message = (id: string): UserMessage => (rand() < 0.7 ? rpcMessage(id, pick(zones)) : plainMessage(id))
  for (let turn = 1; turn <= 40; turn += 1) {
    clock += Math.floor(rand() * 3 * 3_600_000) - (rand() < 0.15 ? 4 * 3_600_000 : 0)
    push(log.draft({ type: 'turn/start', data: { turn } }, clock))
    const steps = 1 + Math.floor(rand() * 4)
    for (let step = 1; step <= steps; step += 1) {
      const batch = step === 1 || rand() < 0.5 ? Array.from({ length: 1 + Math.floor(rand() * 2) }, (_, i) => message(`m-${turn}-${step}-${i}`)) : []
      const now = clock + Math.floor(rand() * 1500) - (rand() < 0.1 ? 10_000 : 0)
      const decided = batch.length === 0 ? null : decideReading({ index, header: hdr, fallbackZone: 'Asia/Kolkata', refreshIntervalMs, turn, step, messages: batch, now })
      clock = now + Math.floor(rand() * 2000)
      push(log.draft({ type: 'step/start', data: { turn, step } }, clock))
      for (const entered of decided === null ? batch : [...batch, decided]) {
        push(log.draft({ type: 'user/message', data: entered, surfaceOp: 'append' }, clock))
      }
      if (decided !== null) readings += 1
      if (rand() < 0.3) push(log.draft({ type: 'request/header', data: { model: 'fake', tools: [], reason: 'change' } }, clock))
      clock += Math.floor(rand() * 20_000)
      push(log.draft({ type: 'assistant/message', data: { turn, step, id: `a-${turn}-${step}`, content: [{ type: 'text', text: 'ok' }] } }, clock))
      if (step < steps) push(log.draft({ type: 'tool/result', data: { turn, step, callId: `c-${turn}-${step}`, content: [{ type: 'text', text: 'r' }] } }, clock))
      push(log.draft({ type: 'step/end', data: { turn, step } }, clock))
    }
    push(log.draft({ type: 'turn/end', data: { turn, reason: 'completed' } }, clock))
    if (rand() < 0.2 && log.events.length > 4) {
      const end = log.events.length - 1
      push(log.draft({ type: 'compact/summary', data: { shadowedFrom: 0, shadowedTo: end, summary: 's' } }, clock))
      const summary: UserMessage = { id: `c-${turn}`, role: 'user', content: [{ type: 'text', text: 's' }], source: { kind: 'plugin', plugin: 'compact' } }
      push(log.draft({ type: 'user/message', data: summary, surfaceOp: { op: 'replace', start: 0, end } }, clock))
    }
  }
  return { events: log.events, readings }
}

describe('the plugin and its companion agree', () => {
  it.each([
    [1, 'Asia/Shanghai', 0],
    [2, 'Asia/Kathmandu', 0],
    [3, undefined, 0],
    [4, 'America/New_York', 3_600_000],
    [5, undefined, 600_000],
    [6, 'Australia/Lord_Howe', 1],
  ])('accepts every reading the plugin decides (seed %i, zone %s, interval %i)', (seed, zone, interval) => {
    const hdr = header(zone)
    const { events, readings } = simulate(seed, hdr, interval)
    expect(readings).toBeGreaterThan(10)
    expect(checkSessionLog(hdr, events)).toEqual({ ok: true })
  })
})

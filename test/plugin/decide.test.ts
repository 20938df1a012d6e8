import { describe, expect, it } from 'vitest'
import { decideReading, intervalSuppresses } from '../../src/plugin/decide.ts'
import type { ReadingDecisionInput } from '../../src/plugin/decide.ts'
import { EMPTY_TIME_CONTEXT_INDEX, applyToTimeContextIndex } from '../../src/plugin/index-fold.ts'
import type { TimeContextIndex } from '../../src/plugin/index-fold.ts'
import { buildReadingMessage } from '../../src/protocol/index.ts'
import type { SessionEvent, UserMessage } from '../../src/protocol/events.ts'
import { LogBuilder, header, plainMessage, pluginMessage, rpcMessage } from '../support/log-builder.ts'

const T = Date.UTC(2026, 6, 15, 1, 1, 1)
const SHANGHAI_T = '2026-07-15T09:01:01+08:00[Asia/Shanghai]'
const S = 1000
const M = 60 * S
const H = 60 * M
const D = 24 * H

function indexOf(events: readonly SessionEvent[]): TimeContextIndex {
  return events.reduce(applyToTimeContextIndex, EMPTY_TIME_CONTEXT_INDEX)
}

function decide(log: LogBuilder, input: Partial<ReadingDecisionInput>): UserMessage | null {
  return decideReading({
    index: indexOf(log.events),
    header: header('Asia/Shanghai'),
    fallbackZone: 'UTC',
    refreshIntervalMs: 0,
    turn: 1,
    step: 1,
    messages: [rpcMessage('m1', 'Asia/Shanghai')],
    now: T,
    ...input,
  })
}

function textOf(message: UserMessage | null): string | null {
  return message === null ? null : message.content[0].text
}

function lines(...all: string[]): string {
  return all.join('\n')
}

function elapsedLine(message: UserMessage | null): string | undefined {
  return textOf(message)?.split('\n')[3]
}

describe('decideReading text', () => {
  it('renders a resolved client zone and builds the exact reading message', () => {
    const text = lines(
      `Time sampled while preparing turn 1, step 1: ${SHANGHAI_T}`,
      'Session time zone: Asia/Shanghai.',
      'Client time zone for this request: Asia/Shanghai.',
      'Elapsed since the preceding model-visible message: unavailable.',
    )
    expect(decide(new LogBuilder().turnStart(1, T - 5 * S), { now: T + 500 })).toStrictEqual(buildReadingMessage(1, 1, text))
  })

  it('renders mixed zones from earlier user-rpc messages of the turn plus the batch', () => {
    const log = new LogBuilder()
      .turnStart(2, T - 2 * M)
      .stepStart(2, 1, T - 2 * M)
      .message(rpcMessage('m1', 'America/New_York'), T - 2 * M)
      .message(buildReadingMessage(2, 1, 'r'), T - M - S)
      .assistant(2, 1, T - M)
      .toolResult(2, 1, T - M)
      .stepEnd(2, 1, T - M)
    expect(textOf(decide(log, { turn: 2, step: 2, messages: [rpcMessage('m2', 'Asia/Shanghai')] }))).toBe(
      lines(
        `Time sampled while preparing turn 2, step 2: ${SHANGHAI_T}`,
        'Session time zone: Asia/Shanghai.',
        'Client time zone for this request: mixed ["America/New_York","Asia/Shanghai"].',
        'Elapsed since the preceding step context: 1m 1s.',
      ),
    )
  })

  it('renders mixed zones within one batch', () => {
    const messages = [rpcMessage('a', 'UTC'), rpcMessage('b', 'Asia/Shanghai'), rpcMessage('c', 'UTC')]
    expect(textOf(decide(new LogBuilder().turnStart(1, T), { messages }))?.split('\n')[2]).toBe(
      'Client time zone for this request: mixed ["Asia/Shanghai","UTC"].',
    )
  })

  it('renders missing when no message of the turn came from a browser', () => {
    const messages = [plainMessage('cli'), pluginMessage('follow-up', 'schedule')]
    expect(textOf(decide(new LogBuilder().turnStart(1, T), { messages }))).toBe(
      lines(
        `Time sampled while preparing turn 1, step 1: ${SHANGHAI_T}`,
        'Session time zone: Asia/Shanghai.',
        'Client time zone for this request: missing.',
        'Elapsed since the preceding model-visible message: unavailable.',
      ),
    )
  })

  it('renders a headerless session in the fallback zone and reports its Session zone unavailable', () => {
    const text = textOf(
      decide(new LogBuilder().turnStart(1, T), { header: header(), fallbackZone: 'America/New_York', messages: [rpcMessage('m1', 'Asia/Shanghai')] }),
    )
    expect(text).toBe(
      lines(
        'Time sampled while preparing turn 1, step 1: 2026-07-14T21:01:01-04:00[America/New_York]',
        'Session time zone: unavailable.',
        'Client time zone for this request: Asia/Shanghai.',
        'Elapsed since the preceding model-visible message: unavailable.',
      ),
    )
  })

  it('never lets the fallback zone override a Session zone', () => {
    expect(textOf(decide(new LogBuilder().turnStart(1, T), { fallbackZone: 'America/New_York' }))?.split('\n')[0]).toBe(
      `Time sampled while preparing turn 1, step 1: ${SHANGHAI_T}`,
    )
  })

  it('renders the Session zone with half-hour and 45-minute offsets', () => {
    expect(textOf(decide(new LogBuilder().turnStart(1, T), { header: header('Asia/Kathmandu') }))?.split('\n').slice(0, 2)).toEqual([
      'Time sampled while preparing turn 1, step 1: 2026-07-15T06:46:01+05:45[Asia/Kathmandu]',
      'Session time zone: Asia/Kathmandu.',
    ])
  })

  it('renders UTC as +00:00', () => {
    expect(textOf(decide(new LogBuilder().turnStart(1, T), { header: header('UTC') }))?.split('\n')[0]).toBe(
      'Time sampled while preparing turn 1, step 1: 2026-07-15T01:01:01+00:00[UTC]',
    )
  })

  it('ignores zones of earlier turns and of messages outside any turn', () => {
    const log = new LogBuilder()
      .message(rpcMessage('early', 'Europe/Paris'), T - 3 * H)
      .turnStart(1, T - 2 * H)
      .message(rpcMessage('m1', 'America/New_York'), T - 2 * H)
      .turnEnd(1, T - 2 * H)
      .turnStart(2, T - S)
    expect(textOf(decide(log, { turn: 2, messages: [plainMessage('m2')] }))?.split('\n')[2]).toBe(
      'Client time zone for this request: missing.',
    )
  })

  it('ignores turn-scoped facts when the index names another turn', () => {
    const log = new LogBuilder()
      .turnStart(1, T - H)
      .message(rpcMessage('m1', 'America/New_York'), T - H)
      .message(buildReadingMessage(1, 1, 'r'), T - H)
    const text = textOf(decide(log, { turn: 2, step: 2, messages: [plainMessage('m2')] }))
    expect(text?.split('\n').slice(2)).toEqual([
      'Client time zone for this request: missing.',
      'Elapsed since the preceding step context: unavailable.',
    ])
  })
})

describe('decideReading baselines', () => {
  it.each([
    [D + H + M + S, '1d 1h 1m 1s'],
    [M + S, '1m 1s'],
    [H, '1h 0s'],
    [999, '0s'],
    [0, '0s'],
  ])('measures step 1 from the latest model-visible message (%i ms → %s)', (span, duration) => {
    const log = new LogBuilder().assistant(0, 1, T - span).turnStart(1, T)
    expect(elapsedLine(decide(log, {}))).toBe(`Elapsed since the preceding model-visible message: ${duration}.`)
  })

  it('measures step 1 from the latest of user/message, assistant/message and tool/result', () => {
    const base = (): LogBuilder =>
      new LogBuilder().turnStart(1, T - 3 * D).stepStart(1, 1, T - 3 * D).message(rpcMessage('m1', 'UTC'), T - 2 * D)
    const afterAssistant = base().assistant(1, 1, T - D)
    const afterTool = base().assistant(1, 1, T - D).toolCall(1, 1, T - D).toolResult(1, 1, T - H)
    const afterUser = base().message(plainMessage('m2'), T - M)
    const afterReading = base().message(buildReadingMessage(1, 1, 'r'), T - S)
    for (const [log, duration] of [
      [afterAssistant, '1d 0s'],
      [afterTool, '1h 0s'],
      [afterUser, '1m 0s'],
      [afterReading, '1s'],
    ] as const) {
      log.stepEnd(1, 1, T - 1).turnEnd(1, T - 1).scheduleChange(T - 1).turnStart(2, T - 1)
      expect(elapsedLine(decide(log, { turn: 2 }))).toBe(`Elapsed since the preceding model-visible message: ${duration}.`)
    }
  })

  it('measures step 1 from events shadowed by compaction (raw log)', () => {
    const log = new LogBuilder().turnStart(1, T - 2 * H).assistant(1, 1, T - H).turnEnd(1, T - H)
    log.push({ type: 'compact/summary', data: { shadowedFrom: 0, shadowedTo: 2, summary: 's' } }, T - M)
    log.turnStart(2, T)
    expect(elapsedLine(decide(log, { turn: 2 }))).toBe('Elapsed since the preceding model-visible message: 1h 0s.')
  })

  it('reports unavailable on step 1 with no earlier model-visible message', () => {
    const log = new LogBuilder().scheduleChange(T - H).turnStart(1, T - H)
    expect(elapsedLine(decide(log, {}))).toBe('Elapsed since the preceding model-visible message: unavailable.')
  })

  it('measures a later step from the latest reading of the same turn, not the latest message', () => {
    const log = new LogBuilder()
      .turnStart(1, T - D)
      .stepStart(1, 1, T - D)
      .message(rpcMessage('m1', 'UTC'), T - D)
      .message(buildReadingMessage(1, 1, 'r1'), T - H - M)
      .assistant(1, 1, T - H)
      .toolResult(1, 1, T - S)
      .stepEnd(1, 1, T - S)
      .stepStart(1, 2, T - S)
      .message(buildReadingMessage(1, 2, 'r2'), T - M - S)
      .assistant(1, 2, T - S)
      .stepEnd(1, 2, T - S)
    expect(elapsedLine(decide(log, { step: 3 }))).toBe('Elapsed since the preceding step context: 1m 1s.')
  })

  it('reports unavailable on a later step when the turn has no earlier reading', () => {
    const log = new LogBuilder()
      .turnStart(1, T - D)
      .message(buildReadingMessage(1, 1, 'r1'), T - D)
      .turnEnd(1, T - D)
      .turnStart(2, T - H)
      .stepStart(2, 1, T - H)
      .message(rpcMessage('m1', 'UTC'), T - H)
      .assistant(2, 1, T - M)
    expect(elapsedLine(decide(log, { turn: 2, step: 2 }))).toBe('Elapsed since the preceding step context: unavailable.')
  })

  it('clamps a wall clock behind the baseline to 0s', () => {
    const stepOne = new LogBuilder().assistant(0, 1, T + H).turnStart(1, T + H)
    expect(elapsedLine(decide(stepOne, {}))).toBe('Elapsed since the preceding model-visible message: 0s.')
    const stepTwo = new LogBuilder().turnStart(1, T).message(buildReadingMessage(1, 1, 'r'), T + 5 * S)
    expect(elapsedLine(decide(stepTwo, { step: 2 }))).toBe('Elapsed since the preceding step context: 0s.')
  })
})

describe('decideReading interval rule', () => {
  const withReading = (readingTime: number): LogBuilder =>
    new LogBuilder().turnStart(1, readingTime).message(buildReadingMessage(1, 1, 'r'), readingTime).turnEnd(1, readingTime).turnStart(2, T)

  it('injects on every batch when refreshIntervalMs is omitted (0)', () => {
    expect(decide(withReading(T - 1), { turn: 2, refreshIntervalMs: 0 })).not.toBeNull()
    expect(decide(withReading(T), { turn: 2, refreshIntervalMs: 0 })).not.toBeNull()
  })

  it('injects with a positive interval when the session has no earlier reading', () => {
    expect(decide(new LogBuilder().turnStart(1, T), { refreshIntervalMs: H })).not.toBeNull()
  })

  it('skips while less than refreshIntervalMs has elapsed since the latest reading', () => {
    expect(decide(withReading(T - H + 1), { turn: 2, refreshIntervalMs: H })).toBeNull()
    expect(decide(withReading(T), { turn: 2, refreshIntervalMs: H })).toBeNull()
  })

  it('injects again at exactly refreshIntervalMs', () => {
    const reading = decide(withReading(T - H), { turn: 2, refreshIntervalMs: H })
    expect(textOf(reading)).toBe(
      lines(
        `Time sampled while preparing turn 2, step 1: ${SHANGHAI_T}`,
        'Session time zone: Asia/Shanghai.',
        'Client time zone for this request: Asia/Shanghai.',
        'Elapsed since the preceding model-visible message: 1h 0s.',
      ),
    )
  })

  it('injects when the wall clock moved behind the latest reading', () => {
    const reading = decide(withReading(T + S), { turn: 2, refreshIntervalMs: H })
    expect(elapsedLine(reading)).toBe('Elapsed since the preceding model-visible message: 0s.')
  })

  it('counts a reading shadowed by compaction', () => {
    const log = withReading(T - M)
    log.compact(0, 2, T - S)
    expect(decide(log, { turn: 2, refreshIntervalMs: H })).toBeNull()
    expect(decide(log, { turn: 2, refreshIntervalMs: M })).not.toBeNull()
  })

  it('counts readings of earlier turns, so a later step with no same-turn reading stays unavailable', () => {
    const log = withReading(T - M).stepStart(2, 1, T).message(rpcMessage('m', 'UTC'), T).assistant(2, 1, T)
    expect(decide(log, { turn: 2, step: 2, now: T + S, refreshIntervalMs: H })).toBeNull()
    expect(elapsedLine(decide(log, { turn: 2, step: 2, now: T + H, refreshIntervalMs: H }))).toBe(
      'Elapsed since the preceding step context: unavailable.',
    )
  })

  it('decides the same after a restart that rebuilds the index from the raw log', () => {
    const log = withReading(T - M)
    const restarted = new LogBuilder()
    for (const event of log.events) restarted.events.push(JSON.parse(JSON.stringify(event)) as SessionEvent)
    expect(decide(restarted, { turn: 2, refreshIntervalMs: H })).toBeNull()
    expect(decide(restarted, { turn: 2, refreshIntervalMs: M })).toStrictEqual(decide(log, { turn: 2, refreshIntervalMs: M }))
  })

  it('schedules sessions independently', () => {
    const busy = withReading(T - S)
    const quiet = new LogBuilder().turnStart(1, T - D)
    expect(decide(busy, { turn: 2, refreshIntervalMs: H })).toBeNull()
    expect(decide(quiet, { turn: 1, refreshIntervalMs: H })).not.toBeNull()
  })
})

describe('intervalSuppresses', () => {
  it.each([
    [null, 1000, 5000, false],
    [4000, 0, 4500, false],
    [4000, 1000, 4000, true],
    [4000, 1000, 4999, true],
    [4000, 1000, 5000, false],
    [4000, 1000, 3999, false],
  ])('last %s, interval %i, now %i → %s', (last, interval, now, expected) => {
    expect(intervalSuppresses(last, interval, now)).toBe(expected)
  })
})

import { describe, expect, it } from 'vitest'
import type { PreStepDecision, PreStepListener, PreStepPayload } from '../../src/host/plugin-api.ts'
import { timeContextIndexFold } from '../../src/plugin/index-fold.ts'
import { buildReadingMessage } from '../../src/protocol/index.ts'
import { createTimeContextPlugin } from '../../src/plugin/time-context-plugin.ts'
import type { SessionEvent, SessionHeader, UserMessage } from '../../src/protocol/events.ts'
import { FakeSession, fakeContext } from './fake-context.ts'
import type { FakeContext } from './fake-context.ts'
import { LogBuilder, header, plainMessage, rpcMessage } from '../support/log-builder.ts'

const T = Date.UTC(2026, 6, 15, 1, 1, 1)
const H = 3_600_000
const system = { systemTimeZone: () => 'America/New_York' }

type Setup = { fake: FakeContext; listener: PreStepListener; session: FakeSession }

function setup(options: { config?: unknown; times?: number[]; header?: SessionHeader; events?: SessionEvent[] } = {}): Setup {
  const plugin = createTimeContextPlugin(options.config ?? {}, system)
  const fake = fakeContext(options.times ?? [T])
  void plugin.install(fake.ctx)
  const session = new FakeSession(options.header ?? header('Asia/Shanghai'), options.events ?? new LogBuilder().turnStart(1, T - 1000).events)
  return { fake, listener: fake.listeners[0].listener, session }
}

function payload(session: FakeSession, overrides: Partial<PreStepPayload> = {}): PreStepPayload {
  return {
    session,
    turn: 1,
    step: 1,
    messages: [rpcMessage('claimed', 'Asia/Shanghai')],
    signal: new AbortController().signal,
    ...overrides,
  }
}

function enter(messages: UserMessage[]): () => Promise<PreStepDecision> {
  return () => Promise.resolve({ kind: 'enter', messages })
}

const shanghaiReading = (client: string, elapsed = 'unavailable'): UserMessage =>
  buildReadingMessage(
    1,
    1,
    [
      'Time sampled while preparing turn 1, step 1: 2026-07-15T09:01:01+08:00[Asia/Shanghai]',
      'Session time zone: Asia/Shanghai.',
      `Client time zone for this request: ${client}.`,
      `Elapsed since the preceding model-visible message: ${elapsed}.`,
    ].join('\n'),
  )

describe('createTimeContextPlugin', () => {
  it('registers its index fold and one outermost pre-step listener, and nothing else', () => {
    const plugin = createTimeContextPlugin({}, system)
    const fake = fakeContext([T])
    void plugin.install(fake.ctx)
    expect(plugin.name).toBe('time-context')
    expect(fake.folds).toEqual([timeContextIndexFold])
    expect(fake.folds[0]).toBe(timeContextIndexFold)
    expect(fake.listeners.map(({ event, options }) => ({ event, options }))).toEqual([{ event: 'agent/pre-step', options: { prepend: true } }])
    expect(fake.tools).toEqual([])
    expect(fake.callbacks).toEqual([])
  })

  it('validates its config when created', () => {
    expect(() => createTimeContextPlugin({ refreshIntervalMs: -1 }, system)).toThrow(
      new TypeError('time-context: refreshIntervalMs must be a non-negative safe integer, got -1'),
    )
    expect(() => createTimeContextPlugin({ timeZone: 'CST' }, system)).toThrow(new Error('time-context: invalid IANA timeZone "CST"'))
    expect(() => createTimeContextPlugin({}, { systemTimeZone: () => 'Local' })).toThrow(
      new Error('time-context: failed to resolve the system time zone'),
    )
  })

  it('appends one reading after the downstream messages', async () => {
    const { fake, listener, session } = setup()
    const claimed = rpcMessage('claimed', 'Asia/Shanghai')
    const decision = await listener(payload(session, { messages: [claimed] }), enter([claimed]))
    expect(decision).toStrictEqual({ kind: 'enter', messages: [claimed, shanghaiReading('Asia/Shanghai')] })
    expect(fake.clockReads).toEqual([T])
    expect(session.effects).toEqual([])
  })

  it('derives the reading from the downstream rewrite, not the claimed batch', async () => {
    const { listener, session } = setup()
    const rewritten = [rpcMessage('a', 'America/New_York'), rpcMessage('b', 'Asia/Shanghai')]
    const decision = await listener(payload(session, { messages: [plainMessage('claimed')] }), enter(rewritten))
    expect(decision).toStrictEqual({
      kind: 'enter',
      messages: [...rewritten, shanghaiReading('mixed ["America/New_York","Asia/Shanghai"]')],
    })
  })

  it('gives steering that entered a later step a fresh mixed reading', async () => {
    const events = new LogBuilder()
      .turnStart(1, T - 2 * H)
      .stepStart(1, 1, T - 2 * H)
      .message(rpcMessage('first', 'America/New_York'), T - 2 * H)
      .message(buildReadingMessage(1, 1, 'r'), T - H)
      .assistant(1, 1, T - H)
      .toolResult(1, 1, T - H)
      .stepEnd(1, 1, T - H).events
    const { listener, session } = setup({ events })
    const steer = rpcMessage('steer', 'Asia/Shanghai')
    const decision = await listener(payload(session, { step: 2, messages: [steer] }), enter([steer]))
    expect(decision).toStrictEqual({
      kind: 'enter',
      messages: [
        steer,
        buildReadingMessage(
          1,
          2,
          [
            'Time sampled while preparing turn 1, step 2: 2026-07-15T09:01:01+08:00[Asia/Shanghai]',
            'Session time zone: Asia/Shanghai.',
            'Client time zone for this request: mixed ["America/New_York","Asia/Shanghai"].',
            'Elapsed since the preceding step context: 1h 0s.',
          ].join('\n'),
        ),
      ],
    })
  })

  it('renders a headerless session in the configured fallback zone', async () => {
    const { listener, session } = setup({ config: { timeZone: 'Asia/Tokyo' }, header: header() })
    const decision = await listener(payload(session), enter([plainMessage('m')]))
    expect(decision.kind === 'enter' ? decision.messages[1].content[0].text : null).toBe(
      [
        'Time sampled while preparing turn 1, step 1: 2026-07-15T10:01:01+09:00[Asia/Tokyo]',
        'Session time zone: unavailable.',
        'Client time zone for this request: missing.',
        'Elapsed since the preceding model-visible message: unavailable.',
      ].join('\n'),
    )
  })

  it('falls back to the system zone when no zone is configured', async () => {
    const { listener, session } = setup({ header: header() })
    const decision = await listener(payload(session), enter([plainMessage('m')]))
    expect(decision.kind === 'enter' ? decision.messages[1].content[0].text.split('\n')[0] : null).toBe(
      'Time sampled while preparing turn 1, step 1: 2026-07-14T21:01:01-04:00[America/New_York]',
    )
  })

  it('returns a reject unchanged', async () => {
    const { fake, listener, session } = setup()
    const reject: PreStepDecision = { kind: 'reject' }
    expect(await listener(payload(session), () => Promise.resolve(reject))).toBe(reject)
    expect(fake.clockReads).toEqual([])
  })

  it('returns an empty decision unchanged, including a downstream rewrite to empty', async () => {
    const { fake, listener, session } = setup()
    const empty: PreStepDecision = { kind: 'enter', messages: [] }
    expect(await listener(payload(session), () => Promise.resolve(empty))).toBe(empty)
    expect(await listener(payload(session, { step: 2, messages: [] }), () => Promise.resolve(empty))).toBe(empty)
    expect(fake.clockReads).toEqual([])
  })

  it('returns the decision unchanged when the signal is aborted before or during next()', async () => {
    const { fake, listener, session } = setup()
    const before = new AbortController()
    before.abort()
    const decision: PreStepDecision = { kind: 'enter', messages: [plainMessage('m')] }
    expect(await listener(payload(session, { signal: before.signal }), () => Promise.resolve(decision))).toBe(decision)
    const during = new AbortController()
    const result = await listener(payload(session, { signal: during.signal }), async () => {
      during.abort()
      return decision
    })
    expect(result).toBe(decision)
    expect(fake.clockReads).toEqual([])
  })

  it('delegates but contributes nothing when disposed before next()', async () => {
    const { fake, listener, session } = setup()
    fake.dispose()
    const decision: PreStepDecision = { kind: 'enter', messages: [plainMessage('m')] }
    let called = 0
    const result = await listener(payload(session), async () => {
      called += 1
      return decision
    })
    expect(result).toBe(decision)
    expect(called).toBe(1)
    expect(fake.clockReads).toEqual([])
  })

  it('contributes nothing when disposed while next() is in flight', async () => {
    const { fake, listener, session } = setup()
    const decision: PreStepDecision = { kind: 'enter', messages: [plainMessage('m')] }
    const result = await listener(payload(session), async () => {
      fake.dispose()
      return decision
    })
    expect(result).toBe(decision)
    expect(fake.clockReads).toEqual([])
  })

  it('lets a downstream throw through and adds nothing', async () => {
    const { fake, listener, session } = setup()
    const failure = new Error('downstream failed')
    await expect(listener(payload(session), () => Promise.reject(failure))).rejects.toBe(failure)
    expect(fake.clockReads).toEqual([])
  })

  it('returns the decision unchanged when the interval suppresses the reading', async () => {
    const events = new LogBuilder().turnStart(1, T - 1000).message(buildReadingMessage(0, 1, 'r'), T - 1000).events
    const { fake, listener, session } = setup({ config: { refreshIntervalMs: H }, events })
    const decision: PreStepDecision = { kind: 'enter', messages: [plainMessage('m')] }
    expect(await listener(payload(session), () => Promise.resolve(decision))).toBe(decision)
    expect(fake.clockReads).toEqual([T])
  })

  it('samples the clock once and uses that instant for the rule and the reading', async () => {
    const events = new LogBuilder().turnStart(1, T - H).message(buildReadingMessage(0, 1, 'r'), T - H).events
    const { fake, listener, session } = setup({ config: { refreshIntervalMs: H }, events, times: [T, T + H] })
    const decision = await listener(payload(session), enter([rpcMessage('m', 'Asia/Shanghai')]))
    expect(fake.clockReads).toEqual([T])
    expect(decision).toStrictEqual({ kind: 'enter', messages: [rpcMessage('m', 'Asia/Shanghai'), shanghaiReading('Asia/Shanghai', '1h 0s')] })
  })

  it('does not change the messages array it was given', async () => {
    const { listener, session } = setup()
    const messages = [rpcMessage('m', 'Asia/Shanghai')]
    await listener(payload(session, { messages }), enter(messages))
    expect(messages).toEqual([rpcMessage('m', 'Asia/Shanghai')])
  })
})

import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SessionEvent, UserMessage } from '../../src/protocol/events.ts'
import type { Plugin, ToolDefinition } from '../../src/host/plugin-api.ts'
import { createInvariantPlugin } from '../../src/invariant/index.ts'
import { createTimeContextPlugin } from '../../src/plugin/index.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { forgingPlugin } from '../support/forging-plugin.ts'
import { makeHost, settle, types, waitFor } from '../support/host-harness.ts'
import { tempDir } from '../support/temp-dir.ts'

const T0 = Date.UTC(2026, 6, 15, 1, 1, 1)

function rpc(id: string, text: string, zone: string): UserMessage {
  return { id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user', rpcId: `rpc-${id}`, clientTimeZone: zone } }
}

function plugins(config: Record<string, unknown> = {}, extra: Plugin[] = []): Plugin[] {
  return [createTimeContextPlugin(config, { systemTimeZone: () => 'Europe/Berlin' }), createInvariantPlugin(), ...extra]
}

function readings(events: readonly SessionEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === 'user/message' && e.data.source.kind === 'plugin' && e.data.source.plugin === 'time-context'
      ? [e.data.content[0].text]
      : [],
  )
}

const toolPlugin: Plugin = {
  name: 'tools',
  install(ctx) {
    const tool: ToolDefinition = { name: 'noop', description: 'No-op.', parameters: { type: 'object' }, execute: async () => ({ text: 'ok' }) }
    ctx.registerTool(tool)
  },
}

describe('time-context on the real loop and store', () => {
  it('appends the exact four-line reading last in the batch, after step/start, never in request/header', async () => {
    const dir = await tempDir()
    const clock = new FakeClock(T0)
    const { host, model } = await makeHost(dir, { clock, plugins: plugins() })
    model.push({ text: 'ok' })
    const { session } = await host.createSession({ id: 's', timeZone: 'Asia/Shanghai' })
    await session.enqueue(rpc('m1', 'hello', 'America/New_York'), 'next-turn')
    await settle(session)
    expect(types(session.events()).slice(2, 6)).toEqual(['step/start', 'user/message', 'user/message', 'request/header'])
    const reading = session.event(4)
    const text =
      'Time sampled while preparing turn 1, step 1: 2026-07-15T09:01:01+08:00[Asia/Shanghai]\n' +
      'Session time zone: Asia/Shanghai.\n' +
      'Client time zone for this request: America/New_York.\n' +
      'Elapsed since the preceding model-visible message: unavailable.'
    expect(reading).toEqual({
      seq: 4,
      time: T0,
      type: 'user/message',
      surfaceOp: 'append',
      data: {
        id: 'time-context-1-1',
        role: 'user',
        content: [{ type: 'text', text }],
        source: { kind: 'plugin', plugin: 'time-context', form: 'snapshot', sections: [{ name: 'time-context', text }] },
      },
    })
    expect(JSON.stringify(session.events().filter((e) => e.type === 'request/header'))).not.toContain('Time sampled')
    expect(model.requests[0].system).not.toContain('Time sampled')
    expect(model.requests[0].messages).toEqual([
      { role: 'user', text: 'hello' },
      { role: 'user', text },
    ])
    await host.close()
  })

  it('gives a later step the step-context baseline and keeps every reading in later requests', async () => {
    const dir = await tempDir()
    const clock = new FakeClock(T0)
    const { host, model } = await makeHost(dir, { clock, plugins: plugins({}, [toolPlugin]) })
    let session!: Awaited<ReturnType<typeof host.createSession>>['session']
    model.push(
      async () => {
        clock.advance(61_000)
        await session.enqueue(rpc('m2', 'also', 'Asia/Shanghai'), 'next-step')
        return { text: '', toolCalls: [{ callId: 'c1', name: 'noop', arguments: '{}' }] }
      },
      { text: 'done' },
    )
    session = (await host.createSession({ id: 's', timeZone: 'UTC' })).session
    await session.enqueue(rpc('m1', 'hello', 'America/New_York'), 'next-turn')
    await settle(session)
    expect(readings(session.events())).toEqual([
      'Time sampled while preparing turn 1, step 1: 2026-07-15T01:01:01+00:00[UTC]\nSession time zone: UTC.\nClient time zone for this request: America/New_York.\nElapsed since the preceding model-visible message: unavailable.',
      'Time sampled while preparing turn 1, step 2: 2026-07-15T01:02:02+00:00[UTC]\nSession time zone: UTC.\nClient time zone for this request: mixed ["America/New_York","Asia/Shanghai"].\nElapsed since the preceding step context: 1m 1s.',
    ])
    const lastRequest = model.requests[1].messages.filter((m) => m.role === 'user' && m.text.startsWith('Time sampled'))
    expect(lastRequest).toHaveLength(2)
    await host.close()
  })

  it('measures step 1 from the latest model-visible message of the previous turn', async () => {
    const dir = await tempDir()
    const clock = new FakeClock(T0)
    const { host, model } = await makeHost(dir, { clock, plugins: plugins() })
    model.push({ text: 'first' }, { text: 'second' })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(rpc('m1', 'one', 'UTC'), 'next-turn')
    await settle(session)
    clock.advance(90_061_000)
    await session.enqueue(rpc('m2', 'two', 'UTC'), 'next-turn')
    await settle(session)
    expect(readings(session.events())[1].split('\n')[3]).toBe('Elapsed since the preceding model-visible message: 1d 1h 1m 1s.')
    await host.close()
  })

  it('adds no reading on reject, empty decisions, throws or aborts', async () => {
    const dir = await tempDir()
    const outcomes: Plugin[] = [
      { name: 'reject', install: (c) => c.on('agent/pre-step', async () => ({ kind: 'reject' })) },
      { name: 'empty', install: (c) => c.on('agent/pre-step', async () => ({ kind: 'enter', messages: [] })) },
      { name: 'throw', install: (c) => c.on('agent/pre-step', async () => { throw new Error('no') }) },
    ]
    for (const outcome of outcomes) {
      const { host } = await makeHost(join(dir, outcome.name), { plugins: plugins({}, [outcome]) })
      const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
      await session.enqueue(rpc('m1', 'x', 'UTC'), 'next-turn')
      await settle(session)
      expect(readings(session.events())).toEqual([])
      expect(types(session.events())).not.toContain('step/start')
      await host.close()
    }
  })

  it('adds no reading when the turn is cancelled while downstream listeners run', async () => {
    const dir = await tempDir()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const slow: Plugin = { name: 'slow', install: (c) => c.on('agent/pre-step', async (_p, next) => { await gate; return next() }) }
    const { host } = await makeHost(dir, { plugins: plugins({}, [slow]) })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(rpc('m1', 'x', 'UTC'), 'next-turn')
    await waitFor(session, (events) => events.some((e) => e.type === 'turn/start'))
    session.cancel()
    release()
    await settle(session)
    expect(readings(session.events())).toEqual([])
    expect(session.events().at(-1)?.data).toEqual({ turn: 1, reason: 'aborted' })
    await host.close()
  })

  it.each(['before', 'during'])('adds no reading when the time-context plugin is disposed %s next()', async (when) => {
    const dir = await tempDir()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const slow: Plugin = { name: 'slow', install: (c) => c.on('agent/pre-step', async (_p, next) => { await gate; return next() }) }
    const { host, model } = await makeHost(dir, { plugins: [slow] })
    const timeContext = await host.install(createTimeContextPlugin({}, { systemTimeZone: () => 'UTC' }))
    model.push({ text: 'ok' })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    if (when === 'before') timeContext.dispose()
    await session.enqueue(rpc('m1', 'x', 'UTC'), 'next-turn')
    await waitFor(session, (events) => events.some((e) => e.type === 'turn/start'))
    if (when === 'during') timeContext.dispose()
    release()
    await settle(session)
    expect(readings(session.events())).toEqual([])
    expect(types(session.events())).toContain('assistant/message')
    await host.close()
  })

  it('injects on every batch by default and honours a positive interval across turns and a restart', async () => {
    const dir = await tempDir()
    const clock = new FakeClock(T0)
    const first = await makeHost(dir, { clock, plugins: plugins({ refreshIntervalMs: 60_000 }) })
    first.model.push({ text: 'a' }, { text: 'b' })
    const { session } = await first.host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(rpc('m1', 'x', 'UTC'), 'next-turn')
    await settle(session)
    clock.advance(59_999)
    await session.enqueue(rpc('m2', 'y', 'UTC'), 'next-turn')
    await settle(session)
    expect(readings(session.events())).toHaveLength(1)
    await first.host.close()
    clock.advance(1)
    const second = await makeHost(dir, { clock, plugins: plugins({ refreshIntervalMs: 60_000 }) })
    second.model.push({ text: 'c' })
    const reopened = await second.host.openSession('s')
    await reopened.enqueue(rpc('m3', 'z', 'UTC'), 'next-turn')
    await settle(reopened)
    expect(readings(reopened.events())).toHaveLength(2)
    await second.host.close()
  })

  it('keeps the interval after compaction shadows the reading (raw log)', async () => {
    const dir = await tempDir()
    const clock = new FakeClock(T0)
    const { host, model } = await makeHost(dir, { clock, plugins: plugins({ refreshIntervalMs: 60_000 }) })
    model.push({ text: 'a' }, { text: 'b' })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(rpc('m1', 'x', 'UTC'), 'next-turn')
    await settle(session)
    await session.compact()
    clock.advance(1000)
    await session.enqueue(rpc('m2', 'y', 'UTC'), 'next-turn')
    await settle(session)
    expect(readings(session.events())).toHaveLength(1)
    expect(model.requests[1].messages.some((m) => m.role === 'user' && m.text.startsWith('Time sampled'))).toBe(false)
    await host.close()
  })

  it('renders a headerless session in the fallback zone and reports its Session zone unavailable', async () => {
    const dir = await tempDir()
    const clock = new FakeClock(T0)
    const { host, model } = await makeHost(dir, { clock, plugins: plugins({ timeZone: 'Asia/Tokyo' }) })
    model.push({ text: 'a' })
    const { session } = await host.createSession({ id: 's' })
    await session.enqueue({ id: 'm1', role: 'user', content: [{ type: 'text', text: 'cli' }], source: { kind: 'user' } }, 'next-turn')
    await settle(session)
    expect(readings(session.events())).toEqual([
      'Time sampled while preparing turn 1, step 1: 2026-07-15T10:01:01+09:00[Asia/Tokyo]\nSession time zone: unavailable.\nClient time zone for this request: missing.\nElapsed since the preceding model-visible message: unavailable.',
    ])
    await host.close()
  })

  it('never lets an explicit timeZone override the Session zone', async () => {
    const dir = await tempDir()
    const clock = new FakeClock(T0)
    const { host, model } = await makeHost(dir, { clock, plugins: plugins({ timeZone: 'Asia/Kolkata' }) })
    model.push({ text: 'a' })
    const { session } = await host.createSession({ id: 's', timeZone: 'America/New_York' })
    await session.enqueue(rpc('m1', 'x', 'America/New_York'), 'next-turn')
    await settle(session)
    expect(readings(session.events())[0].split('\n')[0]).toBe(
      'Time sampled while preparing turn 1, step 1: 2026-07-14T21:01:01-04:00[America/New_York]',
    )
    await host.close()
  })

  it('rejects a drifting reading before it is written and refuses to open a tampered log', async () => {
    const dir = await tempDir()
    const clock = new FakeClock(T0)
    const rogue = forgingPlugin((text) => text.replace('UTC.', 'Asia/Tokyo.'))
    const { host } = await makeHost(dir, { clock, plugins: [...plugins(), rogue] })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    const lengthBefore = (await readFile(join(dir, 'sessions/s.jsonl'), 'utf8')).length
    await session.enqueue(rpc('m1', 'x', 'UTC'), 'next-turn')
    await settle(session)
    expect(readings(session.events())).toEqual([])
    expect(types(session.events())).toEqual(['inbox/enqueued', 'turn/start', 'inbox/dropped', 'turn/end'])
    const end = session.events().at(-1)
    expect(end).toMatchObject({
      type: 'turn/end',
      data: { reason: 'error', message: 'invariant violated by "time-context": time-context text does not match the Session and current request zones' },
    })
    expect((await readFile(join(dir, 'sessions/s.jsonl'), 'utf8')).length).toBeGreaterThan(lengthBefore)
    await host.close()

    const good = await makeHost(join(dir, 'good'), { clock, plugins: plugins() })
    good.model.push({ text: 'ok' })
    const created = await good.host.createSession({ id: 'g', timeZone: 'UTC' })
    await created.session.enqueue(rpc('m1', 'x', 'UTC'), 'next-turn')
    await settle(created.session)
    await good.host.close()
    const path = join(dir, 'good/sessions/g.jsonl')
    const original = await readFile(path, 'utf8')
    const tampered = original.replace('Session time zone: UTC.', 'Session time zone: UTC!')
    await writeFile(path, tampered)
    const reopen = await makeHost(join(dir, 'good'), { clock, plugins: plugins() })
    await expect(reopen.host.openSession('g')).rejects.toThrow(
      'invariant violated by "time-context": time-context message does not match the durable reading format',
    )
    expect(await readFile(path, 'utf8')).toBe(tampered)
    await reopen.host.close()
  })

  it('schedules sessions independently', async () => {
    const dir = await tempDir()
    const clock = new FakeClock(T0)
    const { host, model } = await makeHost(dir, { clock, plugins: plugins({ refreshIntervalMs: 60_000 }) })
    model.push({ text: 'a' }, { text: 'b' })
    const a = (await host.createSession({ id: 'a', timeZone: 'UTC' })).session
    const b = (await host.createSession({ id: 'b', timeZone: 'UTC' })).session
    await a.enqueue(rpc('m1', 'x', 'UTC'), 'next-turn')
    await settle(a)
    await b.enqueue(rpc('m2', 'y', 'UTC'), 'next-turn')
    await settle(b)
    expect(readings(a.events())).toHaveLength(1)
    expect(readings(b.events())).toHaveLength(1)
    await host.close()
  })

  it('leaves the reading in history when the request fails after step/start', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir, { plugins: plugins() })
    model.push(() => { throw new Error('network down') })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(rpc('m1', 'x', 'UTC'), 'next-turn')
    await waitFor(session, (events) => events.some((e) => e.type === 'turn/end'))
    expect(readings(session.events())).toHaveLength(1)
    expect(session.events().at(-1)?.data).toEqual({ turn: 1, reason: 'error', message: 'network down' })
    await host.close()
  })
})

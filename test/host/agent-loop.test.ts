import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { UserMessage } from '../../src/protocol/events.ts'
import type { PluginContext, PreStepListener, ToolDefinition } from '../../src/host/plugin-api.ts'
import type { HostPluginContext } from '../../src/host/registry.ts'
import { makeHost, settle, types, waitFor } from '../support/host-harness.ts'
import { tempDir } from '../support/temp-dir.ts'
import { FailingFiles } from '../support/failing-files.ts'

function userMessage(id: string, text: string, zone = 'UTC'): UserMessage {
  return { id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user', rpcId: `rpc-${id}`, clientTimeZone: zone } }
}

function pluginWith(name: string, setup: (ctx: PluginContext) => void) {
  return { name, install: setup }
}

const echoTool: ToolDefinition = {
  name: 'echo',
  description: 'Echoes its input.',
  parameters: { type: 'object', properties: { value: { type: 'string' } } },
  execute: async (args) => ({ text: JSON.stringify(args) }),
}

/** A host whose session file calls go through `FailingFiles` (to count or hold them), with session `s` and the model's answers queued. */
async function onFiles(...answers: { text: string }[]) {
  const files = new FailingFiles()
  const { host, model } = await makeHost(await tempDir(), { files })
  model.push(...answers)
  const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
  return { host, model, files, session }
}

describe('agent loop', () => {
  it('runs a queued message as one turn in the order of SPEC 2.3', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir)
    model.push({ text: 'hi' })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'hello'), 'next-turn')
    await settle(session)
    expect(types(session.events())).toEqual([
      'inbox/enqueued',
      'turn/start',
      'step/start',
      'user/message',
      'request/header',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    expect(session.event(4)?.data).toEqual({ model: 'scripted', tools: [], reason: 'initial' })
    expect(session.event(7)?.data).toEqual({ turn: 1, reason: 'completed' })
    expect(model.requests[0].messages).toEqual([{ role: 'user', text: 'hello' }])
    await host.close()
  })

  it('keeps the text streamed so far of the step being answered, and says once that it ended when its message is written', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir)
    model.push(async (_request, _signal, onDelta) => {
      onDelta('Hel')
      onDelta('lo')
      return { text: 'Hello' }
    })
    model.push({ text: 'not streamed' })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    const seen: string[] = []
    session.onDelta((delta) => seen.push(`${delta.turn}.${delta.step} ${delta.text} → ${JSON.stringify(session.streaming)}`))
    session.onStreamingEnd(() => seen.push(`end, streaming ${JSON.stringify(session.streaming)}`))
    await session.enqueue(userMessage('m1', 'hello'), 'next-turn')
    await settle(session)
    await session.enqueue(userMessage('m2', 'again'), 'next-turn')
    await settle(session)
    expect(seen).toEqual([
      '1.1 Hel → {"turn":1,"step":1,"text":"Hel"}',
      '1.1 lo → {"turn":1,"step":1,"text":"Hello"}',
      'end, streaming null',
    ])
    await host.close()
  })

  it('writes request/header only on first use and when the tool set changes', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir)
    model.push({ text: 'a' }, { text: 'b' }, { text: 'c' })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'one'), 'next-turn')
    await settle(session)
    await session.enqueue(userMessage('m2', 'two'), 'next-turn')
    await settle(session)
    const ctx = await host.install(pluginWith('tools', (c) => c.registerTool(echoTool)))
    await session.enqueue(userMessage('m3', 'three'), 'next-turn')
    await settle(session)
    const headers = session.events().filter((e) => e.type === 'request/header').map((e) => e.data)
    expect(headers).toEqual([
      { model: 'scripted', tools: [], reason: 'initial' },
      { model: 'scripted', tools: ['echo'], reason: 'change' },
    ])
    ctx.dispose()
    await host.close()
  })

  it('calls tools, records tool/call and tool/result, and continues with an empty step', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir, { plugins: [pluginWith('tools', (c) => c.registerTool(echoTool))] })
    model.push(
      { text: '', toolCalls: [{ callId: 'c1', name: 'echo', arguments: '{"value":"x"}' }, { callId: 'c2', name: 'nope', arguments: '{}' }, { callId: 'c3', name: 'echo', arguments: '{bad' }] },
      { text: 'done' },
    )
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'go'), 'next-turn')
    await settle(session)
    expect(types(session.events())).toEqual([
      'inbox/enqueued', 'turn/start', 'step/start', 'user/message', 'request/header', 'assistant/message',
      'tool/call', 'tool/result', 'tool/call', 'tool/result', 'tool/call', 'tool/result', 'step/end',
      'step/start', 'assistant/message', 'step/end', 'turn/end',
    ])
    const results = session.events().filter((e) => e.type === 'tool/result').map((e) => e.data)
    expect(results).toEqual([
      { turn: 1, step: 1, callId: 'c1', content: [{ type: 'text', text: '{"value":"x"}' }] },
      { turn: 1, step: 1, callId: 'c2', content: [{ type: 'text', text: 'unknown tool "nope"' }], isError: true },
      { turn: 1, step: 1, callId: 'c3', content: [{ type: 'text', text: 'tool arguments are not valid JSON: {bad' }], isError: true },
    ])
    expect(session.event(13)?.data).toEqual({ turn: 1, step: 2 })
    expect(model.requests[1].messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'tool'])
    await host.close()
  })

  it('ends the turn blocked without a step when a listener rejects', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir, {
      plugins: [pluginWith('gate', (c) => c.on('agent/pre-step', async () => ({ kind: 'reject' })))],
    })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'hello'), 'next-turn')
    await settle(session)
    expect(types(session.events())).toEqual(['inbox/enqueued', 'turn/start', 'inbox/dropped', 'turn/end'])
    expect(session.event(2)?.data).toEqual({ ids: ['m1'], reason: 'blocked' })
    expect(session.event(3)?.data).toEqual({ turn: 1, reason: 'blocked' })
    expect(model.requests).toEqual([])
    await host.close()
  })

  it('ends the turn completed without a step when step 1 is rewritten to empty', async () => {
    const dir = await tempDir()
    const { host } = await makeHost(dir, {
      plugins: [pluginWith('drop', (c) => c.on('agent/pre-step', async () => ({ kind: 'enter', messages: [] })))],
    })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'hello'), 'next-turn')
    await settle(session)
    expect(types(session.events())).toEqual(['inbox/enqueued', 'turn/start', 'inbox/dropped', 'turn/end'])
    expect(session.event(3)?.data).toEqual({ turn: 1, reason: 'completed' })
    await host.close()
  })

  it('ends the turn with error and no step when a listener throws', async () => {
    const dir = await tempDir()
    const { host } = await makeHost(dir, {
      plugins: [pluginWith('boom', (c) => c.on('agent/pre-step', async () => { throw new Error('listener exploded') }))],
    })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'hello'), 'next-turn')
    await settle(session)
    expect(types(session.events())).toEqual(['inbox/enqueued', 'turn/start', 'inbox/dropped', 'turn/end'])
    expect(session.event(3)?.data).toEqual({ turn: 1, reason: 'error', message: 'listener exploded' })
    await host.close()
  })

  it('ends the turn aborted and opens no step when cancelled during the waterfall', async () => {
    const dir = await tempDir()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const { host, model } = await makeHost(dir, {
      plugins: [pluginWith('slow', (c) => c.on('agent/pre-step', async (_p, next) => { await gate; return next() }))],
    })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'hello'), 'next-turn')
    await waitFor(session, (events) => events.some((e) => e.type === 'turn/start'))
    session.cancel()
    release()
    await settle(session)
    expect(types(session.events())).toEqual(['inbox/enqueued', 'turn/start', 'inbox/dropped', 'turn/end'])
    expect(session.event(3)?.data).toEqual({ turn: 1, reason: 'aborted' })
    expect(model.requests).toEqual([])
    await host.close()
  })

  it('cancels a running model request: step/end then turn/end aborted; queued messages survive', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir)
    model.push(
      (_req, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      { text: 'second' },
    )
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'one'), 'next-turn')
    await waitFor(session, (events) => events.some((e) => e.type === 'request/header'))
    await session.enqueue(userMessage('m2', 'two'), 'next-turn')
    session.cancel()
    await settle(session)
    const ends = session.events().filter((e) => e.type === 'turn/end').map((e) => e.data)
    expect(ends).toEqual([{ turn: 1, reason: 'aborted' }, { turn: 2, reason: 'completed' }])
    expect(types(session.events()).slice(0, 9)).toEqual([
      'inbox/enqueued', 'turn/start', 'step/start', 'user/message', 'request/header', 'inbox/enqueued', 'step/end', 'turn/end', 'turn/start',
    ])
    await host.close()
  })

  it('ends a turn the host stops during (its sessions close) as interrupted, as a restart would, not as stopped by the person', async () => {
    const dir = await tempDir()
    const first = await makeHost(dir)
    first.model.push((_req, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))))
    const { session } = await first.host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'one'), 'next-turn')
    await waitFor(session, (events) => events.some((e) => e.type === 'request/header'))
    await session.enqueue(userMessage('m2', 'two'), 'next-turn')
    await first.host.close()
    // on the code before, `{ turn: 1, reason: 'aborted' }`: the overlay said "Stopped." as if Stop had been pressed
    expect(types(session.events()).slice(-3)).toEqual(['inbox/enqueued', 'step/end', 'turn/end'])
    expect(session.events().at(-1)?.data).toEqual({ turn: 1, reason: 'error', message: 'interrupted: the host stopped during this turn' })

    // the next start has nothing to close, and runs the message that waited
    const second = await makeHost(dir)
    second.model.push({ text: 'second' })
    const reopened = await second.host.openSession('s')
    await settle(reopened)
    expect(reopened.events().filter((e) => e.type === 'turn/end').map((e) => e.data)).toEqual([
      { turn: 1, reason: 'error', message: 'interrupted: the host stopped during this turn' },
      { turn: 2, reason: 'completed' },
    ])
    expect(reopened.events().filter((e) => e.type === 'user/message').map((e) => e.data.id)).toEqual(['m1', 'm2'])
    await second.host.close()
  })

  it('keeps the messages a turn claimed when the host stops during its waterfall: they run at the next start', async () => {
    const dir = await tempDir()
    const held = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)))
    let holding = true
    const first = await makeHost(dir, {
      plugins: [pluginWith('hold', (c) => c.on('agent/pre-step', ({ signal }, next) => (holding ? held(signal) : next())))],
    })
    const { session } = await first.host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'first'), 'next-turn')
    await waitFor(session, (events) => events.some((e) => e.type === 'turn/start'))
    await first.host.close()
    // on the code before, m1 was dropped (`inbox/dropped`, reason `error`), and never answered
    expect(types(session.events())).toEqual(['inbox/enqueued', 'turn/start', 'turn/end'])
    expect(session.events().at(-1)?.data).toEqual({ turn: 1, reason: 'error', message: 'interrupted: the host stopped during this turn' })

    holding = false
    const second = await makeHost(dir)
    second.model.push({ text: 'answered' })
    const reopened = await second.host.openSession('s')
    await settle(reopened)
    expect(reopened.events().filter((e) => e.type === 'user/message').map((e) => e.data.id)).toEqual(['m1'])
    expect(reopened.events().filter((e) => e.type === 'turn/end').map((e) => e.data)).toEqual([
      { turn: 1, reason: 'error', message: 'interrupted: the host stopped during this turn' },
      { turn: 2, reason: 'completed' },
    ])
    await second.host.close()
  })

  it('enters steering that arrives after the claim in the next step', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir, { plugins: [pluginWith('tools', (c) => c.registerTool(echoTool))] })
    let session!: Awaited<ReturnType<typeof host.createSession>>['session']
    model.push(
      async () => {
        await session.enqueue(userMessage('m2', 'steer me', 'Asia/Shanghai'), 'next-step')
        return { text: 'first' }
      },
      { text: 'second' },
    )
    session = (await host.createSession({ id: 's', timeZone: 'UTC' })).session
    await session.enqueue(userMessage('m1', 'start'), 'next-turn')
    await settle(session)
    const entered = session.events().filter((e) => e.type === 'user/message' || e.type === 'step/start').map((e) => e.type === 'step/start' ? `step ${e.data.step}` : e.data.id)
    expect(entered).toEqual(['step 1', 'm1', 'step 2', 'm2'])
    expect(session.events().filter((e) => e.type === 'turn/start')).toHaveLength(1)
    await host.close()
  })

  it('starts a turn from a steer on an idle session', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir)
    model.push({ text: 'ok' })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'steer'), 'next-step')
    await settle(session)
    expect(types(session.events())).toContain('assistant/message')
    await host.close()
  })

  it('runs prepended listeners outermost so they see downstream rewrites', async () => {
    const dir = await tempDir()
    const seen: string[][] = []
    const { host, model } = await makeHost(dir, {
      plugins: [
        pluginWith('inner', (c) =>
          c.on('agent/pre-step', async (p, next) => {
            const d = await next()
            return d.kind === 'enter' ? { kind: 'enter', messages: [...d.messages, userMessage('added', 'added by inner')] } : d
          }),
        ),
        pluginWith('outer', (c) =>
          c.on(
            'agent/pre-step',
            async (_p, next) => {
              const d = await next()
              if (d.kind === 'enter') seen.push(d.messages.map((m) => m.id))
              return d
            },
            { prepend: true },
          ),
        ),
      ],
    })
    model.push({ text: 'ok' })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'x'), 'next-turn')
    await settle(session)
    expect(seen).toEqual([['m1', 'added']])
    await host.close()
  })

  it('ignores what a listener returns once its plugin is disposed during next()', async () => {
    const dir = await tempDir()
    let ctxRef!: PluginContext
    const { host, model } = await makeHost(dir)
    const ctx: HostPluginContext = await host.install(
      pluginWith('disposable', (c) => {
        ctxRef = c
        c.on('agent/pre-step', async (_p, next) => {
          const d = await next()
          ;(ctxRef as HostPluginContext).dispose()
          return d.kind === 'enter' ? { kind: 'enter', messages: [...d.messages, userMessage('extra', 'should not enter')] } : d
        })
      }),
    )
    model.push({ text: 'ok' })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'x'), 'next-turn')
    await settle(session)
    expect(session.events().filter((e) => e.type === 'user/message').map((e) => e.data.id)).toEqual(['m1'])
    expect(ctx.disposed).toBe(true)
    expect(host.registry.preStep).toEqual([])
    await host.close()
  })

  it('removes listeners and tools of a disposed plugin', async () => {
    const dir = await tempDir()
    const { host } = await makeHost(dir)
    const listener: PreStepListener = async (_p, next) => next()
    const ctx = await host.install(pluginWith('p', (c) => { c.on('agent/pre-step', listener); c.registerTool(echoTool) }))
    expect(host.registry.preStep).toHaveLength(1)
    expect([...host.registry.tools.keys()]).toEqual(['echo'])
    ctx.dispose()
    expect(host.registry.preStep).toEqual([])
    expect([...host.registry.tools.keys()]).toEqual([])
    await host.close()
  })

  it('ends a failed model request with error after step/end and keeps what entered', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir)
    model.push(() => { throw new Error('model down') })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'x'), 'next-turn')
    await settle(session)
    expect(types(session.events())).toEqual(['inbox/enqueued', 'turn/start', 'step/start', 'user/message', 'request/header', 'step/end', 'turn/end'])
    expect(session.event(6)?.data).toEqual({ turn: 1, reason: 'error', message: 'model down' })
    await host.close()
  })

  it('lets maintenance claim only an idle session', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir)
    let release!: () => void
    model.push(() => new Promise((resolve) => (release = () => resolve({ text: 'late' }))))
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'x'), 'next-turn')
    await waitFor(session, (events) => events.some((e) => e.type === 'request/header'))
    expect(() => session.runMaintenance(async () => 1)).toThrow('session s is busy')
    const idle = session.whenIdle().then(() => session.runMaintenance(async () => 'claimed'))
    release()
    await expect(idle).resolves.toBe('claimed')
    await host.close()
  })

  it('writes a message and the writes of a quick turn it starts with one fdatasync', async () => {
    const { host, model, files, session } = await onFiles({ text: 'hi' })
    const before = files.count('datasync', /s\.jsonl$/)
    await session.enqueue(userMessage('m1', 'hello'), 'next-turn')
    await settle(session)
    expect({ datasyncs: files.count('datasync', /s\.jsonl$/) - before, durable: session.log.durableLength }).toEqual({ datasyncs: 1, durable: 8 })
    await host.close()
  })

  it("starts a message's turn while its barrier is in flight, and answers only once the message is durable", async () => {
    const { host, model, files, session } = await onFiles({ text: 'hi' })
    const release = files.hold('datasync', /s\.jsonl$/)
    let answered = false
    const accepted = session.enqueue(userMessage('m1', 'hello'), 'next-turn').then(() => (answered = true))
    await waitFor(session, (events) => events.at(-1)?.type === 'turn/end')
    expect({ requests: model.requests.length, answered, durable: session.log.durableLength, status: session.status }).toEqual({
      requests: 1,
      answered: false,
      durable: 0,
      status: 'running',
    })
    release()
    await accepted
    await settle(session)
    expect(session.log.durableLength).toBe(8)
    expect(types(session.log.durableSlice(0))).toEqual(types(session.events()))
    await host.close()
  })

  it('starts the next turn before the last one ended durably, and reports idle only once every turn/end is durable', async () => {
    const { host, model, files, session } = await onFiles({ text: 'one' }, { text: 'two' })
    const seen: { status: string; durable: number; last: string | undefined }[] = []
    session.onStatus((status) => seen.push({ status, durable: session.log.durableLength, last: session.log.durableSlice(0).at(-1)?.type }))
    const release = files.hold('datasync', /s\.jsonl$/)
    const accepted = Promise.all([
      session.enqueue(userMessage('m1', 'first'), 'next-turn'),
      session.enqueue(userMessage('m2', 'second'), 'next-turn'),
    ])
    await waitFor(session, (events) => events.filter((e) => e.type === 'turn/end').length === 2)
    expect({ requests: model.requests.length, durable: session.log.durableLength, running: session.running, status: session.status }).toEqual({
      requests: 2,
      durable: 0,
      running: false,
      status: 'running',
    })
    release()
    await accepted
    await settle(session)
    expect(seen).toEqual([
      { status: 'running', durable: 0, last: undefined },
      { status: 'idle', durable: session.events().length, last: 'turn/end' },
    ])
    expect(session.events().filter((e) => e.type === 'turn/end').map((e) => e.data)).toEqual([
      { turn: 1, reason: 'completed' },
      { turn: 2, reason: 'completed' },
    ])
    await host.close()
  })

  it('restores accepted messages that never entered after a restart and runs them', async () => {
    const dir = await tempDir()
    // the first host stops mid-turn: its step is held until the host closes, and by then its disk fails
    const files = new FailingFiles()
    const held = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)))
    const first = await makeHost(dir, {
      files,
      plugins: [pluginWith('hold', (c) => c.on('agent/pre-step', ({ signal }) => held(signal)))],
    })
    const { session } = await first.host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'first'), 'next-turn')
    await session.enqueue(userMessage('m2', 'second'), 'next-turn')
    await waitFor(session, (events) => events.some((e) => e.type === 'turn/start'))
    const second = await makeHost(dir)
    second.model.push({ text: 'a' }, { text: 'b' })
    const reopened = await second.host.openSession('s')
    await settle(reopened)
    const entered = reopened.events().filter((e) => e.type === 'user/message').map((e) => e.data.id)
    expect(entered).toEqual(['m1', 'm2'])
    const ends = reopened.events().filter((e) => e.type === 'turn/end').map((e) => e.data)
    expect(ends).toEqual([
      { turn: 1, reason: 'error', message: 'interrupted: the host stopped during this turn' },
      { turn: 2, reason: 'completed' },
      { turn: 3, reason: 'completed' },
    ])
    await second.host.close()
    const written = await readFile(join(dir, 'sessions', 's.jsonl'), 'utf8')
    files.inject({ op: 'write', code: 'EIO' })
    await first.host.close()
    expect(await readFile(join(dir, 'sessions', 's.jsonl'), 'utf8')).toBe(written)
  })

  it('compacts the surface on request: shadowed events stay in the raw log and leave the request', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir)
    model.push({ text: 'answer one' }, { text: 'answer two' })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'question one'), 'next-turn')
    await settle(session)
    const before = session.length
    const summaryId = await session.compact()
    const summary = session.event(before)
    expect(summary).toMatchObject({ type: 'compact/summary', data: { shadowedFrom: 3, shadowedTo: before - 1 } })
    const replacing = session.event(before + 1)
    expect(replacing).toMatchObject({
      type: 'user/message',
      surfaceOp: { op: 'replace', start: 3, end: before - 1 },
      data: { id: summaryId, role: 'user', source: { kind: 'plugin', plugin: 'compact' } },
    })
    expect(replacing?.type === 'user/message' && replacing.data.content[0].text).toBe(
      'Summary of 2 earlier messages compacted from this session:\n- user: question one\n- assistant: answer one',
    )
    await session.enqueue(userMessage('m2', 'question two'), 'next-turn')
    await settle(session)
    expect(model.requests[1].messages).toEqual([
      { role: 'user', text: 'Summary of 2 earlier messages compacted from this session:\n- user: question one\n- assistant: answer one' },
      { role: 'user', text: 'question two' },
    ])
    expect(session.events().filter((e) => e.type === 'user/message')).toHaveLength(3)
    await host.close()
  })

  it('compacts automatically after a turn when the surface exceeds the threshold', async () => {
    const dir = await tempDir()
    const { host, model } = await makeHost(dir, { compactThresholdChars: 50 })
    model.push({ text: 'x'.repeat(60) })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(userMessage('m1', 'hello'), 'next-turn')
    await settle(session)
    await waitFor(session, (events) => events.some((e) => e.type === 'compact/summary'))
    expect(types(session.events()).slice(-2)).toEqual(['compact/summary', 'user/message'])
    await host.close()
  })
})

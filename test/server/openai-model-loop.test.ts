import { spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { parseArgs } from '../../src/server/cli-args.ts'
import { compose, createModel } from '../../src/server/compose.ts'
import { listen, type RunningServer } from '../../src/server/serve.ts'
import { DONE, FakeOpenAiEndpoint, finishChunk, frame, gate, textChunk } from '../host/support/fake-openai-endpoint.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { waitFor } from '../support/host-harness.ts'
import { SseReader, type Frame } from '../support/sse-reader.ts'
import { tempDir } from '../support/temp-dir.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

let endpoint: FakeOpenAiEndpoint
const servers: RunningServer[] = []
const controllers: AbortController[] = []

beforeEach(async () => {
  endpoint = await FakeOpenAiEndpoint.start()
})
afterEach(async () => {
  for (const controller of controllers.splice(0)) controller.abort()
  for (const server of servers.splice(0)) await server.close()
  await endpoint.close()
})

async function start(dataDir: string, model: string, extra: { modelTimeoutMs?: number } = {}): Promise<RunningServer> {
  const { host } = await compose({
    dataDir,
    model,
    modelEnv: { MODEL_BASE_URL: endpoint.url, MODEL_API_KEY: 'sk-local' },
    clock: new FakeClock(),
    log: () => undefined,
    ...extra,
  })
  const server = await listen({ host, bindHost: '127.0.0.1', port: 0 })
  servers.push(server)
  return server
}

async function post(server: RunningServer, path: string, body: unknown): Promise<number> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  await response.arrayBuffer()
  return response.status
}

async function openStream(server: RunningServer, path: string): Promise<SseReader> {
  const controller = new AbortController()
  controllers.push(controller)
  const response = await fetch(`${server.url}${path}`, { signal: controller.signal })
  if (!response.body) throw new Error('no body')
  return new SseReader(response.body.getReader())
}

function typeOf(frame: Frame): string | undefined {
  return frame.event === 'session-event' ? (JSON.parse(frame.data) as { type: string }).type : undefined
}

function deltas(frames: Frame[]): unknown[] {
  return frames.filter((f) => f.event === 'assistant-delta').map((f) => JSON.parse(f.data))
}

async function sessionWith(server: RunningServer, id: string, text: string): Promise<SseReader> {
  expect(await post(server, '/api/sessions', { timeZone: 'Europe/Berlin', sessionId: id })).toBe(201)
  const sse = await openStream(server, `/api/sessions/${id}/stream`)
  expect(await sse.next()).toEqual({ event: 'status', data: '{"status":"idle"}' })
  expect(await post(server, `/api/sessions/${id}/messages`, { text, clientTimeZone: 'Europe/Berlin' })).toBe(202)
  return sse
}

async function turnEnd(server: RunningServer, id: string): Promise<{ events: readonly SessionEvent[]; end: unknown }> {
  const session = await server.host.openSession(id)
  await waitFor(session, (events) => events.some((e) => e.type === 'turn/end'))
  const events = session.events()
  return { events, end: events.find((e) => e.type === 'turn/end')?.data }
}

describe('openai model through the loop and the stream', () => {
  it('sends assistant-delta frames to an SSE client as the endpoint streams, before the durable assistant/message', async () => {
    const held = gate()
    endpoint.reply({
      stream: [
        frame({ choices: [{ index: 0, delta: { role: 'assistant', content: null, reasoning_content: 'Greet back.' } }] }),
        textChunk('Hel'),
        textChunk('lo'),
        { until: held.promise },
        textChunk(' there'),
        finishChunk(),
        DONE,
      ],
    })
    const dir = await tempDir()
    const server = await start(dir, 'openai:deepseek-chat')
    const sse = await sessionWith(server, 's', 'hello')
    const early = await sse.until((f) => f.event === 'assistant-delta' && f.data.includes('"lo"'))
    expect(deltas(early)).toEqual([
      { turn: 1, step: 1, text: 'Hel' },
      { turn: 1, step: 1, text: 'lo' },
    ])
    expect(early.some((f) => typeOf(f) === 'assistant/message')).toBe(false)
    held.open()
    const rest = await sse.until((f) => typeOf(f) === 'assistant/message')
    expect(deltas(rest)).toEqual([{ turn: 1, step: 1, text: ' there' }])
    const message = JSON.parse(rest.at(-1)?.data ?? '{}') as { data: { content: unknown } }
    expect(message.data.content).toEqual([{ type: 'text', text: 'Hello there' }])
    expect((await endpoint.received(1)).headers.authorization).toBe('Bearer sk-local')
    expect(await readFile(join(dir, 'sessions/s.jsonl'), 'utf8')).not.toContain('Greet back.')
  })

  it('answers tool-call arguments that are not valid JSON with a tool error, and never sends reasoning_content back', async () => {
    endpoint.reply(
      {
        stream: [
          frame({ choices: [{ index: 0, delta: { role: 'assistant', content: null, reasoning_content: 'I should list the reminders.' } }] }),
          frame({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'schedule_', arguments: '' } }] } }] }),
          frame({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'list', arguments: '{"filter": ' } }] } }] }),
          frame({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"active"' } }] } }] }),
          finishChunk('tool_calls'),
          DONE,
        ],
      },
      {
        stream: [
          frame({ choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'The call failed; say so.' } }] }),
          textChunk('I could not list them.'),
          finishChunk(),
          DONE,
        ],
      },
    )
    const dir = await tempDir()
    const server = await start(dir, 'openai:deepseek-chat')
    await sessionWith(server, 't', 'list my reminders')
    const { events, end } = await turnEnd(server, 't')
    expect(end).toEqual({ turn: 1, reason: 'completed' })
    const invalid = 'tool arguments are not valid JSON: {"filter": "active"'
    expect(events.find((e) => e.type === 'tool/result')?.data).toEqual({
      turn: 1,
      step: 1,
      callId: 'call_1',
      content: [{ type: 'text', text: invalid }],
      isError: true,
    })
    expect(events.filter((e) => e.type === 'assistant/message').map((e) => (e.data as { content: unknown }).content)).toEqual([
      [{ type: 'text', text: '' }],
      [{ type: 'text', text: 'I could not list them.' }],
    ])
    const second = (await endpoint.received(2)).body as { messages: unknown[] }
    expect(second.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'schedule_list', arguments: '{"filter": "active"' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: invalid },
    ])
    expect(endpoint.requests).toHaveLength(2)
    for (const seen of endpoint.requests) {
      expect(seen.raw).not.toContain('reasoning_content')
      expect(seen.raw).not.toContain('I should list the reminders.')
    }
  })

  it('retries a 429 within the step and ends the turn with the provider message when the endpoint refuses', async () => {
    endpoint.reply(
      { status: 429, headers: { 'retry-after': '0' }, body: '{"error":{"message":"Rate limit reached"}}' },
      { stream: [textChunk('Fine.'), finishChunk(), DONE] },
      { status: 400, body: '{"error":{"message":"Model Not Exist","type":"invalid_request_error"}}' },
    )
    const dir = await tempDir()
    const server = await start(dir, 'openai:deepseek-chat')
    await sessionWith(server, 'r', 'hi')
    expect((await turnEnd(server, 'r')).end).toEqual({ turn: 1, reason: 'completed' })
    expect(endpoint.requests).toHaveLength(2)

    await sessionWith(server, 'e', 'hi')
    expect((await turnEnd(server, 'e')).end).toEqual({ turn: 1, reason: 'error', message: 'model endpoint answered 400: Model Not Exist' })
    expect(endpoint.requests).toHaveLength(3)
  })

  it('aborts the HTTP request when the turn is cancelled mid-stream', async () => {
    endpoint.reply({ stream: [textChunk('Thinking about')], then: 'hang' })
    const dir = await tempDir()
    const server = await start(dir, 'openai:deepseek-chat')
    const sse = await sessionWith(server, 'c', 'hi')
    await sse.until((f) => f.event === 'assistant-delta')
    expect(await post(server, '/api/sessions/c/cancel', {})).toBe(202)
    expect((await turnEnd(server, 'c')).end).toEqual({ turn: 1, reason: 'aborted' })
    expect(await endpoint.requests[0]?.closedEarly).toBe(true)
  })

  it('ends the turn with the timeout message when a step outlasts modelTimeoutMs', async () => {
    endpoint.reply({ stream: [textChunk('slow')], then: 'hang' })
    const dir = await tempDir()
    const server = await start(dir, 'openai:deepseek-chat', { modelTimeoutMs: 150 })
    await sessionWith(server, 'o', 'hi')
    expect((await turnEnd(server, 'o')).end).toEqual({ turn: 1, reason: 'error', message: 'model step timed out after 150 ms' })
    expect(await endpoint.requests[0]?.closedEarly).toBe(true)
  })
})

describe('script model streaming through the server', () => {
  it('streams an entry with streamDelayMs as assistant-delta frames before its assistant/message', async () => {
    const dir = await tempDir()
    const script = join(dir, 'script.json')
    await writeFile(script, JSON.stringify([{ text: 'Your tea is ready.', streamDelayMs: 5 }]))
    const server = await start(dir, `script:${script}`)
    const sse = await sessionWith(server, 'p', 'tea?')
    const frames = await sse.until((f) => typeOf(f) === 'assistant/message')
    expect(deltas(frames)).toEqual(['Your ', 'tea ', 'is ', 'ready.'].map((text) => ({ turn: 1, step: 1, text })))
  })
})

describe('model settings', () => {
  it('refuses the default DeepSeek endpoint without a key, naming the variable', async () => {
    await expect(createModel('openai:deepseek-chat', { env: {} })).rejects.toThrow(
      'openai:deepseek-chat needs an API key: set DEEPSEEK_API_KEY (or MODEL_BASE_URL and MODEL_API_KEY for another endpoint)',
    )
    expect((await createModel('openai:local', { env: { MODEL_BASE_URL: endpoint.url } })).name).toBe('openai:local')
  })

  it('takes --model-timeout-ms as a positive integer', () => {
    expect(parseArgs(['--model', 'openai:deepseek-chat', '--model-timeout-ms', '30000'], {})).toEqual({
      kind: 'serve',
      options: { port: 4280, host: '127.0.0.1', dataDir: './.data', model: 'openai:deepseek-chat', modelTimeoutMs: 30_000, build: true, leaseMs: 5000 },
    })
    expect(() => parseArgs(['--model-timeout-ms', '0'], {})).toThrow(new Error('--model-timeout-ms must be at least 1'))
    expect(() => parseArgs(['--model-timeout-ms=2.5'], {})).toThrow(new Error('--model-timeout-ms needs a non-negative integer, got "2.5"'))
    expect(() => parseArgs(['--model-timeout-ms'], {})).toThrow(new Error('--model-timeout-ms needs a value'))
  })

  it('serves with --model openai:<model> at MODEL_BASE_URL and ends a step at --model-timeout-ms', async () => {
    endpoint.reply({ stream: [textChunk('slow')], then: 'hang' })
    const dir = await tempDir()
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/server/cli.ts', 'serve', '--port', '0', '--data-dir', dir, '--no-build', '--model', 'openai:m', '--model-timeout-ms', '300'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: '', SCHEDULE_WEB_TOKEN: '', MODEL_BASE_URL: endpoint.url, MODEL_API_KEY: 'sk-cli' } },
    )
    try {
      let out = ''
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk
          const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out)
          if (match?.[1]) resolve(match[1])
        })
        child.once('exit', (code) => reject(new Error(`server exited with ${String(code)}`)))
      })
      const send = (path: string, body: unknown): Promise<Response> =>
        fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      expect((await send('/api/sessions', { timeZone: 'UTC', sessionId: 'cli' })).status).toBe(201)
      expect((await send('/api/sessions/cli/messages', { text: 'hi', clientTimeZone: 'UTC' })).status).toBe(202)
      expect((await endpoint.received(1)).headers.authorization).toBe('Bearer sk-cli')
      const events = await streamUntil(url, 'cli', (all) => all.some((e) => e.type === 'turn/end'))
      expect(events.find((e) => e.type === 'turn/end')?.data).toEqual({ turn: 1, reason: 'error', message: 'model step timed out after 300 ms' })
    } finally {
      child.kill('SIGKILL')
    }
  })
})

async function streamUntil(base: string, id: string, predicate: (events: SessionEvent[]) => boolean): Promise<SessionEvent[]> {
  const sse = new SseReader(((await fetch(`${base}/api/sessions/${id}/stream?after=-1`)).body as ReadableStream<Uint8Array>).getReader())
  const events: SessionEvent[] = []
  for (;;) {
    const frame = await sse.next()
    if (frame.event === 'session-event') events.push(JSON.parse(frame.data) as SessionEvent)
    if (predicate(events)) return events
  }
}

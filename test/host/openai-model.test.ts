import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ModelRequest, ModelResponse } from '../../src/host/models/model.ts'
import { ModelError } from '../../src/host/models/model-error.ts'
import { DEFAULT_MODEL_TIMEOUT_MS, OpenAiModel, openAiOptionsFromEnv, type OpenAiModelOptions } from '../../src/host/models/openai.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { ManualTimers } from '../support/manual-timers.ts'
import { DONE, FakeOpenAiEndpoint, finishChunk, frame, gate, textChunk } from './support/fake-openai-endpoint.ts'

let endpoint: FakeOpenAiEndpoint
beforeEach(async () => {
  endpoint = await FakeOpenAiEndpoint.start()
})
afterEach(async () => {
  await endpoint.close()
})

const request: ModelRequest = { system: 'sys', messages: [{ role: 'user', text: 'hi' }], tools: [] }

function makeModel(overrides: Partial<OpenAiModelOptions> = {}): { model: OpenAiModel; sleeps: number[] } {
  const sleeps: number[] = []
  const model = new OpenAiModel({
    model: 'deepseek-chat',
    baseUrl: endpoint.url,
    apiKey: 'k-1',
    sleep: async (ms) => {
      sleeps.push(ms)
    },
    random: () => 0.5,
    ...overrides,
  })
  return { model, sleeps }
}

type Outcome = { response: ModelResponse } | { error: unknown }

function start(model: OpenAiModel, signal = new AbortController().signal): { deltas: string[]; outcome: Promise<Outcome> } {
  const deltas: string[] = []
  const outcome = model.complete(request, signal, (text) => deltas.push(text)).then(
    (response) => ({ response }),
    (error: unknown) => ({ error }),
  )
  return { deltas, outcome }
}

async function failure(outcome: Promise<Outcome>): Promise<{ name: string; code: string; message: string }> {
  const settled = await outcome
  if (!('error' in settled)) throw new Error(`expected a failure, got ${JSON.stringify(settled.response)}`)
  const error = settled.error
  if (!(error instanceof ModelError)) throw error
  return { name: error.name, code: error.code, message: error.message }
}

const ok = { stream: [textChunk('ok'), finishChunk(), DONE] }
const overloaded = { status: 503, body: '{"error":{"message":"Server overloaded","type":"server_error"}}' }

function firePending(timers: ManualTimers, ms: number): void {
  for (const [id, timer] of timers.pending) {
    if (timer.ms !== ms) continue
    timers.pending.delete(id)
    timer.callback()
    return
  }
  throw new Error(`no pending timer of ${ms} ms; pending: ${[...timers.pending.values()].map((t) => t.ms).join(', ')}`)
}

describe('openai model: streaming', () => {
  it('hands each piece of text to onDelta as it arrives, in order, before the answer resolves', async () => {
    const held = gate()
    endpoint.reply({
      stream: [
        frame({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] }),
        textChunk('Hel'),
        textChunk('lo, '),
        { until: held.promise },
        textChunk('world'),
        finishChunk(),
        frame({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } }),
        DONE,
      ],
    })
    const { model } = makeModel()
    const { deltas, outcome } = start(model)
    await vi.waitFor(() => expect(deltas).toEqual(['Hel', 'lo, ']))
    let settled = false
    void outcome.then(() => (settled = true))
    await new Promise((resolve) => setImmediate(resolve))
    expect(settled).toBe(false)
    held.open()
    expect(await outcome).toEqual({ response: { text: 'Hello, world', toolCalls: [], usage: { inputTokens: 9, outputTokens: 3 } } })
    expect(deltas).toEqual(['Hel', 'lo, ', 'world'])
  })

  it('streams chunks sent with delays between them, CRLF line ends and keep-alive comments', async () => {
    endpoint.reply({
      stream: [': keep-alive\r\n\r\n', textChunk('a').replace(/\n/g, '\r\n'), { delayMs: 15 }, textChunk('b'), { delayMs: 15 }, textChunk('c'), DONE],
    })
    const { model } = makeModel()
    const { deltas, outcome } = start(model)
    expect(await outcome).toEqual({ response: { text: 'abc', toolCalls: [] } })
    expect(deltas).toEqual(['a', 'b', 'c'])
  })

  it('keeps DeepSeek reasoning_content out of the text and the deltas', async () => {
    endpoint.reply({
      stream: [
        frame({ choices: [{ index: 0, delta: { role: 'assistant', content: null, reasoning_content: 'The user greets. ' } }] }),
        frame({ choices: [{ index: 0, delta: { content: null, reasoning_content: 'Answer briefly.' } }] }),
        textChunk('Hi!'),
        finishChunk(),
        DONE,
      ],
    })
    const { model } = makeModel()
    const { deltas, outcome } = start(model)
    expect(await outcome).toEqual({ response: { text: 'Hi!', toolCalls: [] } })
    expect(deltas).toEqual(['Hi!'])
  })

  it('assembles tool calls split across chunks and passes arguments that are not valid JSON through unchanged', async () => {
    endpoint.reply({
      stream: [
        frame({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'schedule_', arguments: '' } }] } }] }),
        frame({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'create', arguments: '{"prompt": "tea", ' } }] } }] }),
        frame({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"after_seconds": 6' } }] } }] }),
        frame({ choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_b', function: { name: 'schedule_list', arguments: '{}' } }] } }] }),
        finishChunk('tool_calls'),
        DONE,
      ],
    })
    const { model } = makeModel()
    const { deltas, outcome } = start(model)
    expect(await outcome).toEqual({
      response: {
        text: '',
        toolCalls: [
          { callId: 'call_a', name: 'schedule_create', arguments: '{"prompt": "tea", "after_seconds": 6' },
          { callId: 'call_b', name: 'schedule_list', arguments: '{}' },
        ],
      },
    })
    expect(deltas).toEqual([])
  })

  it('accepts a stream that ends after a finish_reason without [DONE]', async () => {
    endpoint.reply({ stream: [textChunk('done'), finishChunk()] })
    const { model } = makeModel()
    expect(await start(model).outcome).toEqual({ response: { text: 'done', toolCalls: [] } })
  })
})

describe('openai model: malformed streams', () => {
  it('ends the step at a chunk that is not JSON, without retrying, and closes the request', async () => {
    endpoint.reply({ stream: [textChunk('Hel'), 'data: {"choices":[{"delta":\n\n'], then: 'hang' })
    const { model, sleeps } = makeModel()
    const { deltas, outcome } = start(model)
    expect(await failure(outcome)).toEqual({
      name: 'ModelError',
      code: 'model-malformed-chunk',
      message: 'model stream sent a malformed chunk (not JSON): {"choices":[{"delta":',
    })
    expect(deltas).toEqual(['Hel'])
    expect(await endpoint.requests[0]?.closedEarly).toBe(true)
    expect([endpoint.requests.length, sleeps]).toEqual([1, []])
  })

  it('ends the step at a chunk that does not fit the chunk schema, naming the field', async () => {
    endpoint.reply({ stream: [frame({ choices: [{ index: 0, delta: { content: 42 } }] })], then: 'hang' })
    const { model } = makeModel()
    expect(await failure(start(model).outcome)).toEqual({
      name: 'ModelError',
      code: 'model-malformed-chunk',
      message: 'model stream sent a malformed chunk (choices.0.delta.content: Invalid input: expected string, received number): {"choices":[{"index":0,"delta":{"content":42}}]}',
    })
  })

  it('ends the step with the message of an error the provider sends inside the stream', async () => {
    endpoint.reply({ stream: [frame({ error: { message: 'This model maximum context length is 65536 tokens', code: 'context_length_exceeded' } })], then: 'hang' })
    const { model } = makeModel()
    expect(await failure(start(model).outcome)).toEqual({
      name: 'ModelError',
      code: 'model-provider-error',
      message: 'model endpoint reported an error: This model maximum context length is 65536 tokens',
    })
  })
})

describe('openai model: retries', () => {
  it('retries a 429 after the seconds of its Retry-After, then streams the answer', async () => {
    endpoint.reply({ status: 429, headers: { 'retry-after': '2' }, body: '{"error":{"message":"Rate limit reached"}}' }, ok)
    const { model, sleeps } = makeModel()
    const { deltas, outcome } = start(model)
    expect(await outcome).toEqual({ response: { text: 'ok', toolCalls: [] } })
    expect(deltas).toEqual(['ok'])
    expect(sleeps).toEqual([2_000])
    expect(endpoint.requests.map((r) => r.raw)).toEqual([endpoint.requests[0]?.raw, endpoint.requests[0]?.raw])
  })

  it('honours a Retry-After given as an HTTP date, against the clock', async () => {
    const clock = new FakeClock(Date.UTC(2026, 6, 15, 1, 1, 1))
    endpoint.reply({ status: 503, headers: { 'retry-after': new Date(clock.now() + 7_000).toUTCString() }, body: 'busy' }, ok)
    const { model, sleeps } = makeModel({ clock })
    expect(await start(model).outcome).toEqual({ response: { text: 'ok', toolCalls: [] } })
    expect(sleeps).toEqual([7_000])
  })

  it('backs off exponentially with jitter between tries, and fails with the provider message after 3 tries', async () => {
    endpoint.reply({ status: 500, body: '' }, { status: 502, body: '<html>Bad Gateway</html>' }, overloaded, ok)
    const randoms = [0, 0.999]
    const { model, sleeps } = makeModel({ random: () => randoms.shift() ?? 0.5 })
    expect(await failure(start(model).outcome)).toEqual({
      name: 'ModelError',
      code: 'model-http',
      message: 'model endpoint answered 503 after 3 tries: Server overloaded',
    })
    expect(sleeps).toEqual([500, 1_999])
    expect(endpoint.requests).toHaveLength(3)
  })

  it('waits each backoff on its timers before the next try (default sleep)', async () => {
    endpoint.reply(overloaded, overloaded, ok)
    const timers = new ManualTimers()
    const model = new OpenAiModel({ model: 'm', baseUrl: endpoint.url, apiKey: undefined, timers, random: () => 0.5 })
    const { outcome } = start(model)
    await vi.waitFor(() => expect(timers.requested).toEqual([DEFAULT_MODEL_TIMEOUT_MS, 750]))
    expect(endpoint.requests).toHaveLength(1)
    firePending(timers, 750)
    await vi.waitFor(() => expect(timers.requested).toEqual([DEFAULT_MODEL_TIMEOUT_MS, 750, 1_500]))
    expect(endpoint.requests).toHaveLength(2)
    firePending(timers, 1_500)
    expect(await outcome).toEqual({ response: { text: 'ok', toolCalls: [] } })
    expect(endpoint.requests).toHaveLength(3)
    expect(timers.pending.size).toBe(0)
  })

  it('does not retry a client error', async () => {
    endpoint.reply({ status: 401, body: '{"error":{"message":"Authentication Fails (no such user)","type":"authentication_error"}}' }, ok)
    const { model, sleeps } = makeModel()
    expect(await failure(start(model).outcome)).toEqual({
      name: 'ModelError',
      code: 'model-http',
      message: 'model endpoint answered 401: Authentication Fails (no such user)',
    })
    expect([endpoint.requests.length, sleeps]).toEqual([1, []])
  })

  it('gives up at once when Retry-After asks for longer than the step has left', async () => {
    endpoint.reply({ status: 429, headers: { 'retry-after': '60' }, body: '{"error":"slow down"}' }, ok)
    const { model, sleeps } = makeModel({ timeoutMs: 30_000, clock: new FakeClock() })
    expect(await failure(start(model).outcome)).toEqual({
      name: 'ModelError',
      code: 'model-http',
      message: 'model endpoint answered 429: slow down (Retry-After 60 s is past the step timeout)',
    })
    expect([endpoint.requests.length, sleeps]).toEqual([1, []])
  })

  it('retries a connection dropped before any answer, and reports the network error after 3 tries', async () => {
    endpoint.reply({ destroy: true }, { destroy: true }, ok)
    const first = makeModel()
    expect(await start(first.model).outcome).toEqual({ response: { text: 'ok', toolCalls: [] } })
    expect(first.sleeps).toEqual([750, 1_500])

    endpoint.reply({ destroy: true }, { destroy: true }, { destroy: true })
    const second = makeModel()
    expect(await failure(start(second.model).outcome)).toEqual({
      name: 'ModelError',
      code: 'model-unreachable',
      message: 'model endpoint unreachable after 3 tries: other side closed',
    })
  })

  it('retries a stream dropped before any text, showing only the new try', async () => {
    endpoint.reply(
      { stream: [frame({ choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'thinking' } }] })], then: 'destroy' },
      { stream: [textChunk('fresh'), finishChunk(), DONE] },
    )
    const { model, sleeps } = makeModel()
    const { deltas, outcome } = start(model)
    expect(await outcome).toEqual({ response: { text: 'fresh', toolCalls: [] } })
    expect(deltas).toEqual(['fresh'])
    expect(sleeps).toEqual([750])
  })

  it('fails a stream dropped after its text began, without a retry that would show the text twice', async () => {
    const shown = gate()
    endpoint.reply({ stream: [textChunk('Hel'), { until: shown.promise }], then: 'destroy' }, ok)
    const { model, sleeps } = makeModel()
    const { deltas, outcome } = start(model)
    await vi.waitFor(() => expect(deltas).toEqual(['Hel']))
    shown.open()
    expect(await failure(outcome)).toEqual({ name: 'ModelError', code: 'model-stream-broken', message: 'model stream broke off: other side closed' })
    expect(deltas).toEqual(['Hel'])
    expect([endpoint.requests.length, sleeps]).toEqual([1, []])
  })

  it('fails a stream that ends cleanly before it finished', async () => {
    endpoint.reply({ stream: [textChunk('Hel')] })
    const { model } = makeModel()
    expect(await failure(start(model).outcome)).toEqual({
      name: 'ModelError',
      code: 'model-stream-broken',
      message: 'model stream broke off: the stream ended before [DONE]',
    })
  })
})

describe('openai model: cancel and timeout', () => {
  it('aborts the HTTP request when the step is cancelled mid-stream, rejecting with the reason', async () => {
    endpoint.reply({ stream: [textChunk('Hel')], then: 'hang' })
    const { model } = makeModel()
    const controller = new AbortController()
    const { deltas, outcome } = start(model, controller.signal)
    await vi.waitFor(() => expect(deltas).toEqual(['Hel']))
    const reason = new Error('cancelled by the user')
    controller.abort(reason)
    expect(await outcome).toEqual({ error: reason })
    expect(await endpoint.requests[0]?.closedEarly).toBe(true)
  })

  it('stops waiting out a backoff when cancelled', async () => {
    endpoint.reply(overloaded, ok)
    const timers = new ManualTimers()
    const model = new OpenAiModel({ model: 'm', baseUrl: endpoint.url, apiKey: undefined, timers, random: () => 0 })
    const controller = new AbortController()
    const { outcome } = start(model, controller.signal)
    await vi.waitFor(() => expect(timers.requested).toEqual([DEFAULT_MODEL_TIMEOUT_MS, 500]))
    controller.abort('stop')
    expect(await outcome).toEqual({ error: 'stop' })
    expect(endpoint.requests).toHaveLength(1)
    expect(timers.pending.size).toBe(0)
  })

  it('times the step out, closing the request, and says after how long', async () => {
    endpoint.reply({ stream: [textChunk('Hel')], then: 'hang' })
    const timers = new ManualTimers()
    const { model } = makeModel({ timers, timeoutMs: 45_000 })
    const { deltas, outcome } = start(model)
    await vi.waitFor(() => expect(deltas).toEqual(['Hel']))
    expect(timers.requested).toEqual([45_000])
    firePending(timers, 45_000)
    expect(await failure(outcome)).toEqual({ name: 'ModelError', code: 'model-timeout', message: 'model step timed out after 45000 ms' })
    expect(await endpoint.requests[0]?.closedEarly).toBe(true)
  })

  it('counts the timeout over every try, waits included', async () => {
    endpoint.reply(overloaded, { stream: [], then: 'hang' })
    const timers = new ManualTimers()
    const model = new OpenAiModel({ model: 'm', baseUrl: endpoint.url, apiKey: undefined, timers, random: () => 0, timeoutMs: 1_000 })
    const { outcome } = start(model)
    await vi.waitFor(() => expect(timers.requested).toEqual([1_000, 500]))
    firePending(timers, 500)
    await endpoint.received(2)
    firePending(timers, 1_000)
    expect(await failure(outcome)).toEqual({ name: 'ModelError', code: 'model-timeout', message: 'model step timed out after 1000 ms' })
    expect(await endpoint.requests[1]?.closedEarly).toBe(true)
  })

  it('clears its timeout once the step is answered', async () => {
    endpoint.reply(ok)
    const timers = new ManualTimers()
    const { model } = makeModel({ timers })
    expect(await start(model).outcome).toEqual({ response: { text: 'ok', toolCalls: [] } })
    expect([timers.requested, timers.pending.size]).toEqual([[DEFAULT_MODEL_TIMEOUT_MS], 0])
  })
})

describe('openai model: requests', () => {
  it('sends the history without anything but the answer, and the tools, with the key as a bearer token', async () => {
    endpoint.reply({
      stream: [
        frame({ choices: [{ delta: { content: 'Hel' } }] }),
        frame({ choices: [{ delta: { content: 'lo' } }] }),
        frame({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 7 } }),
        DONE,
      ],
    })
    const { model } = makeModel()
    expect(model.name).toBe('openai:deepseek-chat')
    const response = await model.complete(
      {
        system: 'sys',
        messages: [
          { role: 'user', text: 'hello' },
          { role: 'assistant', text: 'Checking.', toolCalls: [{ callId: 'c0', name: 'echo', arguments: '{"x":' }] },
          { role: 'tool', callId: 'c0', text: 'tool arguments are not valid JSON: {"x":', isError: true },
        ],
        tools: [{ name: 'echo', description: 'Echo.', parameters: { type: 'object' } }],
      },
      new AbortController().signal,
    )
    expect(response).toEqual({ text: 'Hello', toolCalls: [], usage: { inputTokens: 11, outputTokens: 7 } })
    const seen = await endpoint.received(1)
    expect([seen.url, seen.headers.authorization, seen.headers.accept]).toEqual(['/v1/chat/completions', 'Bearer k-1', 'text/event-stream'])
    expect(seen.body).toEqual({
      model: 'deepseek-chat',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'c0', type: 'function', function: { name: 'echo', arguments: '{"x":' } }] },
        { role: 'tool', tool_call_id: 'c0', content: 'tool arguments are not valid JSON: {"x":' },
      ],
      tools: [{ type: 'function', function: { name: 'echo', description: 'Echo.', parameters: { type: 'object' } } }],
    })
  })

  it('sends a provider key only to its own endpoint', () => {
    const env = { DEEPSEEK_API_KEY: 'ds', OPENAI_API_KEY: 'oa' }
    expect(openAiOptionsFromEnv('deepseek-v4-flash', env)).toEqual({ model: 'deepseek-v4-flash', baseUrl: 'https://api.deepseek.com', apiKey: 'ds', thinking: 'disabled' })
    expect(openAiOptionsFromEnv('m', { ...env, MODEL_BASE_URL: 'http://127.0.0.1:8080/v1' })).toEqual({
      model: 'm',
      baseUrl: 'http://127.0.0.1:8080/v1',
      apiKey: undefined,
    })
    expect(openAiOptionsFromEnv('m', { ...env, MODEL_BASE_URL: 'http://127.0.0.1:8080/v1', MODEL_API_KEY: 'mk' })).toMatchObject({ apiKey: 'mk' })
    expect(openAiOptionsFromEnv('m', { ...env, OPENAI_BASE_URL: 'https://api.openai.com/v1' })).toMatchObject({ apiKey: 'oa' })
    expect(openAiOptionsFromEnv('m', { MODEL_BASE_URL: '', MODEL_API_KEY: '', DEEPSEEK_API_KEY: 'ds' })).toEqual({
      model: 'm',
      baseUrl: 'https://api.deepseek.com',
      apiKey: 'ds',
      thinking: 'disabled',
    })
  })

  it("asks DeepSeek's own API, and only it, for answers without thinking", () => {
    const thinking = (baseUrl: string) => openAiOptionsFromEnv('m', { MODEL_BASE_URL: baseUrl, MODEL_API_KEY: 'mk' }).thinking
    expect(
      ['https://api.deepseek.com', 'https://API.DeepSeek.com/v1/', 'http://127.0.0.1:8080/v1', 'https://api.openai.com/v1', 'https://api.deepseek.com.example.org/v1', 'not a url'].map(
        thinking,
      ),
    ).toEqual(['disabled', 'disabled', undefined, undefined, undefined, undefined])
  })

  it('sends the thinking switch it was given in the request body (without one, the body has none: see the request above)', async () => {
    endpoint.reply(ok)
    const { model } = makeModel({ thinking: 'disabled' })
    await model.complete(request, new AbortController().signal)
    expect((await endpoint.received(1)).body).toEqual({
      model: 'deepseek-chat',
      stream: true,
      stream_options: { include_usage: true },
      thinking: { type: 'disabled' },
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi' },
      ],
    })
  })
})

import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { OpenAiModel, openAiOptionsFromEnv } from '../../src/host/models/openai.ts'
import { ScriptFileModel } from '../../src/host/models/script-file.ts'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import type { ModelRequest } from '../../src/host/models/model.ts'
import { tempDir } from '../support/temp-dir.ts'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
})

async function body(req: IncomingMessage): Promise<string> {
  let data = ''
  for await (const chunk of req) data += String(chunk)
  return data
}

async function fakeEndpoint(handler: (req: IncomingMessage, body: string) => { status: number; chunks: string[] }) {
  const seen: { url: string; headers: IncomingMessage['headers']; body: unknown }[] = []
  const server = createServer(async (req, res) => {
    const text = await body(req)
    seen.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(text) })
    const { status, chunks } = handler(req, text)
    res.writeHead(status, { 'content-type': status === 200 ? 'text/event-stream' : 'application/json' })
    for (const chunk of chunks) {
      res.write(chunk)
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    res.end()
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen }
}

const request: ModelRequest = {
  system: 'sys',
  messages: [
    { role: 'user', text: 'hello' },
    { role: 'assistant', text: '', toolCalls: [{ callId: 'c0', name: 'echo', arguments: '{}' }] },
    { role: 'tool', callId: 'c0', text: 'result', isError: false },
  ],
  tools: [{ name: 'echo', description: 'Echo.', parameters: { type: 'object' } }],
}

describe('openai model', () => {
  it('streams text and tool calls from an OpenAI-compatible endpoint', async () => {
    const frame = (obj: unknown): string => `data: ${JSON.stringify(obj)}\n\n`
    const endpoint = await fakeEndpoint(() => ({
      status: 200,
      chunks: [
        frame({ choices: [{ delta: { content: 'Hel' } }] }),
        frame({ choices: [{ delta: { content: 'lo' } }] }),
        frame({ choices: [{ delta: { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'sched', arguments: '{"a":' } }] } }] }),
        frame({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '1}' } }] } }] }),
        frame({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 7 } }),
        'data: [DONE]\n\n',
      ],
    }))
    const model = new OpenAiModel({ model: 'deepseek-chat', baseUrl: endpoint.url, apiKey: 'k-123' })
    const response = await model.complete(request, new AbortController().signal)
    expect(response).toEqual({
      text: 'Hello',
      toolCalls: [{ callId: 'call_1', name: 'sched', arguments: '{"a":1}' }],
      usage: { inputTokens: 11, outputTokens: 7 },
    })
    expect(model.name).toBe('openai:deepseek-chat')
    expect(endpoint.seen[0].url).toBe('/v1/chat/completions')
    expect(endpoint.seen[0].headers.authorization).toBe('Bearer k-123')
    expect(endpoint.seen[0].body).toEqual({
      model: 'deepseek-chat',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c0', type: 'function', function: { name: 'echo', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c0', content: 'result' },
      ],
      tools: [{ type: 'function', function: { name: 'echo', description: 'Echo.', parameters: { type: 'object' } } }],
    })
  })

  it('reports a failing endpoint with its status and the provider message', async () => {
    const endpoint = await fakeEndpoint(() => ({ status: 401, chunks: ['{"error":"bad key"}'] }))
    const model = new OpenAiModel({ model: 'm', baseUrl: endpoint.url, apiKey: undefined })
    await expect(model.complete(request, new AbortController().signal)).rejects.toThrow(
      'model endpoint answered 401: bad key',
    )
  })

  it('defaults to DeepSeek and reads the key from the environment', () => {
    expect(openAiOptionsFromEnv('deepseek-chat', { DEEPSEEK_API_KEY: 'x' })).toEqual({
      model: 'deepseek-chat',
      baseUrl: 'https://api.deepseek.com',
      apiKey: 'x',
    })
    expect(openAiOptionsFromEnv('gpt', { MODEL_BASE_URL: 'http://127.0.0.1:1/v1', MODEL_API_KEY: 'y' })).toEqual({
      model: 'gpt',
      baseUrl: 'http://127.0.0.1:1/v1',
      apiKey: 'y',
    })
  })
})

describe('script and scripted models', () => {
  it('replays a script file in order and answers empty text once exhausted', async () => {
    const dir = await tempDir()
    const path = join(dir, 'script.json')
    await writeFile(path, JSON.stringify([{ text: 'one' }, { toolCalls: [{ name: 'schedule_list', arguments: {} }] }]))
    const model = await ScriptFileModel.load(path)
    const signal = new AbortController().signal
    expect(await model.complete(request, signal)).toEqual({ text: 'one', toolCalls: [] })
    expect(await model.complete(request, signal)).toEqual({ text: '', toolCalls: [{ name: 'schedule_list', arguments: '{}' }] })
    expect(await model.complete(request, signal)).toEqual({ text: '', toolCalls: [] })
  })

  it('refuses a malformed script file', async () => {
    const dir = await tempDir()
    const path = join(dir, 'bad.json')
    await writeFile(path, JSON.stringify([{ txt: 'typo' }]))
    await expect(ScriptFileModel.load(path)).rejects.toThrow(`script ${path} is not a valid script`)
  })

  it('streams an entry with streamDelayMs word by word, one piece every N ms, the answer N ms after the last', async () => {
    vi.useFakeTimers()
    try {
      const model = new ScriptFileModel([{ text: 'Tea is ready.', streamDelayMs: 100 }, { toolCalls: [{ name: 'schedule_list', arguments: {} }], streamDelayMs: 50 }])
      const deltas: string[] = []
      let answer: unknown
      void model.complete(request, new AbortController().signal, (text) => deltas.push(text)).then((r) => (answer = r))
      await vi.advanceTimersByTimeAsync(0)
      expect(deltas).toEqual(['Tea '])
      await vi.advanceTimersByTimeAsync(99)
      expect(deltas).toEqual(['Tea '])
      await vi.advanceTimersByTimeAsync(1)
      expect(deltas).toEqual(['Tea ', 'is '])
      await vi.advanceTimersByTimeAsync(100)
      expect([deltas, answer]).toEqual([['Tea ', 'is ', 'ready.'], undefined])
      await vi.advanceTimersByTimeAsync(100)
      expect(answer).toEqual({ text: 'Tea is ready.', toolCalls: [] })
      expect(await model.complete(request, new AbortController().signal, (text) => deltas.push(text))).toEqual({
        text: '',
        toolCalls: [{ name: 'schedule_list', arguments: '{}' }],
      })
      expect(deltas).toEqual(['Tea ', 'is ', 'ready.'])
    } finally {
      vi.useRealTimers()
    }
  })

  it('stops streaming a script entry when cancelled', async () => {
    const model = new ScriptFileModel([{ text: 'one two three', streamDelayMs: 60_000 }])
    const controller = new AbortController()
    const deltas: string[] = []
    const answer = model.complete(request, controller.signal, (text) => deltas.push(text))
    controller.abort('stop')
    await expect(answer).rejects.toBe('stop')
    expect(deltas).toEqual(['one '])
  })

  it('accepts streamDelayMs in a script file and refuses a bad one', async () => {
    const dir = await tempDir()
    const good = join(dir, 'good.json')
    await writeFile(good, JSON.stringify([{ text: 'a b', delayMs: 0, streamDelayMs: 1 }]))
    const deltas: string[] = []
    expect(await (await ScriptFileModel.load(good)).complete(request, new AbortController().signal, (t) => deltas.push(t))).toEqual({ text: 'a b', toolCalls: [] })
    expect(deltas).toEqual(['a ', 'b'])
    for (const bad of [0, -5, 1.5, '10']) {
      const path = join(dir, 'bad-stream.json')
      await writeFile(path, JSON.stringify([{ text: 'x', streamDelayMs: bad }]))
      await expect(ScriptFileModel.load(path)).rejects.toThrow(`script ${path} is not a valid script`)
    }
  })

  it('records every request it receives', async () => {
    const model = new ScriptedModel().push({ text: 'a' })
    await model.complete(request, new AbortController().signal)
    expect(model.requests).toEqual([request])
  })
})

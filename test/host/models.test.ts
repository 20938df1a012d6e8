import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { ScriptFileModel } from '../../src/host/models/script-file.ts'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import type { ModelRequest } from '../../src/host/models/model.ts'
import { tempDir } from '../support/temp-dir.ts'

const request: ModelRequest = {
  system: 'sys',
  messages: [
    { role: 'user', text: 'hello' },
    { role: 'assistant', text: '', toolCalls: [{ callId: 'c0', name: 'echo', arguments: '{}' }] },
    { role: 'tool', callId: 'c0', text: 'result', isError: false },
  ],
  tools: [{ name: 'echo', description: 'Echo.', parameters: { type: 'object' } }],
}

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

import type { Usage } from '../../protocol/index.ts'
import type { Model, ModelMessage, ModelRequest, ModelResponse, ModelToolCall } from './model.ts'

/** Where and how to reach an OpenAI-compatible chat-completions endpoint. */
export type OpenAiModelOptions = {
  model: string
  baseUrl: string
  apiKey: string | undefined
  fetch?: typeof fetch
  temperature?: number
}

/** Default endpoint: DeepSeek's OpenAI-compatible API. */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.deepseek.com'

/** Endpoint settings from the environment: MODEL_BASE_URL / MODEL_API_KEY, DeepSeek by default. */
export function openAiOptionsFromEnv(model: string, env: NodeJS.ProcessEnv = process.env): OpenAiModelOptions {
  return {
    model,
    baseUrl: env.MODEL_BASE_URL ?? env.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL,
    apiKey: env.MODEL_API_KEY ?? env.DEEPSEEK_API_KEY ?? env.OPENAI_API_KEY,
  }
}

type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant'
      content: string
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[]
    }
  | { role: 'tool'; tool_call_id: string; content: string }

function toWire(system: string, messages: ModelMessage[]): WireMessage[] {
  const out: WireMessage[] = [{ role: 'system', content: system }]
  for (const m of messages) {
    switch (m.role) {
      case 'user':
        out.push({ role: 'user', content: m.text })
        break
      case 'assistant':
        out.push({
          role: 'assistant',
          content: m.text,
          ...(m.toolCalls.length > 0
            ? {
                tool_calls: m.toolCalls.map((c) => ({
                  id: c.callId,
                  type: 'function' as const,
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        })
        break
      case 'tool':
        out.push({ role: 'tool', tool_call_id: m.callId, content: m.text })
        break
      default: {
        const never: never = m
        throw new Error(`unknown message ${JSON.stringify(never)}`)
      }
    }
  }
  return out
}

type Delta = {
  content?: string | null
  tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[]
}
type Chunk = {
  choices?: { delta?: Delta }[]
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null
}

/** Accumulates streamed chunks into one response. */
export class StreamAccumulator {
  private text = ''
  private readonly calls: { id?: string; name: string; arguments: string }[] = []
  private usage: Usage | undefined

  /** Folds one parsed chunk in. */
  add(chunk: Chunk): void {
    const delta = chunk.choices?.[0]?.delta
    if (delta?.content) this.text += delta.content
    for (const tc of delta?.tool_calls ?? []) {
      const slot = (this.calls[tc.index] ??= { name: '', arguments: '' })
      if (tc.id) slot.id = tc.id
      if (tc.function?.name) slot.name += tc.function.name
      if (tc.function?.arguments) slot.arguments += tc.function.arguments
    }
    if (chunk.usage) {
      this.usage = {
        ...(chunk.usage.prompt_tokens === undefined ? {} : { inputTokens: chunk.usage.prompt_tokens }),
        ...(chunk.usage.completion_tokens === undefined ? {} : { outputTokens: chunk.usage.completion_tokens }),
      }
    }
  }

  /** The assembled response. */
  result(): ModelResponse {
    const toolCalls: ModelToolCall[] = this.calls
      .filter((c) => c !== undefined)
      .map((c) => ({ ...(c.id ? { callId: c.id } : {}), name: c.name, arguments: c.arguments }))
    return { text: this.text, toolCalls, ...(this.usage ? { usage: this.usage } : {}) }
  }
}

/** A model behind any OpenAI-compatible chat-completions endpoint, streaming, with tool calls. */
export class OpenAiModel implements Model {
  readonly name: string

  constructor(private readonly options: OpenAiModelOptions) {
    this.name = `openai:${options.model}`
  }

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    const doFetch = this.options.fetch ?? fetch
    const body = {
      model: this.options.model,
      messages: toWire(request.system, request.messages),
      stream: true,
      stream_options: { include_usage: true },
      ...(this.options.temperature === undefined ? {} : { temperature: this.options.temperature }),
      ...(request.tools.length > 0
        ? {
            tools: request.tools.map((t) => ({
              type: 'function',
              function: { name: t.name, description: t.description, parameters: t.parameters },
            })),
          }
        : {}),
    }
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/chat/completions`
    const response = await doFetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal,
    })
    if (!response.ok || !response.body) {
      const detail = await response.text().catch(() => '')
      throw new Error(`model endpoint answered ${response.status}: ${detail.slice(0, 500)}`)
    }
    const acc = new StreamAccumulator()
    const decoder = new TextDecoder()
    let buffer = ''
    const reader = response.body.getReader()
    const handleLine = (line: string): boolean => {
      const trimmed = line.trim()
      if (!trimmed.startsWith('data:')) return false
      const payload = trimmed.slice(5).trim()
      if (payload === '[DONE]') return true
      acc.add(JSON.parse(payload) as Chunk)
      return false
    }
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      let nl: number
      while ((nl = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        if (handleLine(line)) {
          await reader.cancel().catch(() => undefined)
          return acc.result()
        }
      }
    }
    if (buffer.trim() !== '') handleLine(buffer)
    return acc.result()
  }
}

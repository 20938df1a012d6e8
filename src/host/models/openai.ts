import { errorMessage } from '../../protocol/index.ts'
import { realTimers, systemClock, type Clock, type Timers } from '../plugin-api.ts'
import { abortableDelay, type DeltaListener, type Model, type ModelRequest, type ModelResponse } from './model.ts'
import { ModelError } from './model-error.ts'
import { StreamAccumulator } from './openai-accumulator.ts'
import { decodeStreamItem, providerMessage } from './openai-schemas.ts'
import { chatCompletionsBody } from './openai-wire.ts'
import { backoffDelayMs, DEFAULT_RETRY, isRetryableStatus, retryAfterMs, type RetryPolicy } from './retry-policy.ts'
import { SseDataDecoder } from './sse-decoder.ts'

export { StreamAccumulator } from './openai-accumulator.ts'

/** Where and how to reach an OpenAI-compatible chat-completions endpoint, and how a step retries and times out. */
export type OpenAiModelOptions = {
  model: string
  baseUrl: string
  apiKey: string | undefined
  temperature?: number
  /**
   * DeepSeek's thinking switch, sent as `thinking: {type}` (only DeepSeek's endpoint knows the
   * field, so it is absent for others). The server asks DeepSeek for `disabled`: in thinking mode an
   * answer that calls a tool must have its `reasoning_content` sent back in every later request, and
   * this app keeps reasoning out of its logs and requests (SPEC 10).
   */
  thinking?: 'enabled' | 'disabled'
  /** Time one step may take in all, tries and waits included. */
  timeoutMs?: number
  retry?: RetryPolicy
  /** Waits between tries. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
  /** Timers of the step timeout. */
  timers?: Timers
  /** Reads `Retry-After` dates and the step's deadline. */
  clock?: Clock
  /** Jitter of the backoff, in [0, 1). */
  random?: () => number
}

/** Default endpoint: DeepSeek's OpenAI-compatible API. */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.deepseek.com'

/** Default time one model step may take (SPEC 10 `--model-timeout-ms`). */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}

/** True for DeepSeek's own API (whatever path), the one endpoint that knows the `thinking` switch. */
export function isDeepSeekEndpoint(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname.toLowerCase() === new URL(DEFAULT_OPENAI_BASE_URL).hostname
  } catch {
    return false
  }
}

/**
 * Endpoint settings from the environment: MODEL_BASE_URL / MODEL_API_KEY, else DeepSeek with
 * DEEPSEEK_API_KEY. A provider's own key goes only to its own endpoint. DeepSeek's API is asked
 * for answers without thinking (what `deepseek-chat` was), so tool calls work on every model.
 */
export function openAiOptionsFromEnv(model: string, env: NodeJS.ProcessEnv = process.env): OpenAiModelOptions {
  const custom = nonEmpty(env.MODEL_BASE_URL)
  const openai = nonEmpty(env.OPENAI_BASE_URL)
  const baseUrl = custom ?? openai ?? DEFAULT_OPENAI_BASE_URL
  const providerKey = custom !== undefined ? undefined : openai !== undefined ? env.OPENAI_API_KEY : env.DEEPSEEK_API_KEY
  return { model, baseUrl, apiKey: nonEmpty(env.MODEL_API_KEY) ?? nonEmpty(providerKey), ...(isDeepSeekEndpoint(baseUrl) ? { thinking: 'disabled' as const } : {}) }
}

type Attempt =
  | { ok: true; response: ModelResponse }
  | { ok: false; retryable: boolean; retryAfterMs?: number; fail: (tries: number) => ModelError }

const noDelta: DeltaListener = () => undefined

function triesNote(tries: number): string {
  return tries > 1 ? ` after ${tries} tries` : ''
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined
  return cause instanceof Error && cause.message !== '' ? cause.message : errorMessage(error)
}

/**
 * A model behind any OpenAI-compatible chat-completions endpoint (SPEC 10): streams text to
 * `onDelta`, decodes every chunk by its schema, retries 429/5xx/network failures with capped,
 * jittered backoff honouring `Retry-After`, and bounds each step by a timeout.
 */
export class OpenAiModel implements Model {
  readonly name: string
  private readonly timeoutMs: number
  private readonly retry: RetryPolicy
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>
  private readonly timers: Timers
  private readonly clock: Clock
  private readonly random: () => number

  constructor(private readonly options: OpenAiModelOptions) {
    this.name = `openai:${options.model}`
    this.timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS
    this.retry = options.retry ?? DEFAULT_RETRY
    this.timers = options.timers ?? realTimers
    this.sleep = options.sleep ?? ((ms, signal) => abortableDelay(ms, signal, this.timers))
    this.clock = options.clock ?? systemClock
    this.random = options.random ?? Math.random
  }

  async complete(request: ModelRequest, signal: AbortSignal, onDelta: DeltaListener = noDelta): Promise<ModelResponse> {
    signal.throwIfAborted()
    const body = JSON.stringify(chatCompletionsBody(this.options.model, request, { temperature: this.options.temperature, thinking: this.options.thinking }))
    const deadline = this.clock.now() + this.timeoutMs
    const timeout = new AbortController()
    const timer = this.timers.set(
      () => timeout.abort(new ModelError('model-timeout', `model step timed out after ${this.timeoutMs} ms`)),
      this.timeoutMs,
    )
    const stepSignal = AbortSignal.any([signal, timeout.signal])
    try {
      for (let tries = 1; ; tries++) {
        const attempt = await this.attempt(body, stepSignal, onDelta)
        if (attempt.ok) return attempt.response
        if (!attempt.retryable || tries >= this.retry.tries) throw attempt.fail(tries)
        const wait = attempt.retryAfterMs ?? backoffDelayMs(this.retry, tries, this.random())
        if (attempt.retryAfterMs !== undefined && this.clock.now() + wait > deadline) {
          const error = attempt.fail(tries)
          throw new ModelError(error.code, `${error.message} (Retry-After ${Math.ceil(wait / 1_000)} s is past the step timeout)`, error.details)
        }
        await this.sleep(wait, stepSignal)
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason
      if (timeout.signal.aborted) throw timeout.signal.reason
      throw error
    } finally {
      this.timers.clear(timer)
    }
  }

  private async attempt(body: string, signal: AbortSignal, onDelta: DeltaListener): Promise<Attempt> {
    let response: Response
    try {
      response = await fetch(`${this.options.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body,
        signal,
      })
    } catch (error) {
      if (signal.aborted) throw error
      return {
        ok: false,
        retryable: true,
        fail: (tries) => new ModelError('model-unreachable', `model endpoint unreachable${triesNote(tries)}: ${causeOf(error)}`, { tries }),
      }
    }
    if (!response.ok) {
      const text = await response.text().catch((error: unknown) => {
        if (signal.aborted) throw error
        return ''
      })
      const status = response.status
      const message = providerMessage(text, response.statusText)
      const wait = retryAfterMs(response.headers.get('retry-after'), this.clock.now())
      return {
        ok: false,
        retryable: isRetryableStatus(status),
        ...(wait === undefined ? {} : { retryAfterMs: wait }),
        fail: (tries) => new ModelError('model-http', `model endpoint answered ${status}${triesNote(tries)}: ${message}`, { status, tries }),
      }
    }
    return this.read(response, signal, onDelta)
  }

  private async read(response: Response, signal: AbortSignal, onDelta: DeltaListener): Promise<Attempt> {
    const acc = new StreamAccumulator()
    const broken = (cause: string): Attempt => ({
      ok: false,
      retryable: !acc.hasText,
      fail: (tries) => new ModelError('model-stream-broken', `model stream broke off${triesNote(tries)}: ${cause}`, { tries }),
    })
    if (!response.body) return broken('the answer had no body')
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    const sse = new SseDataDecoder()
    let open = true
    try {
      for (;;) {
        let next: ReadableStreamReadResult<Uint8Array>
        try {
          next = await reader.read()
        } catch (error) {
          open = false
          if (signal.aborted) throw error
          return broken(causeOf(error))
        }
        if (next.done) open = false
        const payloads = next.done ? [...sse.push(decoder.decode()), ...sse.end()] : sse.push(decoder.decode(next.value, { stream: true }))
        for (const payload of payloads) {
          const item = decodeStreamItem(payload)
          switch (item.kind) {
            case 'done':
              return { ok: true, response: acc.result() }
            case 'error':
              throw new ModelError('model-provider-error', `model endpoint reported an error: ${item.message}`)
            case 'chunk': {
              const piece = acc.add(item.chunk)
              if (piece !== '') onDelta(piece)
              break
            }
            default: {
              const never: never = item
              throw new Error(`unknown stream item ${JSON.stringify(never)}`)
            }
          }
        }
        if (next.done) return acc.finished ? { ok: true, response: acc.result() } : broken('the stream ended before [DONE]')
      }
    } finally {
      if (open) await reader.cancel().catch(() => undefined)
    }
  }
}

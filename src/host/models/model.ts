import type { ToolCall, Usage } from '../../protocol/index.ts'
import { realTimers, type JsonSchema, type Timers } from '../plugin-api.ts'

/** One message of a model request, rebuilt from the durable surface. */
export type ModelMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ToolCall[] }
  | { role: 'tool'; callId: string; text: string; isError: boolean }

/** A tool as offered to the model. */
export type ModelToolSpec = { name: string; description: string; parameters: JsonSchema }

/** What one step sends to the model. */
export type ModelRequest = { system: string; messages: ModelMessage[]; tools: ModelToolSpec[] }

/** A tool call as a model returns it; the host assigns a call id when the model gives none. */
export type ModelToolCall = { callId?: string; name: string; arguments: string }

/** What the model answered. */
export type ModelResponse = { text: string; toolCalls: ModelToolCall[]; usage?: Usage }

/** Receives the answer's text as it streams, one new piece at a time (SPEC 9 `assistant-delta`; never stored). */
export type DeltaListener = (text: string) => void

/** A chat model behind the agent loop. */
export interface Model {
  readonly name: string
  /** Answers one step; a model that streams hands each new piece of text to `onDelta` before it resolves. */
  complete(request: ModelRequest, signal: AbortSignal, onDelta?: DeltaListener): Promise<ModelResponse>
}

/** Resolves after ms, or rejects with the signal's reason when aborted first. */
export function abortableDelay(ms: number, signal: AbortSignal, timers: Timers = realTimers): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason)
      return
    }
    const timer = timers.set(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = (): void => {
      timers.clear(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

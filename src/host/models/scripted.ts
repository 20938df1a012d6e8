import type { DeltaListener, Model, ModelRequest, ModelResponse } from './model.ts'

/** A queued scripted answer: a response, or a function computing one from the request. */
export type ScriptedStep =
  | Partial<ModelResponse>
  | ((request: ModelRequest, signal: AbortSignal, onDelta: DeltaListener) => Partial<ModelResponse> | Promise<Partial<ModelResponse>>)

/** In-process test model: answers from a queue and records every request (SPEC 10). */
export class ScriptedModel implements Model {
  readonly name: string
  readonly requests: ModelRequest[] = []
  private readonly queue: ScriptedStep[] = []

  constructor(name = 'scripted') {
    this.name = name
  }

  /** Queues answers, used in order, one per request. */
  push(...steps: ScriptedStep[]): this {
    this.queue.push(...steps)
    return this
  }

  async complete(request: ModelRequest, signal: AbortSignal, onDelta: DeltaListener = () => undefined): Promise<ModelResponse> {
    this.requests.push(structuredClone(request))
    const next = this.queue.shift()
    const partial = typeof next === 'function' ? await next(request, signal, onDelta) : (next ?? {})
    return { text: partial.text ?? '', toolCalls: partial.toolCalls ?? [], ...(partial.usage ? { usage: partial.usage } : {}) }
  }
}

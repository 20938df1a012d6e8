import type { Usage } from '../../protocol/index.ts'
import type { ModelResponse, ModelToolCall } from './model.ts'
import type { Chunk } from './openai-schemas.ts'

/** Folds streamed chunks into one response; `reasoning_content` is dropped, never part of the answer. */
export class StreamAccumulator {
  private text = ''
  private readonly calls: { id?: string; name: string; arguments: string }[] = []
  private usage: Usage | undefined
  private finishReason: string | undefined

  /** Folds one decoded chunk in; returns the new piece of answer text it carried ('' when none). */
  add(chunk: Chunk): string {
    const choice = chunk.choices.find((c) => (c.index ?? 0) === 0)
    const delta = choice?.delta
    const piece = delta?.content ?? ''
    this.text += piece
    for (const tc of delta?.tool_calls ?? []) {
      const slot = (this.calls[tc.index] ??= { name: '', arguments: '' })
      if (tc.id) slot.id = tc.id
      if (tc.function?.name) slot.name += tc.function.name
      if (tc.function?.arguments) slot.arguments += tc.function.arguments
    }
    if (choice?.finish_reason) this.finishReason = choice.finish_reason
    if (chunk.usage) {
      this.usage = {
        ...(chunk.usage.prompt_tokens === undefined ? {} : { inputTokens: chunk.usage.prompt_tokens }),
        ...(chunk.usage.completion_tokens === undefined ? {} : { outputTokens: chunk.usage.completion_tokens }),
      }
    }
    return piece
  }

  /** Whether the answer's text has begun (a retry would show it twice). */
  get hasText(): boolean {
    return this.text !== ''
  }

  /** Whether a chunk said why the answer finished. */
  get finished(): boolean {
    return this.finishReason !== undefined
  }

  /** The assembled response. */
  result(): ModelResponse {
    const toolCalls: ModelToolCall[] = this.calls
      .filter((c) => c !== undefined)
      .map((c) => ({ ...(c.id ? { callId: c.id } : {}), name: c.name, arguments: c.arguments }))
    return { text: this.text, toolCalls, ...(this.usage ? { usage: this.usage } : {}) }
  }
}

import { blocksText, type SessionEvent } from '../protocol/index.ts'
import type { ModelMessage } from './models/model.ts'

/** The model message of one surface event (a message, an answer or a tool result), else null. */
function toModelMessage(event: SessionEvent): ModelMessage | null {
  switch (event.type) {
    case 'user/message':
      return { role: 'user', text: blocksText(event.data.content) }
    case 'assistant/message':
      return { role: 'assistant', text: blocksText(event.data.content), toolCalls: event.data.toolCalls ?? [] }
    case 'tool/result':
      return { role: 'tool', callId: event.data.callId, text: blocksText(event.data.content), isError: event.data.isError === true }
    default:
      return null
  }
}

/**
 * The model messages of one session's surface, kept from step to step: while the surface only
 * grows (the fold's same seqs array, longer), the messages built before are reused and only the new
 * events are converted; a compaction (a new array) or anything shorter rebuilds them all.
 */
export class SurfaceMessages {
  private seqs: readonly number[] | null = null
  private readonly built: ModelMessage[] = []

  /** A new array (the caller may keep it) of the messages of the surface `seqs`, in order. */
  of(seqs: readonly number[], eventAt: (seq: number) => SessionEvent): ModelMessage[] {
    if (seqs !== this.seqs || seqs.length < this.built.length) {
      this.seqs = seqs
      this.built.length = 0
    }
    for (let i = this.built.length; i < seqs.length; i++) {
      const message = toModelMessage(eventAt(seqs[i]))
      if (message === null) throw new Error(`surface seq ${seqs[i]} is not a message event`)
      this.built.push(Object.freeze(message))
    }
    return this.built.slice()
  }
}

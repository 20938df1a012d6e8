import type { SessionEvent } from '../protocol/index.ts'
import type { ModelMessage } from './models/model.ts'

function text(content: { text: string }[]): string {
  return content.map((block) => block.text).join('')
}

/** Builds the model messages of a request from the surface events, in log order. */
export function surfaceToMessages(events: Iterable<SessionEvent>): ModelMessage[] {
  const out: ModelMessage[] = []
  for (const event of events) {
    switch (event.type) {
      case 'user/message':
        out.push({ role: 'user', text: text(event.data.content) })
        break
      case 'assistant/message':
        out.push({ role: 'assistant', text: text(event.data.content), toolCalls: event.data.toolCalls ?? [] })
        break
      case 'tool/result':
        out.push({
          role: 'tool',
          callId: event.data.callId,
          text: text(event.data.content),
          isError: event.data.isError === true,
        })
        break
      default:
        break
    }
  }
  return out
}

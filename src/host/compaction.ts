import { blocksText, type EventDraft, type SessionEvent } from '../protocol/index.ts'
import { randomId } from './ids.ts'

const PER_MESSAGE = 240
const MAX_SUMMARY = 6000

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

function line(event: SessionEvent): string | null {
  switch (event.type) {
    case 'user/message': {
      const source = event.data.source
      const who = source.kind === 'plugin' ? `context (${source.plugin})` : 'user'
      return `- ${who}: ${clip(blocksText(event.data.content), PER_MESSAGE)}`
    }
    case 'assistant/message': {
      const calls = (event.data.toolCalls ?? []).map((c) => c.name)
      const text = clip(blocksText(event.data.content), PER_MESSAGE)
      return `- assistant: ${text}${calls.length > 0 ? ` [called ${calls.join(', ')}]` : ''}`
    }
    case 'tool/result':
      return `- tool result${event.data.isError ? ' (error)' : ''}: ${clip(blocksText(event.data.content), PER_MESSAGE)}`
    default:
      return null
  }
}

/** Deterministic summary of surface events, newest kept when it must be cut. */
export function summarize(events: readonly SessionEvent[]): string {
  const lines = events.map(line).filter((l): l is string => l !== null)
  const kept: string[] = []
  let size = 0
  for (let i = lines.length - 1; i >= 0; i--) {
    if (size + lines[i].length + 1 > MAX_SUMMARY) break
    kept.unshift(lines[i])
    size += lines[i].length + 1
  }
  const omitted = lines.length - kept.length
  const head = `Summary of ${lines.length} earlier message${lines.length === 1 ? '' : 's'} compacted from this session${omitted > 0 ? ` (oldest ${omitted} omitted)` : ''}:`
  return [head, ...kept].join('\n')
}

/** The events of one compaction (SPEC 2.4): the summary record and the replacing message. */
export function compactionDrafts(
  surface: readonly SessionEvent[],
  lastSeq: number,
): { drafts: EventDraft[]; messageId: string } {
  const shadowedFrom = surface[0].seq
  const shadowedTo = lastSeq
  const summary = summarize(surface)
  const messageId = randomId('compact-')
  return {
    messageId,
    drafts: [
      { type: 'compact/summary', data: { shadowedFrom, shadowedTo, summary } },
      {
        type: 'user/message',
        data: {
          id: messageId,
          role: 'user',
          content: [{ type: 'text', text: summary }],
          source: { kind: 'plugin', plugin: 'compact' },
        },
        surfaceOp: { op: 'replace', start: shadowedFrom, end: shadowedTo },
      },
    ],
  }
}

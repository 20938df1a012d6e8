import type { MessageSource, SessionEvent, TextBlock, TurnEndReason, UserMessage } from '../../protocol/index.ts'
import { COMPACT_PLUGIN, SCHEDULE_PLUGIN, TIME_CONTEXT_PLUGIN, clientZoneOfSource } from '../../protocol/index.ts'
import { readingCard, type ReadingCard } from './reading-card.ts'
import { parseReminderFollowUp, type ReminderFollowUp } from './schedule-reminder.ts'

/** Where a user message stands: waiting in the inbox, entered into a step, or dropped without entering. */
export type UserMessageState = 'queued' | 'entered' | 'dropped'

/** A person's message; `zone` is the client zone it was sent from (null when it came without a browser). */
export type UserItem = {
  kind: 'user'
  key: string
  seq: number
  time: number
  id: string
  text: string
  zone: string | null
  state: UserMessageState
  mode: 'queue' | 'steer'
}

/** One entry of the conversation view. */
export type ConversationItem =
  | UserItem
  | { kind: 'assistant'; key: string; seq: number; time: number; turn: number; step: number; text: string }
  | {
      kind: 'tool'
      key: string
      seq: number
      time: number
      callId: string
      name: string
      arguments: string
      result: { text: string; isError: boolean } | null
    }
  | { kind: 'reading'; key: string; seq: number; time: number; text: string; card: ReadingCard | null }
  | { kind: 'reminder-due'; key: string; seq: number; time: number; text: string; followUp: ReminderFollowUp }
  | { kind: 'compaction'; key: string; seq: number; time: number; summary: string; shadowedFrom: number | null; shadowedTo: number | null }
  | { kind: 'plugin-note'; key: string; seq: number; time: number; plugin: string; text: string }
  | { kind: 'turn-end'; key: string; seq: number; time: number; turn: number; reason: Exclude<TurnEndReason, 'completed'>; message: string | null }

/** The conversation view of a log: items in log order, then user messages still waiting in the inbox. */
export type Conversation = { items: ConversationItem[]; queued: UserItem[]; openTurn: number | null }

/** The text of a message's content blocks. */
export function contentText(content: readonly TextBlock[]): string {
  return content.map((block) => block.text).join('\n')
}

function pluginName(source: MessageSource): string | null {
  return source.kind === 'plugin' && typeof source.plugin === 'string' ? source.plugin : null
}

function userItem(message: UserMessage, seq: number, time: number, state: UserMessageState, mode: UserItem['mode']): UserItem {
  return {
    kind: 'user',
    key: `user:${seq}`,
    seq,
    time,
    id: message.id,
    text: contentText(message.content),
    zone: clientZoneOfSource(message.source),
    state,
    mode,
  }
}

function messageItem(event: SessionEvent<'user/message'>, mode: UserItem['mode']): ConversationItem {
  const message = event.data
  const plugin = pluginName(message.source)
  const text = contentText(message.content)
  const base = { seq: event.seq, time: event.time }
  if (plugin === TIME_CONTEXT_PLUGIN) return { kind: 'reading', key: `reading:${event.seq}`, ...base, text, card: readingCard(text) }
  if (plugin === SCHEDULE_PLUGIN) {
    const followUp = parseReminderFollowUp(text)
    if (followUp !== null) return { kind: 'reminder-due', key: `due:${event.seq}`, ...base, text, followUp }
  }
  if (plugin === COMPACT_PLUGIN) {
    return { kind: 'compaction', key: `compact:${event.seq}`, ...base, summary: text, shadowedFrom: null, shadowedTo: null }
  }
  if (plugin !== null) return { kind: 'plugin-note', key: `plugin:${event.seq}`, ...base, plugin, text }
  return userItem(message, event.seq, event.time, 'entered', mode)
}

/** Folds a session log into the conversation a person reads. */
export function buildConversation(events: readonly SessionEvent[]): Conversation {
  const items: ConversationItem[] = []
  const toolIndex = new Map<string, number>()
  const enqueued = new Map<string, { event: SessionEvent<'inbox/enqueued'>; mode: UserItem['mode'] }>()
  const modeById = new Map<string, UserItem['mode']>()
  let openTurn: number | null = null
  for (const event of events) {
    switch (event.type) {
      case 'turn/start':
        openTurn = event.data.turn
        break
      case 'turn/end':
        openTurn = null
        if (event.data.reason !== 'completed') {
          items.push({
            kind: 'turn-end',
            key: `turn-end:${event.seq}`,
            seq: event.seq,
            time: event.time,
            turn: event.data.turn,
            reason: event.data.reason,
            message: typeof event.data.message === 'string' ? event.data.message : null,
          })
        }
        break
      case 'inbox/enqueued': {
        const mode = event.data.target === 'next-step' ? 'steer' : 'queue'
        modeById.set(event.data.message.id, mode)
        enqueued.set(event.data.message.id, { event, mode })
        break
      }
      case 'inbox/dropped':
        for (const id of event.data.ids) {
          const waiting = enqueued.get(id)
          if (waiting === undefined) continue
          enqueued.delete(id)
          if (waiting.event.data.message.source.kind === 'user') {
            items.push({ ...userItem(waiting.event.data.message, event.seq, event.time, 'dropped', waiting.mode), key: `dropped:${id}` })
          }
        }
        break
      case 'user/message': {
        enqueued.delete(event.data.id)
        const item = messageItem(event, modeById.get(event.data.id) ?? 'queue')
        const previous = items[items.length - 1]
        if (item.kind === 'compaction' && previous !== undefined && previous.kind === 'compaction' && previous.seq === event.seq - 1) {
          items[items.length - 1] = { ...previous, summary: previous.summary.length > 0 ? previous.summary : item.summary }
        } else {
          items.push(item)
        }
        break
      }
      case 'assistant/message': {
        const text = contentText(event.data.content)
        if (text.trim().length > 0) {
          items.push({
            kind: 'assistant',
            key: `assistant:${event.seq}`,
            seq: event.seq,
            time: event.time,
            turn: event.data.turn,
            step: event.data.step,
            text,
          })
        }
        break
      }
      case 'tool/call':
        toolIndex.set(event.data.callId, items.length)
        items.push({
          kind: 'tool',
          key: `tool:${event.seq}`,
          seq: event.seq,
          time: event.time,
          callId: event.data.callId,
          name: event.data.name,
          arguments: event.data.arguments,
          result: null,
        })
        break
      case 'tool/result': {
        const result = { text: contentText(event.data.content), isError: event.data.isError === true }
        const index = toolIndex.get(event.data.callId)
        const call = index === undefined ? undefined : items[index]
        if (call !== undefined && call.kind === 'tool') {
          items[index as number] = { ...call, result }
        } else {
          items.push({
            kind: 'tool',
            key: `tool-result:${event.seq}`,
            seq: event.seq,
            time: event.time,
            callId: event.data.callId,
            name: 'tool',
            arguments: '',
            result,
          })
        }
        break
      }
      case 'compact/summary':
        items.push({
          kind: 'compaction',
          key: `compact:${event.seq}`,
          seq: event.seq,
          time: event.time,
          summary: event.data.summary,
          shadowedFrom: event.data.shadowedFrom,
          shadowedTo: event.data.shadowedTo,
        })
        break
      case 'step/start':
      case 'step/end':
      case 'request/header':
      case 'schedule/change':
      case 'session/title':
        break
      default: {
        const unreachable: never = event
        void unreachable
      }
    }
  }
  const queued: UserItem[] = []
  for (const { event, mode } of enqueued.values()) {
    if (event.data.message.source.kind !== 'user') continue
    queued.push(userItem(event.data.message, event.seq, event.time, 'queued', mode))
  }
  return { items, queued, openTurn }
}

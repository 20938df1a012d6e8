import type { MessageSource, SessionEvent, TextBlock, TurnEndReason, UserMessage } from '../../protocol/index.ts'
import { COMPACT_PLUGIN, SCHEDULE_PLUGIN, TIME_CONTEXT_PLUGIN, clientZoneOfSource } from '../../protocol/index.ts'
import { readingCard, type ReadingCard } from './reading-card.ts'
import { parseReminderFollowUp, type ReminderFollowUp } from './schedule-reminder.ts'
import { toolOutcome, type ToolOutcome } from './tool-outcome.ts'

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
      outcome: ToolOutcome
    }
  | { kind: 'reading'; key: string; seq: number; time: number; text: string; card: ReadingCard | null; startedByReminder: boolean }
  | { kind: 'reminder-due'; key: string; seq: number; time: number; text: string; followUp: ReminderFollowUp }
  | { kind: 'compaction'; key: string; seq: number; time: number; summary: string; shadowedFrom: number | null; shadowedTo: number | null }
  | { kind: 'plugin-note'; key: string; seq: number; time: number; plugin: string; text: string }
  | {
      kind: 'turn-end'
      key: string
      seq: number
      time: number
      turn: number
      reason: Exclude<TurnEndReason, 'completed'>
      message: string | null
      /** The first message a person sent in this turn, re-sent by Retry; null when none is known (e.g. a reminder turn). */
      prompt: string | null
    }

/** The conversation view of a log: items in log order, then user messages still waiting in the inbox. */
export type Conversation = { items: ConversationItem[]; queued: UserItem[]; openTurn: number | null }

/**
 * The incremental fold behind the conversation view. It is an accumulator owned by one log: `foldEvents` appends to
 * `items` in place (and replaces a tool call's item when its result arrives), so each update costs what its new events cost.
 */
export type ConversationFold = {
  items: ConversationItem[]
  toolIndex: Map<string, number>
  waiting: Map<string, { event: SessionEvent<'inbox/enqueued'>; mode: UserItem['mode'] }>
  modeById: Map<string, UserItem['mode']>
  openTurn: number | null
  lastTurn: number | null
  turnPrompt: string | null
  turnByReminder: boolean
  /**
   * Occurrences snoozed in the log, with when the reminder that replaces them is due: a reminder come
   * due is snoozed by the first `after` reminder with its words made after it (by the overlay's Snooze in any browser,
   * or by the assistant asked to snooze), so every browser's card says so and none snoozes it twice. A new array
   * whenever a snooze is made or moved, so a view that holds the old one sees the change.
   */
  snoozes: readonly LogSnooze[]
  /** The newest occurrence come due of each reminder's words, not yet snoozed. */
  dueByPrompt: Map<string, { scheduleId: string; occurrenceAt: string }>
  /** The newest occurrence come due of each reminder's words, snoozed or not: a deleted snooze leaves it to be snoozed again. */
  lastDueByPrompt: Map<string, { scheduleId: string; occurrenceAt: string }>
  /** The zone of each reminder the log made or changed, from its record (null for one that keeps none). */
  zones: Map<string, string | null>
}

/**
 * One occurrence of a reminder snoozed in the log, the reminder that replaces it (`snoozeId`), when that one is due
 * (ISO), and whether it was deleted since (then the occurrence is no longer snoozed).
 */
export type LogSnooze = { scheduleId: string; occurrenceAt: string; snoozeId: string; until: string; deleted: boolean }

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

function messageItem(fold: ConversationFold, event: SessionEvent<'user/message'>, mode: UserItem['mode']): ConversationItem {
  const message = event.data
  const plugin = pluginName(message.source)
  const text = contentText(message.content)
  const base = { seq: event.seq, time: event.time }
  if (plugin === TIME_CONTEXT_PLUGIN) {
    return { kind: 'reading', key: `reading:${event.seq}`, ...base, text, card: readingCard(text), startedByReminder: fold.turnByReminder }
  }
  if (plugin === SCHEDULE_PLUGIN) {
    const followUp = parseReminderFollowUp(text)
    if (followUp !== null) {
      if (fold.openTurn !== null) fold.turnByReminder = true
      for (const { prompt, scheduleId, occurrenceAt } of followUp.reminders) {
        fold.dueByPrompt.set(prompt, { scheduleId, occurrenceAt })
        fold.lastDueByPrompt.set(prompt, { scheduleId, occurrenceAt })
      }
      return { kind: 'reminder-due', key: `due:${event.seq}`, ...base, text, followUp }
    }
  }
  if (plugin === COMPACT_PLUGIN) {
    return { kind: 'compaction', key: `compact:${event.seq}`, ...base, summary: text, shadowedFrom: null, shadowedTo: null }
  }
  if (plugin !== null) return { kind: 'plugin-note', key: `plugin:${event.seq}`, ...base, plugin, text }
  if (fold.openTurn !== null && fold.turnPrompt === null && message.source.kind === 'user') fold.turnPrompt = contentText(message.content)
  return userItem(message, event.seq, event.time, 'entered', mode)
}

/** A fold that has seen nothing yet. */
export function emptyFold(): ConversationFold {
  return {
    items: [],
    toolIndex: new Map(),
    waiting: new Map(),
    modeById: new Map(),
    openTurn: null,
    lastTurn: null,
    turnPrompt: null,
    turnByReminder: false,
    snoozes: [],
    dueByPrompt: new Map(),
    lastDueByPrompt: new Map(),
    zones: new Map(),
  }
}

/** A `schedule/change` that makes or changes a reminder records the zone its record keeps time in. */
function foldZone(fold: ConversationFold, data: Record<string, unknown>): void {
  if ((data.operation !== 'create' && data.operation !== 'update') || typeof data.schedule !== 'object' || data.schedule === null) return
  const schedule = data.schedule as Record<string, unknown>
  if (typeof schedule.id !== 'string') return
  fold.zones.set(schedule.id, typeof schedule.timeZone === 'string' ? schedule.timeZone : null)
}

/**
 * A `schedule/change` that makes an `after` reminder snoozes the occurrence come due last with the same words; one
 * that changes a snooze (snoozed again, or moved) moves the time its occurrence is snoozed until; one that deletes a
 * snooze leaves its occurrence snoozed no longer, so that, while it is still the last come due with its words, the
 * next `after` reminder with them snoozes it again (the assistant asked to snooze it after the delete makes one).
 */
function foldSnooze(fold: ConversationFold, data: Record<string, unknown>): void {
  if (data.operation === 'delete') {
    const { id } = data
    const removed = fold.snoozes.find((snooze) => snooze.snoozeId === id && !snooze.deleted)
    if (removed === undefined) return
    fold.snoozes = fold.snoozes.map((snooze) => (snooze === removed ? { ...snooze, deleted: true } : snooze))
    for (const [prompt, last] of fold.lastDueByPrompt) {
      if (last.scheduleId === removed.scheduleId && last.occurrenceAt === removed.occurrenceAt) fold.dueByPrompt.set(prompt, last)
    }
    return
  }
  if ((data.operation !== 'create' && data.operation !== 'update') || typeof data.schedule !== 'object' || data.schedule === null) return
  const schedule = data.schedule as Record<string, unknown>
  if (typeof schedule.id !== 'string' || typeof schedule.scheduledAt !== 'string') return
  const { id, scheduledAt } = schedule
  if (data.operation === 'update') {
    if (fold.snoozes.some((snooze) => snooze.snoozeId === id)) {
      fold.snoozes = fold.snoozes.map((snooze) => (snooze.snoozeId === id ? { ...snooze, until: scheduledAt } : snooze))
    }
    return
  }
  if (schedule.kind !== 'after' || typeof schedule.prompt !== 'string') return
  const due = fold.dueByPrompt.get(schedule.prompt)
  if (due === undefined) return
  fold.dueByPrompt.delete(schedule.prompt)
  fold.snoozes = [...fold.snoozes, { ...due, snoozeId: id, until: scheduledAt, deleted: false }]
}

function foldOne(fold: ConversationFold, event: SessionEvent): void {
  const { items } = fold
  switch (event.type) {
    case 'turn/start':
      fold.openTurn = event.data.turn
      fold.lastTurn = event.data.turn
      fold.turnPrompt = null
      fold.turnByReminder = false
      break
    case 'turn/end':
      if (event.data.reason !== 'completed') {
        items.push({
          kind: 'turn-end',
          key: `turn-end:${event.seq}`,
          seq: event.seq,
          time: event.time,
          turn: event.data.turn,
          reason: event.data.reason,
          message: typeof event.data.message === 'string' ? event.data.message : null,
          prompt: fold.turnPrompt,
        })
      }
      fold.openTurn = null
      fold.lastTurn = event.data.turn
      fold.turnPrompt = null
      fold.turnByReminder = false
      break
    case 'inbox/enqueued': {
      const mode = event.data.target === 'next-step' ? 'steer' : 'queue'
      fold.modeById.set(event.data.message.id, mode)
      fold.waiting.set(event.data.message.id, { event, mode })
      break
    }
    case 'inbox/dropped':
      for (const id of event.data.ids) {
        const waiting = fold.waiting.get(id)
        if (waiting === undefined) continue
        fold.waiting.delete(id)
        if (waiting.event.data.message.source.kind === 'user') {
          items.push({ ...userItem(waiting.event.data.message, event.seq, event.time, 'dropped', waiting.mode), key: `dropped:${id}` })
        }
      }
      break
    case 'user/message': {
      fold.waiting.delete(event.data.id)
      const mode = fold.modeById.get(event.data.id) ?? 'queue'
      fold.modeById.delete(event.data.id)
      const item = messageItem(fold, event, mode)
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
        items.push({ kind: 'assistant', key: `assistant:${event.seq}`, seq: event.seq, time: event.time, turn: event.data.turn, step: event.data.step, text })
      }
      break
    }
    case 'tool/call':
      fold.toolIndex.set(event.data.callId, items.length)
      items.push({
        kind: 'tool',
        key: `tool:${event.seq}`,
        seq: event.seq,
        time: event.time,
        callId: event.data.callId,
        name: event.data.name,
        arguments: event.data.arguments,
        result: null,
        outcome: 'running',
      })
      break
    case 'tool/result': {
      const result = { text: contentText(event.data.content), isError: event.data.isError === true }
      const index = fold.toolIndex.get(event.data.callId)
      fold.toolIndex.delete(event.data.callId)
      const call = index === undefined ? undefined : items[index]
      if (index !== undefined && call !== undefined && call.kind === 'tool') {
        items[index] = { ...call, result, outcome: toolOutcome(result) }
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
          outcome: toolOutcome(result),
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
    case 'schedule/change':
      foldSnooze(fold, event.data)
      foldZone(fold, event.data)
      break
    case 'step/start':
    case 'step/end':
    case 'request/header':
    case 'session/title':
      break
    default: {
      const unreachable: never = event
      void unreachable
    }
  }
}

/** Folds new events (in seq order, after everything folded so far) into the fold; costs O(new events). */
export function foldEvents(fold: ConversationFold, events: readonly SessionEvent[]): void {
  for (const event of events) foldOne(fold, event)
}

/** The person's messages still waiting in the inbox, in the order they were accepted. */
export function queuedItems(fold: ConversationFold): UserItem[] {
  const queued: UserItem[] = []
  for (const { event, mode } of fold.waiting.values()) {
    if (event.data.message.source.kind !== 'user') continue
    queued.push(userItem(event.data.message, event.seq, event.time, 'queued', mode))
  }
  return queued
}

/** Folds a whole session log into the conversation a person reads. */
export function buildConversation(events: readonly SessionEvent[]): Conversation {
  const fold = emptyFold()
  foldEvents(fold, events)
  return { items: fold.items, queued: queuedItems(fold), openTurn: fold.openTurn }
}

import type { Model, ModelMessage, ModelRequest, ModelResponse, ModelToolCall } from '../host/models/model.ts'
import { abortableDelay } from '../host/models/model.ts'
import { canonicalTimeZone, parseReadingText, parseZonedTimestamp, type ReadingFields } from '../protocol/index.ts'
import type { Clock } from '../host/plugin-api.ts'
import { systemClock } from '../host/plugin-api.ts'
import { FOLLOW_UP_HEADER, parseFollowUp } from '../schedule/follow-up.ts'
import { wallClockAt } from '../schedule/absolute-time.ts'

const ZONE_IN_TEXT = /\b(UTC|[A-Z][A-Za-z_]+\/[A-Za-z_]+(?:\/[A-Za-z_]+)?)\b/
const UNIT_SECONDS: Record<string, number> = { second: 1, sec: 1, minute: 60, min: 60, hour: 3600, hr: 3600, day: 86400 }

type Intent =
  | { kind: 'list' }
  | { kind: 'delete'; id: string }
  | { kind: 'create'; args: Record<string, unknown> }
  | { kind: 'none' }

function unitSeconds(unit: string): number {
  const key = unit.toLowerCase().replace(/s$/, '')
  return UNIT_SECONDS[key] ?? 0
}

function promptOf(text: string): string {
  const to = /\bto\s+(.+)$/is.exec(text)
  const raw = to ? to[1] : text.replace(/^\s*remind me\s*/i, '')
  return raw.replace(/\s+/g, ' ').replace(/[.!]+$/, '').trim() || text.trim()
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}

function addDays(y: number, m: number, d: number, days: number): string {
  const date = new Date(Date.UTC(y, m - 1, d + days))
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
}

function readingInstant(reading: ReadingFields | null): number | null {
  if (!reading) return null
  return parseZonedTimestamp(reading.timestamp)?.epochMs ?? null
}

/** Reads a reminder intent out of a person's text, local times interpreted from the latest reading. */
export function parseIntent(text: string, reading: ReadingFields | null, fallbackNow: number): Intent {
  const lower = text.toLowerCase()
  if (/\b(list|show|what are)\b.*\b(reminders?|schedules?)\b/.test(lower)) return { kind: 'list' }
  const del = /\b(?:delete|remove|cancel)\s+(schedule-\d+)\b/i.exec(text)
  if (del) return { kind: 'delete', id: del[1].toLowerCase() }
  if (!/\b(remind|reminder|schedule|alert|ping)\b/.test(lower)) return { kind: 'none' }
  const prompt = promptOf(text.replace(/\b(every|in)\s+\d+\s*\w+/i, '').replace(/\b(tomorrow\s+)?at\s+\d{1,2}(:\d{2})?\s*(am|pm)?/i, ''))
  const every = /\bevery\s+(\d+)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)\b/i.exec(text)
  if (every) return { kind: 'create', args: { prompt, every_seconds: Number(every[1]) * unitSeconds(every[2]) } }
  const after = /\bin\s+(\d+)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)\b/i.exec(text)
  if (after) return { kind: 'create', args: { prompt, after_seconds: Number(after[1]) * unitSeconds(after[2]) } }
  const at = /\b(tomorrow\s+)?at\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b/i.exec(text)
  if (at) {
    let hour = Number(at[2])
    const minute = Number(at[3] ?? '0')
    const meridiem = at[4]?.toLowerCase()
    if (meridiem === 'pm' && hour < 12) hour += 12
    if (meridiem === 'am' && hour === 12) hour = 0
    const zoneMatch = ZONE_IN_TEXT.exec(text)
    const explicitZone = zoneMatch ? canonicalTimeZone(zoneMatch[1]) : null
    const zoneForDate =
      explicitZone ?? (reading && reading.session !== 'unavailable' ? reading.session : parseZonedTimestamp(reading?.timestamp ?? '')?.zone ?? 'UTC')
    const now = readingInstant(reading) ?? fallbackNow
    const wall = wallClockAt(zoneForDate, now)
    let days = at[1] ? 1 : 0
    if (!at[1] && (hour < wall.hour || (hour === wall.hour && minute <= wall.minute))) days = 1
    const local: Record<string, unknown> = {
      date: addDays(wall.year, wall.month, wall.day, days),
      time: `${pad(hour)}:${pad(minute)}:00`,
    }
    if (explicitZone) local.time_zone = explicitZone
    return { kind: 'create', args: { prompt, at: local } }
  }
  return { kind: 'none' }
}

function latestReading(messages: ModelMessage[]): ReadingFields | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m.role === 'user') {
      const parsed = parseReadingText(m.text)
      if (parsed) return parsed
    }
  }
  return null
}

function latestPersonText(messages: ModelMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m.role === 'assistant') return null
    if (m.role === 'user' && parseReadingText(m.text) === null) return m.text
  }
  return null
}

function relay(text: string): string {
  const reminders = parseFollowUp(text)
  if (reminders === null) return 'A reminder is due.'
  return reminders.map((r) => `Reminder: ${r.prompt}`).join('\n')
}

type ToolOutcome = { name: string; args: string; text: string; isError: boolean }

function describe(outcome: ToolOutcome): string {
  let value: Record<string, unknown> = {}
  try {
    value = JSON.parse(outcome.text) as Record<string, unknown>
  } catch {
    return `The ${outcome.name} tool answered: ${outcome.text}`
  }
  if (typeof value.code === 'string' && value.code === 'timezone_confirmation_required') {
    const session = String(value.sessionTimeZone ?? 'unavailable')
    const clients = Array.isArray(value.clientTimeZones) ? (value.clientTimeZones as string[]) : []
    const known = [...new Set([...(session === 'unavailable' ? [] : [session]), ...clients])]
    return `Which time zone do you mean for that time? This Session's time zone is ${session}; your browser${clients.length > 1 ? 's report' : ' reports'} ${clients.length > 0 ? clients.join(', ') : 'no zone'}. Known zones: ${known.length > 0 ? known.join(', ') : 'none'}. Please say it again with the zone, for example "remind me at 09:30 ${known[0] ?? 'Europe/Berlin'} to stretch".`
  }
  if (typeof value.code === 'string' && typeof value.message === 'string') {
    return `I could not do that: ${value.message} (${value.code}).`
  }
  switch (outcome.name) {
    case 'schedule_create': {
      const s = (value.schedule ?? value) as Record<string, unknown>
      return `Done: reminder ${String(s.id)} "${String(s.prompt)}" is set for ${String(s.scheduledAt)}.`
    }
    case 'schedule_list': {
      const list = (Array.isArray(value.schedules) ? value.schedules : []) as Record<string, unknown>[]
      if (list.length === 0) return 'You have no active reminders.'
      return ['Your reminders:', ...list.map((s) => `- ${String(s.id)}: "${String(s.prompt)}" at ${String(s.scheduledAt)} (${String(s.state)})`)].join('\n')
    }
    case 'schedule_delete':
      return value.deleted === true ? `Deleted ${String(value.id)}.` : `There is no active reminder ${String(value.id)}.`
    default:
      return `The ${outcome.name} tool answered: ${outcome.text}`
  }
}

function toolOutcomes(messages: ModelMessage[]): ToolOutcome[] | null {
  let i = messages.length - 1
  const results: { callId: string; text: string; isError: boolean }[] = []
  while (i >= 0 && messages[i].role !== 'assistant') {
    const m = messages[i]
    if (m.role === 'tool') results.unshift({ callId: m.callId, text: m.text, isError: m.isError })
    i--
  }
  const assistant = messages[i]
  if (!assistant || assistant.role !== 'assistant' || assistant.toolCalls.length === 0 || results.length === 0) return null
  return results.map((r) => {
    const call = assistant.toolCalls.find((c) => c.callId === r.callId)
    return { name: call?.name ?? 'tool', args: call?.arguments ?? '', text: r.text, isError: r.isError }
  })
}

/** The default model: deterministic, offline, demo-grade; drives the Schedule tools (SPEC 10). */
export class OfflineModel implements Model {
  readonly name = 'offline'

  constructor(
    private readonly delayMs = 0,
    private readonly clock: Clock = systemClock,
  ) {}

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    if (this.delayMs > 0) await abortableDelay(this.delayMs, signal)
    const messages = request.messages
    const outcomes = toolOutcomes(messages)
    if (outcomes) return { text: outcomes.map(describe).join('\n'), toolCalls: [] }
    const reading = latestReading(messages)
    const text = latestPersonText(messages)
    if (text === null) return { text: 'Noted.', toolCalls: [] }
    if (text.startsWith(FOLLOW_UP_HEADER)) return { text: relay(text), toolCalls: [] }
    const hasTool = (name: string): boolean => request.tools.some((t) => t.name === name)
    const intent = parseIntent(text, reading, this.clock.now())
    const call = (name: string, args: Record<string, unknown>): ModelResponse => {
      const toolCalls: ModelToolCall[] = [{ name, arguments: JSON.stringify(args) }]
      return { text: '', toolCalls }
    }
    switch (intent.kind) {
      case 'list':
        if (hasTool('schedule_list')) return call('schedule_list', {})
        break
      case 'delete':
        if (hasTool('schedule_delete')) return call('schedule_delete', { id: intent.id })
        break
      case 'create':
        if (hasTool('schedule_create')) return call('schedule_create', intent.args)
        break
      case 'none':
        break
      default: {
        const never: never = intent
        throw new Error(`unknown intent ${JSON.stringify(never)}`)
      }
    }
    if (!reading) return { text: `You said: ${text}`, toolCalls: [] }
    const client =
      reading.client.kind === 'resolved'
        ? reading.client.timeZone
        : reading.client.kind === 'mixed'
          ? `several zones (${reading.client.timeZones.join(', ')})`
          : 'unknown'
    return {
      text: `It is ${reading.timestamp}. Session time zone: ${reading.session}; your time zone: ${client}. You said: ${text}`,
      toolCalls: [],
    }
  }
}

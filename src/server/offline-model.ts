import type { Model, ModelMessage, ModelRequest, ModelResponse, ModelToolCall, Clock } from '../host/index.ts'
import { abortableDelay, systemClock } from '../host/index.ts'
import { canonicalTimeZone, parseReadingText, parseZonedTimestamp, wallClockAt, type ReadingFields, FOLLOW_UP_HEADER, parseFollowUp, describeRrule, joinWords, zonePlace, PLAIN_RULE_FORMS, type RuleForms } from '../protocol/index.ts'
import { localTimeWords, MONTH_NAMES, nextDateOf, todayIn, WEEKDAY_NAMES, wallTimeWords } from './local-words.ts'
import { DEFAULT_PROMPT, parseIntent, placeZone, type Intent } from './offline-intent.ts'

export { parseIntent, type Intent } from './offline-intent.ts'

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

/**
 * The latest message of the person's (readings skipped): only since the last answer, or — `pastSteps` — the request
 * of this turn, past the steps and tool results it has led to so far.
 */
function latestPersonText(messages: ModelMessage[], pastSteps = false): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m.role === 'assistant' && !pastSteps) return null
    if (m.role === 'user' && parseReadingText(m.text) === null) return m.text
  }
  return null
}

function relay(text: string): string {
  const reminders = parseFollowUp(text)
  if (reminders === null) return 'A reminder is due.'
  return reminders.map((r) => `Reminder: ${r.prompt}${r.missed !== undefined ? ` (${r.missed} earlier ${r.missed === 1 ? 'occurrence was' : 'occurrences were'} missed)` : ''}`).join('\n')
}

type ToolOutcome = { name: string; args: string; text: string; isError: boolean }

type View = Record<string, unknown>

/**
 * A rule's times, yearly date and end in the words of the model's other answers: `08:30`, `3 March`, `31 December 2026`,
 * an end instant on the wall clock of the reminder's zone (`31 December 2026 at 18:00`, the zone's place said after the
 * rule), never a bare UTC instant. Times are on the 24-hour clock in every answer: a model request carries text alone
 * and a reading names zones, not the person's locale, so no answer can follow the browser's hour cycle.
 */
function answerRuleForms(zone: string | null): RuleForms {
  const date = (year: number, month: number, day: number) => `${day} ${MONTH_NAMES[month - 1]} ${year}`
  return {
    ...PLAIN_RULE_FORMS,
    date,
    instant: (epochMs) => {
      const wall = wallClockAt(zone ?? 'UTC', epochMs)
      return `${date(wall.year, wall.month, wall.day)} at ${PLAIN_RULE_FORMS.time(wall.hour, wall.minute)}${zone === null ? ' UTC' : ''}`
    },
  }
}

/**
 * When a reminder is due, in local words from `scheduledAtLocal` (never a bare UTC instant): a one-off one by its local time (`set for Friday at 18:00 in Berlin`, listed as
 * `on Friday at 18:00 in Berlin`), a series by its rule and the next occurrence (`weekdays at 08:30 in Berlin; the
 * next is today at 08:30 in Berlin`).
 */
function whenWords(view: View, nowMs: number, after: 'set for' | 'listed'): string {
  const local = (on: boolean) => (typeof view.scheduledAtLocal === 'string' ? localTimeWords(view.scheduledAtLocal, nowMs, { on }) : null)
  const nextLocal = local(true)
  const next = nextLocal === null ? '' : `; the next is ${nextLocal}`
  if (view.kind === 'calendar' && typeof view.rrule === 'string') {
    const zone = typeof view.timeZone === 'string' && canonicalTimeZone(view.timeZone) !== null ? view.timeZone : null
    const rule = typeof view.starts === 'string' ? describeRrule(view.rrule, view.starts, answerRuleForms(zone)) : null
    const place = typeof view.timeZone === 'string' ? ` in ${zonePlace(view.timeZone)}` : ''
    // "set for every month on the 1st", not "set for monthly on the 1st"
    const words = rule === null ? view.rrule : (rule.charAt(0).toLowerCase() + rule.slice(1)).replace(/^monthly /, 'every month ').replace(/^yearly /, 'every year ')
    return `${words}${place}${next}`
  }
  if (view.kind === 'every' && typeof view.everySeconds === 'number') return `every ${everyWords(view.everySeconds)}${next}`
  return local(after === 'listed') ?? 'its next time'
}

function everyWords(seconds: number): string {
  if (seconds % 86400 === 0) return seconds === 86400 ? 'day' : `${seconds / 86400} days`
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : `${seconds / 60} minutes`
  return `${seconds} seconds`
}

/** A local date and time a clock change skips, as the Schedule tools say it. */
const SKIPPED = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}):\d{2} does not exist in (\S+): a clock change skips it$/

/**
 * Why a Schedule tool refused, in a person's words: the rule that was broken and what to say instead, never the
 * tool's field names or error code; a refusal it has no words for is said with the tool's own message. `details`
 * are the tool error's fields (an unknown reminder's `id`).
 */
export function refusalWords(code: string, message: string, details: Record<string, unknown>, nowMs: number): string {
  switch (code) {
    case 'frequency_too_high':
      return 'I cannot set a reminder that comes back that often: the shortest repeat is every 5 minutes. Say for example "every 5 minutes" or "every hour".'
    case 'schedule_not_found': {
      const id = typeof details.id === 'string' ? details.id : null
      return `There is no active reminder${id === null ? ' by that name' : ` ${id}`}: it may have come due already or been deleted. Say "list reminders" to see the ones there are.`
    }
    case 'time_out_of_range':
      return 'That is further ahead than I can set a reminder. Say a time within the next few years.'
    case 'invalid_time_zone':
      return 'I do not know that time zone. Name a place such as "Berlin" or "New York", or a zone such as "Europe/Berlin".'
    case 'invalid_rule': {
      const skipped = SKIPPED.exec(message)
      const words = skipped === null ? null : wallTimeWords(skipped[1], skipped[2], skipped[3], nowMs)
      if (words !== null) return `I could not set that: ${words} does not exist, because the clocks go forward past it that night. Say a time before or after it.`
      return `I could not read that time: ${message}.`
    }
    default:
      return `I could not do that: ${message}.`
  }
}

function describe(outcome: ToolOutcome, nowMs: number, messages: ModelMessage[]): string {
  let value: Record<string, unknown> = {}
  try {
    value = JSON.parse(outcome.text) as Record<string, unknown>
  } catch {
    return `The ${outcome.name} tool answered: ${outcome.text}`
  }
  const question = zoneQuestion(value)
  if (question !== null) return zoneQuestionWords(question)
  if (value.code === 'not_future') {
    const passed = passedWords(outcome, nowMs, messages)
    if (passed !== null) return passed
  }
  if (typeof value.code === 'string' && typeof value.message === 'string') return refusalWords(value.code, value.message, value, nowMs)
  switch (outcome.name) {
    case 'schedule_create': {
      const s = (value.schedule ?? value) as View
      if (snoozed(messages)) return `Snoozed: "${String(s.prompt)}" comes back ${whenWords(s, nowMs, 'set for')} (${String(s.id)}).`
      return `Done: reminder ${String(s.id)} "${String(s.prompt)}" is set for ${whenWords(s, nowMs, 'set for')}.`
    }
    case 'schedule_update': {
      const s = (value.schedule ?? value) as View
      if (snoozed(messages)) return `Snoozed: "${String(s.prompt)}" comes back ${whenWords(s, nowMs, 'set for')} (${String(s.id)}).`
      return `Changed: reminder ${String(s.id)} "${String(s.prompt)}" is now set for ${whenWords(s, nowMs, 'set for')}.`
    }
    case 'schedule_list': {
      const list = listed(value)
      if (list.length === 0) return 'You have no active reminders.'
      return ['Your reminders:', ...listLines(list, nowMs)].join('\n')
    }
    case 'schedule_delete': {
      const prompt = value.deleted === true && typeof value.id === 'string' ? latestView(messages, value.id)?.prompt : undefined
      if (value.deleted !== true) return `There is no active reminder ${String(value.id)}.`
      return typeof prompt === 'string' ? `Deleted reminder ${String(value.id)} "${prompt}".` : `Deleted ${String(value.id)}.`
    }
    default:
      return `The ${outcome.name} tool answered: ${outcome.text}`
  }
}

/** Whether the request of this turn was a snooze (its reminder is made again a while later). */
function snoozed(messages: ModelMessage[]): boolean {
  const asked = latestPersonText(messages, true)
  return asked !== null && parseIntent(asked, null, 0).kind === 'snooze'
}

/**
 * The current reading in a person's words: "It is 08:00 on Wednesday 15 July 2026 in Berlin (Europe/Berlin), the
 * Session's zone; your browser is in New York (America/New_York), where it is 02:00." Its fields as they are when the
 * timestamp cannot be read.
 */
export function readingWords(reading: ReadingFields): string {
  const sampled = parseZonedTimestamp(reading.timestamp)
  const zoneWords = (zone: string) => `${zonePlace(zone)} (${zone})`
  // the reading names its own wall date and time: no formatter is needed for them
  const now = sampled === null ? reading.timestamp : `${sampled.time.slice(0, 5)} on ${dayWords(sampled.date)}`
  const client = reading.client
  let browser: string
  if (client.kind === 'resolved') {
    browser =
      canonicalTimeZone(client.timeZone) === canonicalTimeZone(reading.session)
        ? 'your browser is in the same zone'
        : `your browser is in ${zoneWords(client.timeZone)}${sampled === null ? '' : `, where it is ${clockIn(client.timeZone, sampled.epochMs)}`}`
  } else if (client.kind === 'mixed') {
    browser = `your messages came from several zones (${joinWords(client.timeZones.map(zoneWords))})`
  } else {
    browser = 'your browser did not say its zone'
  }
  if (canonicalTimeZone(reading.session) === null) {
    const where = sampled === null ? '' : ` in ${zoneWords(sampled.zone)}`
    return `It is ${now}${where}; this Session has no time zone, and ${browser}.`
  }
  return `It is ${now} in ${zoneWords(reading.session)}, the Session's zone; ${browser}.`
}

/** A date (`2026-07-15`) as "Wednesday 15 July 2026". */
function dayWords(date: string): string {
  const [year, month, day] = date.split('-').map(Number)
  const weekday = new Date(Date.UTC(2000, month - 1, day))
  weekday.setUTCFullYear(year)
  return `${WEEKDAY_NAMES[weekday.getUTCDay()]} ${day} ${MONTH_NAMES[month - 1]} ${year}`
}

/** `HH:MM` on the wall clock of a zone (the protocol's cached formatter: a plain answer is on every turn's path). */
function clockIn(zone: string, ms: number): string {
  const wall = wallClockAt(zone, ms)
  return `${String(wall.hour).padStart(2, '0')}:${String(wall.minute).padStart(2, '0')}`
}

/**
 * A local time that had already passed, said as such: `today at 20:00 in Berlin has already passed (it is 23:39 there
 * now)`, with the same time tomorrow as the example when it was today's. Null when the call did not name a local `at`
 * or its zone cannot be told (the tool's own message is said then).
 */
function passedWords(outcome: ToolOutcome, nowMs: number, messages: ModelMessage[]): string | null {
  let args: Record<string, unknown>
  try {
    args = JSON.parse(outcome.args) as Record<string, unknown>
  } catch {
    return null
  }
  const at = args.at
  if (typeof at !== 'object' || at === null) return null
  const { date, time, time_zone: explicit } = at as Record<string, unknown>
  if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date) || typeof time !== 'string' || !/^\d{2}:\d{2}/.test(time)) return null
  const reading = latestReading(messages)
  const zone = typeof explicit === 'string' ? explicit : reading === null ? null : canonicalTimeZone(reading.session)
  if (zone === null) return null
  const clock = time.slice(0, 5)
  const words = wallTimeWords(date, clock, zone, nowMs)
  if (words === null) return null
  const today = words.startsWith('today ')
  const prompt = typeof args.prompt === 'string' && args.prompt !== DEFAULT_PROMPT ? ` to ${args.prompt}` : ''
  const example = today && outcome.name === 'schedule_create' ? `, for example "remind me tomorrow at ${clock}${prompt}"` : ''
  return `I could not set that: ${words} has already passed (it is ${clockIn(zone, nowMs)} there now). Say a later time${example}.`
}

function listed(value: Record<string, unknown>): View[] {
  return (Array.isArray(value.schedules) ? value.schedules : []) as View[]
}

function listLines(list: View[], nowMs: number): string[] {
  return list.map((s) => `- ${String(s.id)}: "${String(s.prompt)}" ${whenWords(s, nowMs, 'listed')}${s.state === 'overdue' ? ' (due now)' : ''}`)
}

/** The words of a text, lower case, without punctuation or the small words that name nothing. */
function keyWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0 && !['the', 'a', 'an', 'my', 'to', 'of', 'for', 'about', 'and', 'at', 'on', 'in'].includes(word))
}

/** The reminders whose prompt has every key word of `words` (a word matches one it begins, or that begins it: "bin" and "bins"). */
function matching(list: View[], words: string): View[] {
  const wanted = keyWords(words)
  if (wanted.length === 0) return []
  return list.filter((view) => {
    const have = keyWords(String(view.prompt))
    return wanted.every((w) => have.some((h) => h === w || (Math.min(h.length, w.length) >= 3 && (h.startsWith(w) || w.startsWith(h)))))
  })
}

/**
 * A reminder the conversation spoke of: relayed when due (a follow-up, with the occurrence that came due), or in a
 * tool result (`view`); `alone` when nothing else was spoken of with it.
 */
type Mention = { id: string; prompt: string; view: View | null; relayed: boolean; alone: boolean; occurrenceAt: string | null }

/** The reminders the conversation spoke of, the latest first. */
function* mentions(messages: ModelMessage[]): Generator<Mention> {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m.role === 'user') {
      for (const r of (parseFollowUp(m.text) ?? []).reverse()) yield { id: r.id, prompt: r.prompt, view: null, relayed: true, alone: true, occurrenceAt: r.occurrenceAt }
    } else if (m.role === 'tool') {
      let value: Record<string, unknown>
      try {
        value = JSON.parse(m.text) as Record<string, unknown>
      } catch {
        continue
      }
      const listed = Array.isArray(value.schedules) ? (value.schedules as unknown[]) : []
      for (const candidate of [value.schedule, ...listed]) {
        if (typeof candidate !== 'object' || candidate === null || typeof (candidate as View).id !== 'string') continue
        const view = candidate as View
        yield { id: view.id as string, prompt: String(view.prompt), view, relayed: false, alone: candidate === value.schedule || listed.length === 1, occurrenceAt: null }
      }
    }
  }
}

function firstMention(messages: ModelMessage[], wanted: (mention: Mention) => boolean): Mention | null {
  for (const mention of mentions(messages)) if (wanted(mention)) return mention
  return null
}

/** The latest view of a reminder the conversation saw (a create, update or list result), or null. */
function latestView(messages: ModelMessage[], id: string): View | null {
  return firstMention(messages, (m) => m.view !== null && m.id === id)?.view ?? null
}

/** The reminder the conversation spoke of last: made, changed or listed alone in a tool result, or relayed when due; null when none. */
function latestMentioned(messages: ModelMessage[]): Mention | null {
  return firstMention(messages, (m) => m.alone)
}

/** The latest reminder relayed in the conversation (optionally of one id), or null. */
function latestRelayed(messages: ModelMessage[], id: string | null): Mention | null {
  return firstMention(messages, (m) => m.relayed && (id === null || m.id === id))
}

/** The reminder relayed last whose prompt has `words` ("oven" for "check the oven"). */
function latestRelayedAbout(messages: ModelMessage[], words: string): Mention | null {
  return firstMention(messages, (m) => m.relayed && matching([{ prompt: m.prompt }], words).length === 1)
}

/** What a snooze makes again: a reminder's words, and the occurrence of it that came due (its id and when) when one was relayed. */
type SnoozeTarget = { prompt: string; id: string; occurrenceAt: string | null }

/**
 * What a snooze asks to make again: the words of the reminder relayed last (of the id or words said), with the
 * occurrence that came due, else of a reminder named by id that the conversation saw (no occurrence); or what to say
 * when there is none.
 */
function snoozeTarget(messages: ModelMessage[], intent: Extract<Intent, { kind: 'snooze' }>): SnoozeTarget | { answer: string } {
  const words = intent.words
  const relayed = words === undefined ? latestRelayed(messages, intent.id) : latestRelayedAbout(messages, words)
  if (relayed !== null) return { prompt: relayed.prompt, id: relayed.id, occurrenceAt: relayed.occurrenceAt }
  const prompt = intent.id === null ? undefined : latestView(messages, intent.id)?.prompt
  if (intent.id !== null && typeof prompt === 'string') return { prompt, id: intent.id, occurrenceAt: null }
  if (words !== undefined) {
    return {
      answer: `No reminder about "${words}" has come due in this conversation, so there is none to snooze yet. To move it, say for example "move the ${words} reminder to 20:00".`,
    }
  }
  return { answer: 'Which reminder should I snooze? I have not relayed one in this conversation yet.' }
}

/** An occurrence that came due, as a key: its reminder's id and when. */
function occurrenceKey(id: string, occurrenceAt: string): string {
  return `${id}@${occurrenceAt}`
}

/**
 * What the conversation knows of the reminders it made: by id, the occurrence (`occurrenceKey`) a snooze was made or
 * moved for, or null for one made as a reminder of its own (asked for by a request that was not a snooze).
 */
function madeInConversation(messages: ModelMessage[]): Map<string, string | null> {
  const made = new Map<string, string | null>()
  let call: Extract<ModelMessage, { role: 'assistant' }> | null = null
  // the request of the turn so far: the person's latest message, readings skipped
  let asked: string | null = null
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (m.role === 'assistant') call = m
    if (m.role === 'user' && parseReadingText(m.text) === null) asked = m.text
    if (m.role !== 'tool' || m.isError || call === null || asked === null || asked.startsWith(FOLLOW_UP_HEADER)) continue
    const name = call.toolCalls.find((c) => c.callId === m.callId)?.name
    if (name !== 'schedule_create' && name !== 'schedule_update') continue
    let view: unknown
    try {
      view = (JSON.parse(m.text) as Record<string, unknown>).schedule
    } catch {
      continue
    }
    if (typeof view !== 'object' || view === null || typeof (view as View).id !== 'string') continue
    const id = (view as View).id as string
    const intent = parseIntent(asked, null, 0)
    if (intent.kind !== 'snooze') {
      if (name === 'schedule_create') made.set(id, null)
      continue
    }
    const target = snoozeTarget(messages.slice(0, i), intent)
    if (!('answer' in target) && target.occurrenceAt !== null) made.set(id, occurrenceKey(target.id, target.occurrenceAt))
  }
  return made
}

/**
 * The reminder that already snoozes an occurrence come due: the one this conversation made or moved for it, else, as
 * the overlay reads snoozes from the log, the first `after` reminder listed with its words that was made (or last
 * moved) after the occurrence came due — never one the conversation made as a reminder of its own, or for another
 * occurrence (two reminders with the same words each keep their snooze); null when none.
 */
function snoozeOf(list: View[], target: SnoozeTarget & { occurrenceAt: string }, messages: ModelMessage[]): View | null {
  const due = Date.parse(target.occurrenceAt)
  const made = (view: View) =>
    typeof view.scheduledAt === 'string' && typeof view.afterSeconds === 'number' ? Date.parse(view.scheduledAt) - view.afterSeconds * 1000 : Number.NaN
  const candidates = list.filter((view) => view.kind === 'after' && view.prompt === target.prompt && made(view) >= due)
  if (candidates.length === 0) return null
  const known = madeInConversation(messages)
  const key = occurrenceKey(target.id, target.occurrenceAt)
  return candidates.find((view) => known.get(String(view.id)) === key) ?? candidates.find((view) => !known.has(String(view.id))) ?? null
}

/**
 * A reminder that repeats every so often asked to change to a time of day: it has none, so which is meant — once at
 * that time, or every day at it — and how to say each; nothing is changed.
 */
function periodClockQuestion(view: View, hour: number, minute: number, nowMs: number, zone: string | null): string {
  const id = String(view.id)
  const time = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`
  const date = zone === null ? null : nextDateOf(hour, minute, zone, nowMs)
  const day = date !== null && zone !== null && wallTimeWords(date, time, zone, nowMs)?.startsWith('today ') ? 'today' : 'tomorrow'
  const every = typeof view.everySeconds === 'number' ? everyWords(view.everySeconds) : 'few minutes'
  return (
    `Reminder ${id} "${String(view.prompt)}" repeats every ${every}, so it has no time of day to change, and I left it as it is. ` +
    `Do you mean once at ${time}, or every day at ${time}? Say "change ${id} to ${day} at ${time}" for once, or "change ${id} to every day at ${time}" for every day.`
  )
}

/**
 * The `schedule_update` arguments for a reminder changed to a time of day: a calendar rule keeps its days at that time;
 * a one-off stays on its day when that is after today, else — as a reminder said at a bare time is set — is today
 * when the time is still ahead, tomorrow when it has passed.
 */
function changeArgs(id: string, hour: number, minute: number, view: View, now: number): Record<string, unknown> {
  const time = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`
  const zone = typeof view.timeZone === 'string' ? view.timeZone : null
  if (view.kind === 'calendar' && typeof view.rrule === 'string') {
    const rrule = view.rrule.replace(/;?BYHOUR=[0-9,]+/, '').replace(/;?BYMINUTE=[0-9,]+/, '')
    return { id, rrule: `${rrule};BYHOUR=${hour};BYMINUTE=${minute}`, ...(zone === null ? {} : { time_zone: zone }) }
  }
  const local = typeof view.scheduledAtLocal === 'string' ? /^(\d{4}-\d{2}-\d{2})T/.exec(view.scheduledAtLocal)?.[1] : undefined
  const next = nextDateOf(hour, minute, zone ?? 'UTC', now)
  const today = todayIn(zone ?? 'UTC', now)
  const date = local !== undefined && (next === null || (today !== null && local > today)) ? local : (next ?? new Date(now).toISOString().slice(0, 10))
  return { id, at: { date, time: `${time}:00`, ...(zone === null ? {} : { time_zone: zone }) } }
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

/** The zones a `timezone_confirmation_required` tool result names: the Session's (or `unavailable`), the browsers', and both (the Session's first); null for another result. */
type ZoneQuestion = { session: string; clients: string[]; known: string[] }

/** The question asked when a local time's zone must be confirmed: the Session's zone (or that it has none), the browsers', the known ones. */
export function zoneQuestionWords({ session, clients, known }: ZoneQuestion): string {
  const example = known[0] ?? 'Europe/Berlin'
  const sessionWords = session === 'unavailable' ? 'This Session has no time zone' : `This Session's time zone is ${session}`
  return `Which time zone do you mean for that time? ${sessionWords}; your browser${clients.length > 1 ? 's report' : ' reports'} ${clients.length > 0 ? clients.join(', ') : 'no zone'}. Known zones: ${known.length > 0 ? known.join(', ') : 'none'}. Name one ("${zonePlace(example)}" or "${example}"), or say it again with the zone, for example "remind me at 09:30 ${example} to stretch".`
}

function zoneQuestion(value: Record<string, unknown>): ZoneQuestion | null {
  if (value.code !== 'timezone_confirmation_required') return null
  const session = typeof value.sessionTimeZone === 'string' ? value.sessionTimeZone : 'unavailable'
  const clients = Array.isArray(value.clientTimeZones) ? value.clientTimeZones.filter((z): z is string => typeof z === 'string') : []
  return { session, clients, known: [...new Set([...(session === 'unavailable' ? [] : [session]), ...clients])] }
}

/** The zones the zone question in a tool result's text offered, or null when it is not one. */
function questionZones(text: string): string[] | null {
  try {
    return zoneQuestion(JSON.parse(text) as Record<string, unknown>)?.known ?? null
  } catch {
    return null
  }
}

/** Walks the conversation back from its end, readings skipped: each call answers the message before the one it answered last. */
function walkBack(messages: ModelMessage[]): () => ModelMessage | undefined {
  let i = messages.length - 1
  return () => {
    while (i >= 0 && messages[i].role === 'user' && parseReadingText(messages[i].text) !== null) i--
    return messages[i--]
  }
}

/** The zone a short reply names ("Tokyo", "Asia/Tokyo", "in Berlin time", "UTC"): an IANA zone, or a zone by its place (the same names "at 9 in London" is read with); else null. */
export function namedZone(text: string): string | null {
  const name = text
    .trim()
    .replace(/[.!]+$/, '')
    .replace(/^(?:i mean|use|in|the)\s+/i, '')
    .replace(/\s+(?:time zone|timezone|zone|time)$/i, '')
    .trim()
  if (name === '' || name.split(/\s+/).length > 4) return null
  return canonicalTimeZone(name) ?? placeZone(name)
}

/**
 * A reply that only names a zone, right after the assistant asked which zone a local time meant:
 * the person's request that was asked about, and the zone; null for anything else. It looks only
 * at the last few messages (person, question, tool result, call, request), readings skipped.
 */
function zoneReply(messages: ModelMessage[], text: string): { request: string; zone: string } | null {
  const next = walkBack(messages)
  if (next()?.role !== 'user') return null
  const question = next()
  if (question?.role !== 'assistant' || question.toolCalls.length > 0) return null
  const result = next()
  const known = result?.role === 'tool' ? questionZones(result.text) : null
  if (known === null) return null
  const zone = namedZone(text)
  if (zone === null) return null
  let call = next()
  while (call?.role === 'tool') call = next()
  if (call?.role !== 'assistant' || call.toolCalls.length === 0) return null
  const request = next()
  return request?.role === 'user' ? { request: request.text, zone } : null
}

/** How the answer to a request with no time it could read begins (the reply after it may be the time alone). */
const NO_TIME_ANSWER = 'I could not find when in that.'

/** Why "every 2 hours on weekdays" is not one reminder, and the two that can be said instead. */
function periodOnDaysAnswer(intent: Extract<Intent, { kind: 'period-on-days' }>): string {
  const what = intent.prompt === DEFAULT_PROMPT ? 'to …' : `to ${intent.prompt}`
  const times = joinWords(intent.example.map((c) => (c.minute === 0 ? String(c.hour) : `${c.hour}:${String(c.minute).padStart(2, '0')}`)))
  return (
    `I cannot set "${intent.period}" and "${intent.days}" in one reminder: a reminder repeats either every so often, or at set times on chosen days. ` +
    `Say the times, for example "remind me ${intent.days} at ${times} ${what}", or leave out the days: "remind me ${intent.period} ${what}".`
  )
}

/**
 * A reply that only says when ("tomorrow at 9", "in 2 hours"), right after the assistant said it found no time in a
 * request: that request said again with this time (`remind me tomorrow at 9 to renew the passport`); null for
 * anything else. Like `zoneReply`, it looks only at the last few messages, readings skipped.
 */
function timeReply(messages: ModelMessage[], text: string, reading: ReadingFields | null, nowMs: number): string | null {
  const next = walkBack(messages)
  if (next()?.role !== 'user') return null
  const answer = next()
  if (answer?.role !== 'assistant' || answer.toolCalls.length > 0 || !answer.text.startsWith(NO_TIME_ANSWER)) return null
  const request = next()
  if (request?.role !== 'user') return null
  const asked = parseIntent(request.text, reading, nowMs)
  if (asked.kind !== 'no-time') return null
  const when = text.trim().replace(/[.!]+$/, '')
  // a reply with words of its own after the time ("in 10 minutes: stretch") is a reminder of those words
  const own = parseIntent(`remind me ${when}`, reading, nowMs)
  if (own.kind === 'create' && own.args.prompt !== DEFAULT_PROMPT) return `remind me ${when}`
  return asked.prompt === DEFAULT_PROMPT ? `remind me ${when}` : `remind me ${when} to ${asked.prompt}`
}

/** How to say a change whose reminder or time could not be read; nothing is changed. */
function unreadableChangeAnswer(intent: Extract<Intent, { kind: 'change-unreadable' }>): string {
  if (intent.id === null && intent.words === null) {
    return 'Which reminder should I change? Say its id or its words and when, for example "change schedule-1 to tomorrow at 10" or "move the oven reminder to 20:00".'
  }
  const which = intent.id ?? `the ${intent.words} reminder`
  const say = intent.id === null ? `move ${which}` : `change ${which}`
  const start = intent.target === '' ? `When should ${which} be?` : `I could not read "${intent.target}" as a time, so ${which} is unchanged.`
  return `${start} Say a day and time or how often, for example "${say} to tomorrow at 10", "${say} to 10:30" or "${say} to every 10 minutes".`
}

/** The default model: deterministic, offline, demo-grade; drives the Schedule tools (SPEC 10). */
export class OfflineModel implements Model {
  readonly name = 'offline'

  constructor(
    private readonly delayMs = 0,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * The step after a list made for a reminder named by its words: the one reminder that matches is deleted or
   * changed; none or several are said, with the list, and which to name. After a list made for a snooze, the
   * occurrence's snooze made already is moved, else one is made. Null when the list was asked for itself.
   */
  private followList(outcomes: ToolOutcome[], messages: ModelMessage[], request: ModelRequest): ModelResponse | null {
    if (outcomes.length !== 1 || outcomes[0].name !== 'schedule_list' || outcomes[0].isError) return null
    const asked = latestPersonText(messages, true)
    const intent = asked === null ? null : parseIntent(asked, null, this.clock.now())
    if (intent === null || (intent.kind !== 'delete-named' && intent.kind !== 'change-named' && intent.kind !== 'change-named-to' && intent.kind !== 'change' && intent.kind !== 'snooze')) return null
    let list: View[]
    try {
      list = listed(JSON.parse(outcomes[0].text) as Record<string, unknown>)
    } catch {
      return null
    }
    const now = this.clock.now()
    if (intent.kind === 'snooze') {
      // listed to find a snooze of the occurrence made already (by the assistant, or in the overlay): it is moved
      const target = snoozeTarget(messages, intent)
      if ('answer' in target || target.occurrenceAt === null) return null
      const snooze = snoozeOf(list, { ...target, occurrenceAt: target.occurrenceAt }, messages)
      const [name, args] = snooze === null ? ['schedule_create', { prompt: target.prompt, after_seconds: intent.seconds }] : ['schedule_update', { id: String(snooze.id), after_seconds: intent.seconds }]
      if (request.tools.some((t) => t.name === name)) return { text: '', toolCalls: [{ name, arguments: JSON.stringify(args) }] }
      return null
    }
    if (intent.kind === 'change') {
      // a change to a time of day of a reminder this conversation had not seen: listed to learn what it is
      const view = list.find((s) => s.id === intent.id)
      if (view === undefined) return { text: `There is no active reminder ${intent.id}.`, toolCalls: [] }
      return this.changeClock(intent.id, intent.hour, intent.minute, view, messages, request)
    }
    const found = matching(list, intent.words)
    if (found.length === 1) {
      const id = String(found[0].id)
      if (intent.kind === 'change-named') return this.changeClock(id, intent.hour, intent.minute, found[0], messages, request)
      const [name, args] = intent.kind === 'delete-named' ? ['schedule_delete', { id }] : ['schedule_update', { id, ...intent.to }]
      if (request.tools.some((t) => t.name === name)) return { text: '', toolCalls: [{ name, arguments: JSON.stringify(args) }] }
      return null
    }
    const example =
      intent.kind === 'delete-named'
        ? 'delete schedule-1'
        : intent.kind === 'change-named-to'
          ? `change schedule-1 to ${intent.said}`
          : `change schedule-1 to ${String(intent.hour).padStart(2, '0')}:${String(intent.minute).padStart(2, '0')}`
    if (found.length === 0) {
      const rest = list.length === 0 ? 'You have no active reminders.' : ['Your reminders:', ...listLines(list, now)].join('\n')
      return { text: `No reminder matches "${intent.words}".\n${rest}`, toolCalls: [] }
    }
    return { text: [`Several reminders match "${intent.words}":`, ...listLines(found, now), `Say which one, for example "${example.replace('schedule-1', String(found[0].id))}".`].join('\n'), toolCalls: [] }
  }

  /**
   * A reminder changed to a time of day: a calendar rule keeps its days, a one-off moves on its day; one that repeats
   * every so often is asked about (it has no time of day). Null when the tool is not offered.
   */
  private changeClock(id: string, hour: number, minute: number, view: View, messages: ModelMessage[], request: ModelRequest): ModelResponse | null {
    const now = this.clock.now()
    if (view.kind === 'every') {
      const reading = latestReading(messages)
      const zone = typeof view.timeZone === 'string' ? view.timeZone : reading === null ? null : canonicalTimeZone(reading.session)
      return { text: periodClockQuestion(view, hour, minute, now, zone), toolCalls: [] }
    }
    if (!request.tools.some((t) => t.name === 'schedule_update')) return null
    return { text: '', toolCalls: [{ name: 'schedule_update', arguments: JSON.stringify(changeArgs(id, hour, minute, view, now)) }] }
  }

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    if (this.delayMs > 0) await abortableDelay(this.delayMs, signal)
    const messages = request.messages
    const outcomes = toolOutcomes(messages)
    if (outcomes) {
      // two reminders asked for at once may meet the same question (which zone): it is asked once
      return this.followList(outcomes, messages, request) ?? { text: [...new Set(outcomes.map((o) => describe(o, this.clock.now(), messages)))].join('\n'), toolCalls: [] }
    }
    const reading = latestReading(messages)
    const text = latestPersonText(messages)
    if (text === null) return { text: 'Noted.', toolCalls: [] }
    if (text.startsWith(FOLLOW_UP_HEADER)) return { text: relay(text), toolCalls: [] }
    const hasTool = (name: string): boolean => request.tools.some((t) => t.name === name)
    // "Tokyo" after "Which time zone do you mean?": the request asked about, in that zone
    const reply = zoneReply(messages, text)
    let intent = parseIntent(reply === null ? text : `${reply.request} in ${reply.zone}`, reading, this.clock.now())
    // "tomorrow at 9" after "I could not find when in that": the request before it, at that time
    if (intent.kind === 'none') {
      const again = timeReply(messages, text, reading, this.clock.now())
      const joined = again === null ? null : parseIntent(again, reading, this.clock.now())
      if (joined !== null && joined.kind === 'create') intent = joined
    }
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
        if (hasTool('schedule_create')) {
          return { text: '', toolCalls: [intent.args, ...(intent.also ?? [])].map((args) => ({ name: 'schedule_create', arguments: JSON.stringify(args) })) }
        }
        break
      case 'period-on-days':
        return { text: periodOnDaysAnswer(intent), toolCalls: [] }
      case 'snooze': {
        const target = snoozeTarget(messages, intent)
        if ('answer' in target) return { text: target.answer, toolCalls: [] }
        // an occurrence come due may be snoozed already, here or in the overlay: listed first, so that snooze is moved
        if (target.occurrenceAt !== null && hasTool('schedule_update') && hasTool('schedule_list')) return call('schedule_list', {})
        if (hasTool('schedule_create')) return call('schedule_create', { prompt: target.prompt, after_seconds: intent.seconds })
        break
      }
      case 'delete-latest': {
        const latest = latestMentioned(messages)
        if (latest === null) return { text: 'Which reminder should I delete? Say its words or its id, for example "delete the bins reminder" or "delete schedule-1".', toolCalls: [] }
        if (hasTool('schedule_delete')) return call('schedule_delete', { id: latest.id })
        break
      }
      case 'delete-named':
      case 'change-named':
      case 'change-named-to':
        if (hasTool('schedule_list')) return call('schedule_list', {})
        break
      case 'change-to':
        if (hasTool('schedule_update')) return call('schedule_update', { id: intent.id, ...intent.to })
        break
      case 'change-unreadable':
        return { text: unreadableChangeAnswer(intent), toolCalls: [] }
      case 'change': {
        // what the reminder is decides what a time of day changes: listed first when this conversation has not seen it
        const view = latestView(messages, intent.id)
        if (view === null) {
          if (hasTool('schedule_list')) return call('schedule_list', {})
          break
        }
        const changed = this.changeClock(intent.id, intent.hour, intent.minute, view, messages, request)
        if (changed !== null) return changed
        break
      }
      case 'no-time': {
        const what = intent.prompt === DEFAULT_PROMPT ? '' : ` to ${intent.prompt}`
        return {
          text: `${NO_TIME_ANSWER} Say it again with a time, for example "remind me tomorrow at 9${what === '' ? ' to …' : what}" — or "in 2 hours", "on 2 September at 10", "every weekday at 08:30".`,
          toolCalls: [],
        }
      }
      case 'none':
        break
      default: {
        const never: never = intent
        throw new Error(`unknown intent ${JSON.stringify(never)}`)
      }
    }
    if (!reading) return { text: `You said: ${text}`, toolCalls: [] }
    return { text: `${readingWords(reading)} You said: ${text}`, toolCalls: [] }
  }
}

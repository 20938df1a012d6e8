import { canonicalTimeZone, MIN_EVERY_SECONDS, wallClockAt } from '../../protocol/index.ts'
import type { ReminderFields } from '../data/queries.ts'
import type { ScheduleView } from '../../protocol/index.ts'

/** The kinds of reminder the form makes. */
export type FormKind = 'at' | 'after' | 'every' | 'daily'

/** Units the form counts spans in. */
export type SpanUnit = 'min' | 'h' | 'd'

/** What the reminder form holds. */
export type ReminderDraft = { prompt: string; kind: FormKind; date: string; time: string; amount: string; unit: SpanUnit; zone: string }

const UNIT_SECONDS: Record<SpanUnit, number> = { min: 60, h: 3_600, d: 86_400 }
const DAILY = /^FREQ=DAILY;BYHOUR=(\d{1,2});BYMINUTE=(\d{1,2})$/

const pad = (n: number): string => String(n).padStart(2, '0')

/** `YYYY-MM-DD` and `HH:mm` of an instant on the wall clock of a zone. */
export function wallParts(instantMs: number, zone: string): { date: string; time: string } {
  const wall = wallClockAt(zone, instantMs)
  return { date: `${String(wall.year).padStart(4, '0')}-${pad(wall.month)}-${pad(wall.day)}`, time: `${pad(wall.hour)}:${pad(wall.minute)}` }
}

function span(seconds: number): { amount: string; unit: SpanUnit } {
  if (seconds % 86_400 === 0) return { amount: String(seconds / 86_400), unit: 'd' }
  if (seconds % 3_600 === 0) return { amount: String(seconds / 3_600), unit: 'h' }
  return { amount: String(Math.max(1, Math.round(seconds / 60))), unit: 'min' }
}

/** A fresh draft: an hour from now, in the zone given (the Session's, by default). */
export function newDraft(zone: string, nowMs: number): ReminderDraft {
  const inAnHour = Math.ceil((nowMs + 3_600_000) / 300_000) * 300_000
  return { prompt: '', kind: 'at', ...wallParts(inAnHour, zone), amount: '10', unit: 'min', zone }
}

/** The draft that edits an existing reminder, in its own zone. */
export function draftOf(view: ScheduleView, zone: string): ReminderDraft {
  const target = Date.parse(view.scheduledAt)
  const base = { ...newDraft(zone, Date.now()), prompt: view.prompt, ...(Number.isFinite(target) ? wallParts(target, zone) : {}) }
  switch (view.kind) {
    case 'at':
      return { ...base, kind: 'at' }
    case 'after':
      return { ...base, kind: 'after', ...span(view.afterSeconds) }
    case 'every':
      return { ...base, kind: 'every', ...span(view.everySeconds) }
    default: {
      const rule = (view as { rrule?: unknown }).rrule
      const daily = typeof rule === 'string' ? DAILY.exec(rule) : null
      return daily === null ? base : { ...base, kind: 'daily', time: `${pad(Number(daily[1]))}:${pad(Number(daily[2]))}` }
    }
  }
}

/** Why a draft cannot be sent yet, or null when it can. */
export function draftProblem(draft: ReminderDraft): string | null {
  if (draft.prompt.trim().length === 0) return 'Say what to remind you of.'
  if (draft.kind === 'at' || draft.kind === 'daily') {
    if (canonicalTimeZone(draft.zone) === null) return 'Pick a time zone from the list.'
    if (!/^\d{2}:\d{2}$/.test(draft.time)) return 'Pick a time.'
    if (draft.kind === 'at' && !/^\d{4}-\d{2}-\d{2}$/.test(draft.date)) return 'Pick a date.'
    return null
  }
  const amount = Number(draft.amount)
  if (!Number.isSafeInteger(amount) || amount <= 0) return 'Give a whole number greater than zero.'
  if (draft.kind === 'every' && amount * UNIT_SECONDS[draft.unit] < MIN_EVERY_SECONDS) return `Repeat at most every ${MIN_EVERY_SECONDS / 60} minutes.`
  return null
}

/** The route body of a draft (SPEC 7.9: a local time always carries the zone picked on screen). */
export function draftFields(draft: ReminderDraft): ReminderFields {
  const prompt = draft.prompt.trim()
  switch (draft.kind) {
    case 'at':
      return { prompt, at: { date: draft.date, time: `${draft.time}:00`, time_zone: draft.zone } }
    case 'after':
      return { prompt, after_seconds: Number(draft.amount) * UNIT_SECONDS[draft.unit] }
    case 'every':
      return { prompt, every_seconds: Number(draft.amount) * UNIT_SECONDS[draft.unit] }
    case 'daily': {
      const [hour, minute] = draft.time.split(':').map(Number)
      return { prompt, rrule: `FREQ=DAILY;BYHOUR=${hour};BYMINUTE=${minute}`, time_zone: draft.zone }
    }
    default: {
      const unreachable: never = draft.kind
      return unreachable
    }
  }
}

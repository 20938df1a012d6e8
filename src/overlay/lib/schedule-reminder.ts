import { FOLLOW_UP_HEADER, parseFollowUp } from '../../protocol/index.ts'

/** Marker that starts every Schedule follow-up message (SPEC 7.5). */
export const REMINDER_MARKER = FOLLOW_UP_HEADER

/** One reminder occurrence named by a follow-up message, with how many occurrences of it were missed. */
export type DueReminder = { scheduleId: string; occurrenceAt: string; prompt: string; missed: number }

/** The parts of a Schedule follow-up. */
export type ReminderFollowUp = { reminders: DueReminder[] }

/** Parses the text of a Schedule follow-up with the protocol's strict parser; null unless it is exactly one. */
export function parseReminderFollowUp(text: string): ReminderFollowUp | null {
  const reminders = parseFollowUp(text)
  if (reminders === null) return null
  return { reminders: reminders.map((r) => ({ scheduleId: r.id, occurrenceAt: r.occurrenceAt, prompt: r.prompt, missed: r.missed ?? 0 })) }
}

/** Marker that starts every Schedule follow-up message (SPEC 7.5). */
export const REMINDER_MARKER = '[SCHEDULE REMINDER]'

/** One reminder named by a follow-up message. */
export type DueReminder = { scheduleId: string | null; occurrenceAt: string | null; prompt: string | null }

/** The parts of a Schedule follow-up, or null when the text is not one. */
export type ReminderFollowUp = { reminders: DueReminder[] }

function parseJsonString(raw: string): string | null {
  try {
    const value: unknown = JSON.parse(raw)
    return typeof value === 'string' ? value : null
  } catch {
    return null
  }
}

/** Parses the text of a Schedule follow-up (one block per due reminder); null unless it starts with the marker. */
export function parseReminderFollowUp(text: string): ReminderFollowUp | null {
  if (!text.startsWith(REMINDER_MARKER)) return null
  const reminders: DueReminder[] = []
  let current: DueReminder | null = null
  const open = (): DueReminder => {
    if (current === null) {
      current = { scheduleId: null, occurrenceAt: null, prompt: null }
      reminders.push(current)
    }
    return current
  }
  for (const line of text.split('\n')) {
    if (line.startsWith('schedule_id_json: ')) {
      current = null
      open().scheduleId = parseJsonString(line.slice('schedule_id_json: '.length))
    } else if (line.startsWith('occurrence_at: ')) {
      open().occurrenceAt = line.slice('occurrence_at: '.length).trim()
    } else if (line.startsWith('reminder_prompt_json: ')) {
      const entry = open()
      entry.prompt = parseJsonString(line.slice('reminder_prompt_json: '.length))
      current = null
    }
  }
  return { reminders }
}

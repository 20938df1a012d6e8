import { instantMs } from '../lib/countdown.ts'
import { formatDueTimes } from '../lib/due-time.ts'
import type { ReminderFollowUp } from '../lib/schedule-reminder.ts'

/** A card for a Schedule follow-up: which reminder came due and when, in both zones. */
export function ReminderDueCard({
  followUp,
  sessionZone,
  browserZone,
}: {
  followUp: ReminderFollowUp
  sessionZone: string | null
  browserZone: string | null
}) {
  return (
    <article className="reminder-due" data-testid="reminder-due" aria-label="Reminder due">
      <div className="reminder-due-head">Reminder due</div>
      {followUp.reminders.map((reminder, index) => {
        const at = instantMs(reminder.occurrenceAt)
        const due = at === null ? null : formatDueTimes(at, sessionZone, browserZone)
        return (
          <div key={`${reminder.scheduleId}:${index}`} className="reminder-due-body" data-schedule-id={reminder.scheduleId}>
            <p className="reminder-prompt">{reminder.prompt}</p>
            <p className="muted small">
              {reminder.scheduleId}
              {reminder.missed > 0 && <> · {reminder.missed} missed before this one</>}
              {due !== null && due.session !== null && <> · {due.session.text} ({due.session.zone})</>}
              {due !== null && due.browser !== null && !due.sameZone && <> · {due.browser.text} ({due.browser.zone})</>}
            </p>
          </div>
        )
      })}
    </article>
  )
}

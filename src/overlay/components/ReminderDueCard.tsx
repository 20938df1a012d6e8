import { memo, useState } from 'react'
import { errorMessage } from '../data/http.ts'
import { markDone, noticeKey } from '../data/notices.ts'
import { useSnooze } from '../data/queries.ts'
import { instantMs } from '../lib/countdown.ts'
import { zonedTimes } from '../lib/zoned-time.ts'
import type { DueReminder, ReminderFollowUp } from '../lib/schedule-reminder.ts'

/** What a due card needs besides the follow-up. */
export type DueContext = { sessionId: string; sessionZone: string | null; browserZone: string | null; locale: string; now: number; offline: boolean; done: ReadonlySet<string> }

function DueReminderRow({ reminder, context }: { reminder: DueReminder; context: DueContext }) {
  const snooze = useSnooze()
  const [snoozedTo, setSnoozedTo] = useState<string | null>(null)
  const at = instantMs(reminder.occurrenceAt)
  const times = at === null ? null : zonedTimes(at, context.sessionZone, context.browserZone, context.locale, context.now)
  const key = noticeKey(context.sessionId, reminder.scheduleId, reminder.occurrenceAt)
  const done = context.done.has(key)
  const scheduleId = reminder.scheduleId
  return (
    <div className="reminder-due-body" data-schedule-id={scheduleId} data-done={done}>
      <p className="reminder-prompt" dir="auto">
        {reminder.prompt}
      </p>
      <p className="muted small">
        {times?.own != null && (
          <span title={times.own.detail}>
            {times.own.when} · {times.own.place}
          </span>
        )}
        {times?.browser != null && (
          <span title={times.browser.detail}>
            {' '}
            ({times.browser.when} · {times.browser.place})
          </span>
        )}
        {reminder.missed > 0 && <span> · {reminder.missed} missed before this one</span>}
      </p>
      {snoozedTo !== null && <p className="small" role="status">Snoozed: {snoozedTo}.</p>}
      {done && <p className="small muted">Done.</p>}
      {!done && snoozedTo === null && (
        <div className="actions">
          <button
            type="button"
            className="button button-small"
            data-testid="reminder-snooze"
            disabled={snooze.isPending || context.offline}
            onClick={() =>
              snooze.mutate(
                { sessionId: context.sessionId, scheduleId },
                {
                  onSuccess: (view) => {
                    const target = instantMs(view.scheduledAt)
                    const next = target === null ? null : zonedTimes(target, context.sessionZone, null, context.locale, Date.now()).own
                    setSnoozedTo(next === null ? view.id : `again ${next.when}`)
                    markDone(key)
                  },
                },
              )
            }
          >
            {snooze.isPending ? 'Snoozing…' : 'Snooze 10 min'}
          </button>
          <button type="button" className="button button-small" data-testid="reminder-done" onClick={() => markDone(key)}>
            Done
          </button>
        </div>
      )}
      {snooze.isError && (
        <p className="notice notice-error" role="alert">
          Could not snooze: {errorMessage(snooze.error)}
        </p>
      )}
    </div>
  )
}

/** A card for a Schedule follow-up: which reminder came due and when, in the Session zone and this browser's, with Snooze and Done. */
export const ReminderDueCard = memo(function ReminderDueCard({ followUp, context }: { followUp: ReminderFollowUp; context: DueContext }) {
  return (
    <article className="reminder-due" data-testid="reminder-due" aria-label="Reminder due">
      <div className="reminder-due-head">Reminder due</div>
      {followUp.reminders.map((reminder, index) => (
        <DueReminderRow key={`${reminder.scheduleId}:${index}`} reminder={reminder} context={context} />
      ))}
    </article>
  )
})

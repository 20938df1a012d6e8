import { memo, useEffect, useId, useRef } from 'react'
import { snoozeFailure } from '../data/http.ts'
import { markDone, markSnoozed, noticeKey, setCardInView } from '../data/notices.ts'
import { useSnooze } from '../data/queries.ts'
import { useDueReminderZone } from '../hooks/use-reminder-zone.ts'
import type { LogSnooze } from '../lib/conversation.ts'
import { instantMs } from '../lib/countdown.ts'
import { dueState } from '../lib/due-state.ts'
import { snoozedAgain, zonedTimes } from '../lib/zoned-time.ts'
import type { DueReminder, ReminderFollowUp } from '../lib/schedule-reminder.ts'

/** What a due card needs besides the follow-up. */
export type DueContext = {
  sessionId: string
  sessionZone: string | null
  /** The zone of each reminder the loaded log made or changed (see `ConversationFold.zones`). */
  loggedZones: ReadonlyMap<string, string | null>
  browserZone: string | null
  locale: string
  now: number
  offline: boolean
  done: ReadonlySet<string>
  /** Occurrences snoozed here, each with when its replacing reminder is due (ISO). */
  snoozed: Readonly<Record<string, string>>
  /** The snoozes of the loaded log (see `ConversationFold.snoozes`), one deleted since leaving its occurrence no longer snoozed. */
  snoozes: readonly LogSnooze[]
}

function DueReminderRow({ reminder, context }: { reminder: DueReminder; context: DueContext }) {
  const snooze = useSnooze()
  const at = instantMs(reminder.occurrenceAt)
  // in the reminder's own zone, as its row in the panel (SPEC 9)
  const zone = useDueReminderZone(context.sessionId, reminder.scheduleId, context.loggedZones, context.sessionZone)
  const times = at === null ? null : zonedTimes(at, zone, context.browserZone, context.locale, context.now)
  const key = noticeKey(context.sessionId, reminder.scheduleId, reminder.occurrenceAt)
  // what the card says and offers, as the toast of the same occurrence does
  const state = dueState({ key, scheduleId: reminder.scheduleId, occurrenceAt: reminder.occurrenceAt }, context, context.snoozes)
  const done = context.done.has(key)
  const snoozedTo = state.kind === 'snoozed' ? snoozedAgain(instantMs(state.until), zone, context.browserZone, context.locale, context.now) : null
  const scheduleId = reminder.scheduleId
  // a Snooze or Done pressed here leaves focus on what the card now says, not on <body> as the buttons go away
  const actedHere = useRef(false)
  const status = useRef<HTMLParagraphElement>(null)
  const said = state.kind === 'due' ? null : state.kind
  // the buttons say which reminder they act on, for a card of several
  const promptId = useId()
  useEffect(() => {
    if (!actedHere.current || said === null) return
    actedHere.current = false
    status.current?.focus()
  }, [said])
  // whether the card is on screen, so a phone need not say it again in a toast; behind the reminders drawer (its
  // conversation inert while the drawer is open over it) it is not
  const body = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const node = body.current
    if (node === null || typeof IntersectionObserver === 'undefined') return
    const chat = node.closest('.chat')
    let intersecting = false
    const report = () => setCardInView(key, intersecting && chat?.hasAttribute('inert') !== true)
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) intersecting = entry.isIntersecting
      report()
    })
    observer.observe(node)
    const drawer = chat === null ? null : new MutationObserver(report)
    if (chat !== null) drawer?.observe(chat, { attributes: true, attributeFilter: ['inert'] })
    return () => {
      observer.disconnect()
      drawer?.disconnect()
      setCardInView(key, false)
    }
  }, [key])
  return (
    <div className="reminder-due-body" data-schedule-id={scheduleId} data-done={done} ref={body}>
      <p className="reminder-prompt" dir="auto" id={promptId}>
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
      {snoozedTo !== null && (
        <p className="small" role="status" tabIndex={-1} ref={status}>
          Snoozed: {snoozedTo}.
        </p>
      )}
      {state.kind === 'snooze-deleted' && (
        <p className="small muted" role="status" tabIndex={-1} ref={status}>
          Snooze deleted.
        </p>
      )}
      {state.kind === 'done' && (
        <p className="small muted" role="status" tabIndex={-1} ref={status}>
          Done.
        </p>
      )}
      {state.kind === 'due' && (
        <div className="actions">
          <button
            type="button"
            className="button button-small"
            data-testid="reminder-snooze"
            aria-describedby={promptId}
            disabled={snooze.isPending || context.offline}
            onClick={() => {
              actedHere.current = true
              snooze.mutate(
                { sessionId: context.sessionId, scheduleId, occurrenceAt: reminder.occurrenceAt },
                {
                  onSuccess: (view) => markSnoozed(key, view.scheduledAt),
                  onError: () => {
                    actedHere.current = false
                  },
                },
              )
            }}
          >
            {snooze.isPending ? 'Snoozing…' : 'Snooze 10 min'}
          </button>
          <button
            type="button"
            className="button button-small"
            data-testid="reminder-done"
            aria-describedby={promptId}
            onClick={() => {
              actedHere.current = true
              markDone(key)
            }}
          >
            Done
          </button>
        </div>
      )}
      {snooze.isError && snoozedTo === null && (
        <p className="notice notice-error" role="alert">
          {snoozeFailure(snooze.error)}
        </p>
      )}
    </div>
  )
}

/** A card for a Schedule follow-up: which reminder came due and when, in the reminder's zone and this browser's, with Snooze and Done. */
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

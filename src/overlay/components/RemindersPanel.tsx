import { Fragment, useEffect, useRef, useState, useSyncExternalStore } from 'react'
import { errorMessage } from '../data/http.ts'
import { useCreateSchedule, useDeleteSchedule, useSchedules } from '../data/queries.ts'
import { useNow } from '../hooks/use-now.ts'
import { msUntilCountdownChanges, zonePlace } from '../lib/display/index.ts'
import { askNotificationPermissionOnce, notificationsSupported } from '../lib/notifications.ts'
import { restoreFields } from '../lib/reminder-form.ts'
import { trustedNow } from '../lib/trusted-clock.ts'
import type { ScheduleView } from '../../protocol/index.ts'
import { reminderRow, reminderZone, type ReminderRow } from '../lib/reminder-row.ts'
import { ErrorNotice } from './ErrorNotice.tsx'
import { ReminderForm } from './ReminderForm.tsx'

/** A reminder's words in a button's name: whole up to 80 characters, else their start and an ellipsis. */
function nameOf(prompt: string): string {
  const chars = [...prompt]
  return chars.length <= 80 ? prompt : `${chars.slice(0, 79).join('').trimEnd()}…`
}

function Reminder({
  row,
  browserPlace,
  deleting,
  offline,
  onEdit,
  onDelete,
}: {
  row: ReminderRow
  browserPlace: string
  deleting: boolean
  offline: boolean
  onEdit: () => void
  onDelete: () => void
}) {
  const { own, browser } = row.times
  return (
    <li className={`reminder reminder-${row.state}`} data-testid="reminder" data-schedule-id={row.id} data-state={row.state} data-time-zone={row.zone ?? ''}>
      <p className="reminder-prompt" dir="auto">
        {row.prompt}
      </p>
      <p className="reminder-when">
        {own === null ? (
          <span className="muted">no zone to show the time in</span>
        ) : (
          <span data-testid="reminder-own-time" title={`${own.full} · ${own.detail}`}>
            {own.when} <span className="muted">· {own.place}</span>
          </span>
        )}
      </p>
      {browser !== null && (
        <p className="reminder-when small" data-testid="reminder-browser-time" title={`${browser.full} · ${browser.detail}`}>
          {browser.when} <span className="muted">· {browser.place}, this browser</span>
        </p>
      )}
      <p className="reminder-status small">
        <span className={`badge ${row.state === 'overdue' ? 'badge-warning' : 'badge-neutral'}`} data-testid="reminder-state">
          {row.state === 'overdue' ? 'overdue' : 'scheduled'}
        </span>{' '}
        <span className="countdown" data-testid="reminder-countdown">
          {row.countdown}
        </span>
      </p>
      <p className="muted small" data-testid="reminder-rule">
        {row.rule} <span className="reminder-id">· {row.id}</span>
      </p>
      {row.upcoming.length > 0 && (
        <details className="reminder-upcoming" data-testid="reminder-upcoming">
          <summary className="muted small">Next {row.upcoming.length} occurrences</summary>
          <ol className="upcoming-list">
            {row.upcoming.map((next) => (
              <li key={next.at} data-testid="reminder-occurrence" data-at={next.at}>
                <span>{next.own ?? next.at}</span>
                {next.browser !== null && <span className="muted"> ({next.browser} · {browserPlace})</span>}
                {next.moved !== null && (
                  <span className="muted" data-testid="reminder-occurrence-moved">
                    {' '}
                    · {next.moved}
                  </span>
                )}
              </li>
            ))}
          </ol>
        </details>
      )}
      <p className="muted small" data-testid="reminder-history">
        {row.history}
      </p>
      <div className="actions">
        <button type="button" className="button button-small" onClick={onEdit} disabled={offline} data-testid="reminder-edit" aria-label={`Edit reminder: ${nameOf(row.prompt)}`}>
          Edit
        </button>
        <button
          type="button"
          className="button button-small button-quiet"
          onClick={onDelete}
          disabled={deleting || offline}
          aria-label={`Delete reminder: ${nameOf(row.prompt)}`}
          data-testid="reminder-delete"
        >
          {deleting ? 'Deleting…' : 'Delete'}
        </button>
      </div>
    </li>
  )
}

function subscribePermission(onChange: () => void): () => void {
  const timer = setInterval(onChange, 2_000)
  return () => clearInterval(timer)
}

function NotificationOffer() {
  const permission = useSyncExternalStore(subscribePermission, () => (notificationsSupported() ? Notification.permission : 'denied'))
  if (permission !== 'default') return null
  return (
    <p className="small muted">
      <button type="button" className="button button-small" onClick={askNotificationPermissionOnce}>
        Notify me when reminders are due
      </button>
    </p>
  )
}

function tickMs(views: readonly ScheduleView[], now: number): number {
  let next = 60_000
  for (const view of views) {
    const target = Date.parse(view.scheduledAt)
    if (Number.isFinite(target)) next = Math.min(next, msUntilCountdownChanges(target, now))
  }
  return Math.max(250, next)
}

/** Active reminders, each in its own zone and (when different) this browser's, with a coarse countdown, Edit and Delete; and the New reminder form. */
export function RemindersPanel({
  sessionId,
  sessionZone,
  browserZone,
  locale,
  offline,
  snoozedFrom,
}: {
  sessionId: string
  sessionZone: string | null
  browserZone: string | null
  locale: string
  offline: boolean
  /** The occurrence each snooze the log shows snoozes (ISO), by the snooze's id. */
  snoozedFrom: ReadonlyMap<string, string>
}) {
  const schedules = useSchedules(sessionId)
  const remove = useDeleteSchedule(sessionId)
  const [form, setForm] = useState<{ editing: ScheduleView | null } | null>(null)
  const listRef = useRef<HTMLUListElement>(null)
  const newRef = useRef<HTMLButtonElement>(null)
  const views: ScheduleView[] = schedules.data ?? []
  const hasAny = views.length > 0
  const coarseNow = useNow(60_000)
  const now = useNow(tickMs(views, coarseNow), hasAny)

  // the reminder deleted last and where it stood in the list, offered back (Undo) in its place until another is deleted or it is made again
  const [deleted, setDeleted] = useState<{ view: ScheduleView; index: number } | null>(null)
  const panelRef = useRef<HTMLElement>(null)
  /** Where focus goes once the element it names is rendered (after a delete or an Undo, whose answers render later). */
  const pendingFocus = useRef<string | null>(null)
  useEffect(() => {
    const selector = pendingFocus.current
    if (selector === null) return
    const target = panelRef.current?.querySelector<HTMLElement>(selector)
    if (target === null || target === undefined) return
    pendingFocus.current = null
    target.focus()
  })
  const restore = useCreateSchedule(sessionId)
  const restoring = deleted === null ? null : restoreFields(deleted.view, trustedNow())
  const onUndo = () => {
    if (deleted === null || restoring === null) return
    // one key per deleted reminder: Undo clicked twice, or sent again after a lost answer, makes it once
    restore.mutate(
      { fields: restoring, key: `undo:${deleted.view.id}` },
      {
        onSuccess: ({ schedule }) => {
          setDeleted(null)
          // focus stays with the reminder made again, not on <body> as its notice goes away
          pendingFocus.current = `[data-schedule-id="${CSS.escape(schedule.id)}"] [data-testid="reminder-edit"]`
        },
      },
    )
  }

  const onDelete = (scheduleId: string) => {
    const index = views.findIndex((v) => v.id === scheduleId)
    const view = views[index]
    remove.mutate(scheduleId, {
      onSuccess: () => {
        // its edit form goes with it
        setForm((open) => (open?.editing?.id === scheduleId ? null : open))
        setDeleted(view === undefined ? null : { view, index })
        restore.reset()
        // focus stays in place (SPEC 9): on Undo, in the deleted reminder's row, never on the next reminder's Delete,
        // where a second Enter would delete another; without Undo, on the notice's Dismiss
        pendingFocus.current = '[data-testid="reminder-deleted"] [data-testid="reminder-undo"]:not(:disabled), [data-testid="reminder-deleted"] [data-testid="reminder-dismiss"]'
      },
    })
  }

  const closeForm = (scheduleId: string | null) => {
    setForm(null)
    requestAnimationFrame(() => {
      const target = scheduleId === null ? null : listRef.current?.querySelector<HTMLElement>(`[data-schedule-id="${CSS.escape(scheduleId)}"] [data-testid="reminder-edit"]`)
      ;(target ?? newRef.current)?.focus()
    })
  }

  // where the notice stands: the deleted reminder's place in the list as it is now
  const deletedAt = deleted === null ? -1 : Math.min(deleted.index, views.length)
  const deletedNotice = deleted !== null && (
    <div className="notice notice-quiet" role="status" data-testid="reminder-deleted">
      <span>
        Deleted “<span dir="auto">{deleted.view.prompt}</span>”.
      </span>
      {restoring !== null && (
        <button type="button" className="button button-small" data-testid="reminder-undo" onClick={onUndo} disabled={restore.isPending || offline}>
          {restore.isPending ? 'Restoring…' : 'Undo'}
        </button>
      )}
      <button
        type="button"
        className="button button-small button-quiet"
        data-testid="reminder-dismiss"
        onClick={() => {
          // focus keeps the person's place: the Edit of the reminder now where the deleted one stood (or the one before it)
          const near = views[Math.min(deletedAt, views.length - 1)]
          setDeleted(null)
          const target = near === undefined ? null : listRef.current?.querySelector<HTMLElement>(`[data-schedule-id="${CSS.escape(near.id)}"] [data-testid="reminder-edit"]`)
          ;(target ?? newRef.current)?.focus()
        }}
      >
        Dismiss
      </button>
    </div>
  )

  return (
    <section className="panel reminders" aria-labelledby="reminders-title" ref={panelRef}>
      <div className="panel-head">
        <h2 id="reminders-title" className="panel-title">
          Reminders {hasAny && <span className="count">{views.length}</span>}
        </h2>
        <button
          ref={newRef}
          type="button"
          className="button button-small"
          data-testid="reminder-new"
          onClick={() => setForm({ editing: null })}
          disabled={form !== null && form.editing === null}
        >
          New reminder
        </button>
      </div>
      {form !== null && (
        <ReminderForm
          key={form.editing?.id ?? 'new'}
          sessionId={sessionId}
          sessionZone={sessionZone}
          browserZone={browserZone}
          editing={form.editing === null ? null : { view: form.editing, zone: reminderZone(form.editing, sessionZone) }}
          gone={form.editing !== null && schedules.isSuccess && !views.some((view) => view.id === form.editing?.id)}
          offline={offline}
          onDone={closeForm}
        />
      )}
      {schedules.isPending && <p className="muted">Loading reminders…</p>}
      {schedules.isError && <ErrorNotice title="Could not load reminders." error={schedules.error} onRetry={() => void schedules.refetch()} />}
      {schedules.isSuccess && !hasAny && form === null && <p className="muted">No active reminders. Ask the assistant, or make one here.</p>}
      {remove.isError && (
        <p className="notice notice-error" role="alert">
          Could not delete the reminder: {errorMessage(remove.error)}
        </p>
      )}
      {deleted !== null && !hasAny && deletedNotice}
      {restore.isError && (
        <p className="notice notice-error" role="alert">
          Not restored: {errorMessage(restore.error)}
        </p>
      )}
      {hasAny && <NotificationOffer />}
      {hasAny && (
        <ul className="reminder-list" ref={listRef}>
          {views.map((view, index) => (
            <Fragment key={view.id}>
              {deleted !== null && index === deletedAt && <li className="reminder-deleted-row">{deletedNotice}</li>}
              <Reminder
                row={reminderRow(view, sessionZone, browserZone, locale, now, snoozedFrom.get(view.id) ?? null)}
                browserPlace={browserZone === null ? '' : zonePlace(browserZone)}
                deleting={remove.isPending && remove.variables === view.id}
                offline={offline}
                onEdit={() => setForm({ editing: view })}
                onDelete={() => onDelete(view.id)}
              />
            </Fragment>
          ))}
          {deleted !== null && deletedAt === views.length && <li className="reminder-deleted-row">{deletedNotice}</li>}
        </ul>
      )}
    </section>
  )
}

import { errorMessage } from '../data/http.ts'
import { useDeleteSchedule, useSchedules } from '../data/queries.ts'
import { useNow } from '../hooks/use-now.ts'
import { reminderRow, type ReminderRow } from '../lib/reminder-row.ts'
import { sameTimeZone, zonePlace } from '../../protocol/index.ts'
import { ErrorNotice } from './ErrorNotice.tsx'

function DueLine({ label, zone, text }: { label: string; zone: string | null; text: string | null }) {
  return (
    <div className="due-line">
      <dt>
        {label} <span className="muted">({zone ?? 'unavailable'})</span>
      </dt>
      <dd>{text ?? '—'}</dd>
    </div>
  )
}

function Reminder({
  row,
  sessionZone,
  browserZone,
  deleting,
  onDelete,
}: {
  row: ReminderRow
  sessionZone: string | null
  browserZone: string | null
  deleting: boolean
  onDelete: () => void
}) {
  return (
    <li className={`reminder reminder-${row.state}`} data-testid="reminder" data-schedule-id={row.id} data-state={row.state}>
      <div className="reminder-top">
        <p className="reminder-prompt">{row.prompt}</p>
        <button
          type="button"
          className="button button-small button-quiet"
          onClick={onDelete}
          disabled={deleting}
          aria-label={`Delete reminder ${row.id}: ${row.prompt}`}
          data-testid="reminder-delete"
        >
          {deleting ? 'Deleting…' : 'Delete'}
        </button>
      </div>
      <div className="reminder-status">
        <span className={`badge ${row.state === 'overdue' ? 'badge-warning' : 'badge-neutral'}`} data-testid="reminder-state">
          {row.state}
        </span>
        <span className="countdown" data-testid="reminder-countdown">
          {row.countdown}
        </span>
      </div>
      <dl className="due">
        <DueLine
          label={row.zone !== null && (sessionZone === null || !sameTimeZone(row.zone, sessionZone)) ? 'Reminder zone' : 'Session zone'}
          zone={row.zone ?? sessionZone}
          text={row.due.session === null ? null : row.due.session.text}
        />
        <DueLine label="This browser" zone={browserZone} text={row.due.browser === null ? null : row.due.browser.text} />
      </dl>
      <p className="muted small" data-testid="reminder-rule">
        {row.rule} · {row.id}
      </p>
      {row.upcoming.length > 0 && (
        <div className="reminder-upcoming" data-testid="reminder-upcoming">
          <p className="muted small">Next occurrences</p>
          <ol className="upcoming-list">
            {row.upcoming.map((next) => (
              <li key={next.at} data-testid="reminder-occurrence" data-at={next.at}>
                <span>{next.own ?? next.at}</span>
                {next.browser !== null && browserZone !== null && (
                  <span className="muted">
                    {' '}
                    · {next.browser} ({zonePlace(browserZone)})
                  </span>
                )}
              </li>
            ))}
          </ol>
        </div>
      )}
      <p className="muted small" data-testid="reminder-history">
        {row.history}
      </p>
    </li>
  )
}

/** Active reminders with due times in both zones, live state and countdown, and a delete button each. */
export function RemindersPanel({ sessionId, sessionZone, browserZone }: { sessionId: string; sessionZone: string | null; browserZone: string | null }) {
  const schedules = useSchedules(sessionId)
  const remove = useDeleteSchedule(sessionId)
  const hasAny = schedules.isSuccess && schedules.data.length > 0
  const now = useNow(1000, hasAny)
  return (
    <section className="panel reminders" aria-labelledby="reminders-title">
      <h2 id="reminders-title" className="panel-title">
        Reminders {hasAny && <span className="count">{schedules.data.length}</span>}
      </h2>
      {schedules.isPending && <p className="muted">Loading reminders…</p>}
      {schedules.isError && <ErrorNotice title="Could not load reminders." error={schedules.error} onRetry={() => void schedules.refetch()} />}
      {schedules.isSuccess && schedules.data.length === 0 && (
        <p className="muted">No active reminders. Ask the assistant to remind you of something.</p>
      )}
      {remove.isError && (
        <p className="notice notice-error" role="alert">
          Could not delete the reminder: {errorMessage(remove.error)}
        </p>
      )}
      {hasAny && (
        <ul className="reminder-list">
          {schedules.data.map((view) => (
            <Reminder
              key={view.id}
              row={reminderRow(view, sessionZone, browserZone, now)}
              sessionZone={sessionZone}
              browserZone={browserZone}
              deleting={remove.isPending && remove.variables === view.id}
              onDelete={() => remove.mutate(view.id)}
            />
          ))}
        </ul>
      )}
    </section>
  )
}

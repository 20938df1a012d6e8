import { useId, useMemo, useRef, useState, type FormEvent } from 'react'
import { answerLost, ApiError, errorMessage, newIdempotencyKey } from '../data/http.ts'
import { useCreateSchedule, useUpdateSchedule } from '../data/queries.ts'
import { askNotificationPermissionOnce } from '../lib/notifications.ts'
import { trustedNow } from '../lib/trusted-clock.ts'
import { draftProblem, draftOf, editFields, keptInstant, newDraft, newReminderFields, ruleNote, saveFailure, spanNote, whenNote, whenProblem, type FormKind, type ReminderDraft, type SpanUnit } from '../lib/reminder-form.ts'
import { useLocale } from '../hooks/use-locale.ts'
import { DAY_NAMES, describeRrule, WEEKDAYS, type ScheduleView, type Weekday } from '../../protocol/index.ts'
import { ruleForms } from '../lib/display/index.ts'
import { ZonePicker } from './ZonePicker.tsx'

const KINDS: Array<[FormKind, string]> = [
  ['at', 'At a date and time'],
  ['after', 'After a while'],
  ['every', 'Repeat every'],
  ['daily', 'Every day at'],
  ['weekly', 'Every week on'],
]

/**
 * The "New reminder" form, or "Edit" of one reminder: the person picks the zone on screen (SPEC 7.9). A reminder that
 * stops being active while it is edited (deleted elsewhere, or come due) is said to be gone, and what was typed can
 * be made a new reminder.
 */
export function ReminderForm({
  sessionId,
  sessionZone,
  browserZone,
  editing: edits,
  gone = false,
  offline,
  onDone,
}: {
  sessionId: string
  sessionZone: string | null
  browserZone: string | null
  editing: { view: ScheduleView; zone: string | null } | null
  /** The reminder edited is no longer among the active ones. */
  gone?: boolean
  offline: boolean
  /** Closes the form; focus goes back to the row of `scheduleId` (made, saved or left), else to New reminder. */
  onDone: (scheduleId: string | null) => void
}) {
  // a gone reminder's form makes a new one of the draft
  const editing = gone ? null : edits
  const defaultZone = edits?.zone ?? sessionZone ?? browserZone ?? 'UTC'
  const [draft, setDraft] = useState<ReminderDraft>(() => (edits === null ? newDraft(defaultZone, trustedNow()) : draftOf(edits.view, defaultZone)))
  const [shown, setShown] = useState(false)
  // the key of the request last sent: kept while the same request is sent again (its answer was lost), so it is done once
  const held = useRef<{ sent: string; key: string } | null>(null)
  const create = useCreateSchedule(sessionId)
  const update = useUpdateSchedule(sessionId)
  const pending = create.isPending || update.isPending
  const failure = create.error ?? update.error
  const locale = useLocale()
  // a one-off's time is checked in its zone as the person sends it (a passed time, or one a clock change skips)
  const problem = draftProblem(draft) ?? whenProblem(draft, locale, trustedNow())
  // a time the clocks repeat is not a problem, but which of the two it is is said beside it (an edit keeps the one it had);
  // of a daily or weekly time, the next days the clocks skip or repeat it
  // (a year of the zone's offsets: worked out when the kind, zone, time or days change, not on every key pressed in the prompt)
  const rule = useMemo(() => ruleNote(draft, locale, trustedNow()), [draft.kind, draft.zone, draft.time, draft.days, locale])
  const note = problem === null ? (whenNote(draft, locale, editing === null ? null : keptInstant(draft, editing.view)) ?? rule) : null
  // of an `after` reminder being edited: when it is due while its length stays, and that another counts from the save
  const lengthNote = problem === null ? spanNote(draft, editing?.view ?? null, defaultZone, locale, trustedNow()) : null
  const ids = { prompt: useId(), kind: useId(), date: useId(), time: useId(), amount: useId(), unit: useId(), problem: useId(), note: useId(), lengthNote: useId() }
  // a refusal is of the draft it was sent for: a change clears it
  const edited = () => {
    if (create.error !== null) create.reset()
    if (update.error !== null) update.reset()
  }
  const change = (patch: Partial<ReminderDraft>) => {
    edited()
    setDraft((old) => ({ ...old, ...patch }))
  }
  // a new reminder's date and time, until the person sets them, are an hour from now in the zone picked
  const timeSet = useRef(false)
  const changeWhen = (patch: Pick<Partial<ReminderDraft>, 'date' | 'time'>) => {
    timeSet.current = true
    change(patch)
  }
  const changeZone = (zone: string) => {
    if (edits !== null || timeSet.current) return change({ zone })
    const { date, time } = newDraft(zone, trustedNow())
    change({ zone, date, time })
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    setShown(true)
    if (problem !== null || pending || offline) return
    const fields = editing === null ? newReminderFields(draft) : editFields(draft, editing.view)
    const sent = JSON.stringify(fields)
    const key = held.current !== null && held.current.sent === sent ? held.current.key : newIdempotencyKey()
    held.current = { sent, key }
    if (editing === null) {
      askNotificationPermissionOnce()
      create.mutate({ fields, key }, { onSuccess: ({ schedule }) => onDone(schedule.id) })
    } else {
      update.mutate({ scheduleId: editing.view.id, fields, key }, { onSuccess: ({ schedule }) => onDone(schedule.id) })
    }
  }

  const local = draft.kind === 'at' || draft.kind === 'daily' || draft.kind === 'weekly' || draft.kind === 'rule'
  const timed = draft.kind === 'at' || draft.kind === 'daily' || draft.kind === 'weekly'
  // a calendar rule the form has no fields for stays selectable as it is
  const kinds: Array<[FormKind, string]> = draft.rule === null ? KINDS : [...KINDS, ['rule', `As set: ${describeRrule(draft.rule.rrule, draft.rule.starts, ruleForms(locale, draft.zone)) ?? draft.rule.rrule}`]]
  const toggleDay = (day: Weekday) => {
    edited()
    setDraft((old) => ({ ...old, days: old.days.includes(day) ? old.days.filter((d) => d !== day) : WEEKDAYS.filter((d) => d === day || old.days.includes(d)) }))
  }
  return (
    <form
      className="reminder-form"
      data-testid="reminder-form"
      onSubmit={onSubmit}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return
        event.preventDefault()
        onDone(edits?.view.id ?? null)
      }}
      aria-label={edits === null ? 'New reminder' : `Edit reminder ${edits.view.id}`}>
      {gone && edits !== null && (
        <p className="notice notice-warning" role="status" data-testid="reminder-gone">
          “<span dir="auto">{edits.view.prompt}</span>” is no longer active: it was deleted, or it came due. Nothing here was saved; you can create it
          again as a new reminder.
        </p>
      )}
      <div className="field">
        <label htmlFor={ids.prompt}>Remind me to</label>
        <input id={ids.prompt} data-testid="reminder-prompt" dir="auto" value={draft.prompt} onChange={(e) => change({ prompt: e.target.value })} autoFocus />
      </div>
      <div className="field">
        <label htmlFor={ids.kind}>When</label>
        <select id={ids.kind} data-testid="reminder-kind" value={draft.kind} onChange={(e) => change({ kind: e.target.value as FormKind })}>
          {kinds.map(([kind, text]) => (
            <option key={kind} value={kind}>
              {text}
            </option>
          ))}
        </select>
      </div>
      {draft.kind === 'weekly' && (
        <fieldset className="days" data-testid="reminder-days">
          <legend>On</legend>
          {WEEKDAYS.map((day) => (
            <label key={day} className="day" title={DAY_NAMES[day]}>
              <input type="checkbox" value={day} checked={draft.days.includes(day)} onChange={() => toggleDay(day)} aria-label={DAY_NAMES[day]} />
              <span aria-hidden="true">{DAY_NAMES[day].slice(0, 3)}</span>
            </label>
          ))}
        </fieldset>
      )}
      {draft.kind === 'rule' && (
        <p className="muted rule-kept" data-testid="reminder-rule-kept">
          Its rule stays as it is; ask the assistant to change it.
        </p>
      )}
      {timed && (
        <div className="field-row">
          {draft.kind === 'at' && (
            <div className="field">
              <label htmlFor={ids.date}>Date</label>
              <input id={ids.date} type="date" data-testid="reminder-date" value={draft.date} onChange={(e) => changeWhen({ date: e.target.value })} />
            </div>
          )}
          <div className="field">
            <label htmlFor={ids.time}>Time</label>
            <input
              id={ids.time}
              type="time"
              data-testid="reminder-time"
              value={draft.time}
              onChange={(e) => changeWhen({ time: e.target.value })}
              {...(note === null ? {} : { 'aria-describedby': ids.note })}
            />
          </div>
        </div>
      )}
      {timed && note !== null && (
        <p id={ids.note} className="muted when-note" data-testid="reminder-when-note">
          {note}
        </p>
      )}
      {local && <ZonePicker value={draft.zone} onChange={changeZone} sessionZone={sessionZone} browserZone={browserZone} />}
      {!local && (
        <div className="field-row">
          <div className="field">
            <label htmlFor={ids.amount}>{draft.kind === 'after' ? 'In' : 'Every'}</label>
            <input
              id={ids.amount}
              type="number"
              min={1}
              step={1}
              inputMode="numeric"
              data-testid="reminder-amount"
              value={draft.amount}
              onChange={(e) => change({ amount: e.target.value })}
              {...(lengthNote === null ? {} : { 'aria-describedby': ids.lengthNote })}
            />
          </div>
          <div className="field">
            <label htmlFor={ids.unit}>Unit</label>
            <select id={ids.unit} data-testid="reminder-unit" value={draft.unit} onChange={(e) => change({ unit: e.target.value as SpanUnit })}>
              <option value="min">minutes</option>
              <option value="h">hours</option>
              <option value="d">days</option>
            </select>
          </div>
        </div>
      )}
      {!local && lengthNote !== null && (
        <p id={ids.lengthNote} className="muted when-note" data-testid="reminder-length-note">
          {lengthNote}
        </p>
      )}
      {shown && problem !== null && (
        <p id={ids.problem} className="notice notice-error" role="alert">
          {problem}
        </p>
      )}
      {failure !== null && (
        <p className="notice notice-error" role="alert">
          {answerLost(failure)
            ? `Not confirmed: ${errorMessage(failure)} ${editing === null ? 'Create it again; it will not appear twice.' : 'Save it again; it will be changed once.'}`
            : `Not saved: ${failure instanceof ApiError ? saveFailure(failure.code, failure.message, draft, locale, trustedNow()) : errorMessage(failure)}`}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="button button-primary" data-testid="reminder-save" disabled={pending || offline}>
          {pending ? 'Saving…' : gone ? 'Create as new reminder' : editing === null ? 'Create reminder' : 'Save changes'}
        </button>
        <button type="button" className="button" onClick={() => onDone(edits?.view.id ?? null)}>
          Cancel
        </button>
      </div>
    </form>
  )
}

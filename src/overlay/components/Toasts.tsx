import { useCallback, useEffect, useId, useRef, useState, useSyncExternalStore } from 'react'
import { snoozeFailure } from '../data/http.ts'
import { dismissAllToasts, dismissToast, markSnoozed, useCardsInView, useDone, useSnoozed, useToasts, type DueNotice } from '../data/notices.ts'
import { useSession, useSessionLog, useSnooze } from '../data/queries.ts'
import { useMediaQuery } from '../hooks/use-media-query.ts'
import { useRootLength } from '../hooks/use-root-length.ts'
import { useNow } from '../hooks/use-now.ts'
import { useDueReminderZone } from '../hooks/use-reminder-zone.ts'
import type { LogSnooze } from '../lib/conversation.ts'
import { instantMs } from '../lib/countdown.ts'
import { dueState } from '../lib/due-state.ts'
import { sessionName } from '../lib/session-name.ts'
import { COMPOSER_ID, focusComposer, focusNextComposer } from '../lib/focus.ts'
import { snoozedAgain, zonedTimes } from '../lib/zoned-time.ts'

const NO_SNOOZES: readonly LogSnooze[] = []

function Toast({
  notice,
  activeId,
  browserZone,
  locale,
  offline,
  onOpen,
  closing,
  onSnoozed,
}: {
  notice: DueNotice
  activeId: string | null
  browserZone: string | null
  locale: string
  offline: boolean
  onOpen: (id: string) => void
  /** Wraps what a button of this toast does to close it, so focus is handed on as it goes. */
  closing: (close: () => void) => () => void
  /** What a Snooze made of it, in words, once it is done. */
  onSnoozed: (words: string) => void
}) {
  const session = useSession(notice.sessionId)
  const snooze = useSnooze()
  const now = useNow(60_000)
  // the Session's log when this browser holds it (never fetched for a toast): kept up to date while held
  const log = useSessionLog(notice.sessionId, false).data
  // in the reminder's own zone, as its row in the panel (SPEC 9); the log's records when this browser holds it
  const zone = useDueReminderZone(notice.sessionId, notice.scheduleId, log?.fold.zones, session.data?.timeZone ?? null)
  // what the toast says and offers, as the due card of the same occurrence does
  const done = useDone()
  const snoozed = useSnoozed()
  const state = dueState(notice, { done, snoozed }, log?.fold.snoozes ?? NO_SNOOZES)
  const at = instantMs(notice.occurrenceAt)
  const times = at === null ? null : zonedTimes(at, zone, browserZone, locale, now)
  const name = session.data === undefined ? 'a session' : sessionName(session.data, locale, browserZone, now)
  // the toast is named by its reminder, and its buttons say which reminder they act on
  const promptId = useId()
  return (
    <li className="toast" data-testid="toast" data-session-id={notice.sessionId} data-schedule-id={notice.scheduleId} aria-labelledby={promptId}>
      <p className="toast-kicker">
        Reminder due · <span dir="auto">{name}</span>
      </p>
      <p className="toast-prompt" dir="auto" id={promptId}>
        {notice.prompt}
      </p>
      {times?.own != null && (
        <p className="small muted toast-when">
          {times.own.when} · {times.own.place}
          {times.browser !== null && ` (${times.browser.when} · ${times.browser.place})`}
        </p>
      )}
      {state.kind === 'snooze-deleted' && <p className="small muted">Snooze deleted.</p>}
      {snooze.isError && (
        <p className="notice notice-error" role="alert">
          {snoozeFailure(snooze.error)}
        </p>
      )}
      <div className="actions">
        {notice.sessionId !== activeId && (
          <button
            type="button"
            className="button button-small button-primary"
            data-testid="toast-open"
            aria-describedby={promptId}
            onClick={() => {
              dismissToast(notice.key)
              onOpen(notice.sessionId)
              // the toast goes as the Session opens: focus waits for its message box, not on <body>
              focusNextComposer()
            }}
          >
            Open
          </button>
        )}
        {state.kind === 'due' && (
          <button
            type="button"
            className="button button-small"
            data-testid="reminder-snooze"
            aria-describedby={promptId}
            disabled={snooze.isPending || offline}
            onClick={() =>
              snooze.mutate(
                { sessionId: notice.sessionId, scheduleId: notice.scheduleId, occurrenceAt: notice.occurrenceAt },
                {
                  onSuccess: (view) =>
                    closing(() => {
                      onSnoozed(`Snoozed “${notice.prompt}”: ${snoozedAgain(instantMs(view.scheduledAt), zone, browserZone, locale, Date.now())}.`)
                      markSnoozed(notice.key, view.scheduledAt)
                    })(),
                },
              )
            }
          >
            {snooze.isPending ? 'Snoozing…' : 'Snooze 10 min'}
          </button>
        )}
        <button type="button" className="button button-small button-quiet" data-testid="toast-dismiss" aria-describedby={promptId} onClick={closing(() => dismissToast(notice.key))}>
          Dismiss
        </button>
      </div>
    </li>
  )
}

/** Toasts shown at once: the newest, above the composer; on a phone one, under the Session's zones, so the conversation keeps room. */
const SHOWN_WIDE = 3
const SHOWN_PHONE = 1
/** The phone layout's breakpoint (styles.css: `@media (max-width: 800px)`). */
const PHONE = '(max-width: 800px)'
/** The CSS property holding where the toasts shown end: on a phone, the reminders drawer stays below them (styles.css). */
const TOASTS_BOTTOM = '--toasts-bottom'
const bottomOf = (box: DOMRect) => box.bottom

/** How long a phone holds back the toast of the Session open, for its due card to come into view first (the notice comes a moment before the card). */
const PHONE_HOLD_MS = 2_000

function subscribeVisibility(onChange: () => void): () => void {
  document.addEventListener('visibilitychange', onChange)
  return () => document.removeEventListener('visibilitychange', onChange)
}

/**
 * Due reminders of any Session, as toasts with Open, Snooze 10 min and Dismiss: the newest few, and above them a line
 * that counts the others (each next one shows as one is closed) with Dismiss all.
 */
export function Toasts(props: { activeId: string | null; browserZone: string | null; locale: string; offline: boolean; onOpen: (id: string) => void }) {
  const all = useToasts()
  const phone = useMediaQuery(PHONE)
  const inView = useCardsInView()
  const visible = useSyncExternalStore(subscribeVisibility, () => document.visibilityState === 'visible')
  // a toast is for a reminder that reaches the person while they look elsewhere: on a phone, where a toast stands over
  // the conversation, one whose due card is in view would say it twice, so the card alone says it and the toast closes;
  // the toast of the Session open waits a moment for its card, and shows when that card is not in view by then
  const [, setWoken] = useState(0)
  const now = Date.now()
  const held = (notice: DueNotice) => phone && visible && notice.sessionId === props.activeId && now - notice.arrivedAt < PHONE_HOLD_MS
  useEffect(() => {
    if (!phone || !visible) return
    for (const notice of all) if (inView.has(notice.key)) dismissToast(notice.key)
  }, [phone, visible, inView, all])
  const wake = all.filter(held).reduce((soonest, notice) => Math.min(soonest, notice.arrivedAt + PHONE_HOLD_MS), Infinity)
  useEffect(() => {
    if (wake === Infinity) return
    const timer = setTimeout(() => setWoken((n) => n + 1), Math.max(0, wake - Date.now()) + 20)
    return () => clearTimeout(timer)
  }, [wake])
  const toasts = all.filter((notice) => !held(notice) && !(phone && visible && inView.has(notice.key)))
  const shown = toasts.slice(-(phone ? SHOWN_PHONE : SHOWN_WIDE))
  const more = toasts.length - shown.length
  // a toast closed from its own buttons hands focus on (to the newest toast left, else the message box or the page),
  // not to <body> as it goes; what a Snooze made is read out, since the toast that did it is gone
  const list = useRef<HTMLUListElement>(null)
  const measure = useRootLength<HTMLUListElement>(TOASTS_BOTTOM, bottomOf)
  const listRef = useCallback(
    (element: HTMLUListElement | null) => {
      list.current = element
      const stop = measure(element)
      return () => {
        list.current = null
        stop?.()
      }
    },
    [measure],
  )
  const handOn = useRef(false)
  // each saying is a new node in the live region, so the same words said again are read out again
  const [said, setSaid] = useState({ text: '', n: 0 })
  const say = useCallback((text: string) => setSaid((old) => ({ text, n: old.n + 1 })), [])
  const closing = (close: () => void) => () => {
    handOn.current = true
    close()
  }
  useEffect(() => {
    if (!handOn.current) return
    handOn.current = false
    const active = document.activeElement
    if (active !== null && active !== document.body && !list.current?.contains(active)) return
    const newest = list.current?.querySelector<HTMLElement>('.toast:last-child button:not(:disabled)') ?? null
    if (newest !== null) newest.focus()
    else if (document.getElementById(COMPOSER_ID) !== null) focusComposer()
    else document.getElementById('main')?.focus()
  }, [all])
  return (
    <section className="toasts" aria-label="Notifications" aria-live="polite">
      <p key={said.n} className="visually-hidden" data-testid="toast-said">
        {said.text}
      </p>
      {toasts.length > 0 && (
        <ul className="toast-list" ref={listRef}>
          {more > 0 && (
            <li className="toast-more" data-testid="toast-more">
              <span>{more === 1 ? '1 more reminder due' : `${more} more reminders due`}</span>
              <button type="button" className="button button-small button-quiet" data-testid="toast-dismiss-all" onClick={closing(dismissAllToasts)}>
                Dismiss all
              </button>
            </li>
          )}
          {shown.map((notice) => (
            <Toast key={notice.key} notice={notice} {...props} closing={closing} onSnoozed={say} />
          ))}
        </ul>
      )}
    </section>
  )
}

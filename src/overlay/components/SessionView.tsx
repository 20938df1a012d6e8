import { useEffect, useMemo, useRef, useState } from 'react'
import type { SessionHeader, SessionSummary } from '../../protocol/index.ts'
import { ApiError } from '../data/http.ts'
import { useDone, useSnoozed } from '../data/notices.ts'
import { useCancelTurn, useSchedules, useSendMessage, useSession, useSessionLog } from '../data/queries.ts'
import { useSessionStream } from '../data/stream.ts'
import { useStreamingText } from '../data/streaming-text.ts'
import { useMediaQuery } from '../hooks/use-media-query.ts'
import { useNow } from '../hooks/use-now.ts'
import { useRootLength } from '../hooks/use-root-length.ts'
import { sessionName } from '../lib/session-name.ts'
import { Composer } from './Composer.tsx'
import { Conversation } from './Conversation.tsx'
import { ErrorNotice } from './ErrorNotice.tsx'
import { RemindersPanel } from './RemindersPanel.tsx'
import { SessionTitle } from './SessionTitle.tsx'
import { ZoneBar, ZoneDisagreement } from './ZoneBar.tsx'

/** The CSS property holding where the Session's top (title, zones, disagreement banner) ends: toasts and the drawer stay below it. */
const SESSION_TOP_BOTTOM = '--session-top-bottom'
const bottomOf = (box: DOMRect) => box.bottom
/** The drawer layout's breakpoint (styles.css: `@media (max-width: 1000px)`). */
const DRAWER = '(max-width: 1000px)'

/** The summary of a Session whose log page arrived before its summary: zone and creation from the header, no title, idle. */
function provisionalSummary(header: SessionHeader | null, eventCount: number): SessionSummary | null {
  if (header === null) return null
  return { id: header.id, createdAt: header.createdAt, timeZone: header.timeZone ?? null, status: 'idle', eventCount }
}

/** One open Session: zones (sticky on phones), conversation, reminders (a drawer on phones) and composer, kept live over SSE. */
export function SessionView({
  sessionId,
  browserZone,
  locale,
  offline,
  onLeave,
}: {
  sessionId: string
  browserZone: string | null
  locale: string
  offline: boolean
  onLeave: () => void
}) {
  const session = useSession(sessionId)
  const log = useSessionLog(sessionId, !session.isError)
  const stream = useSessionStream(sessionId, log.isSuccess)
  const streaming = useStreamingText(sessionId)
  const done = useDone()
  const snoozed = useSnoozed()
  // which reminders are snoozes, and of which occurrence, so the panel says so
  const logSnoozes = log.data?.fold.snoozes
  const snoozedFrom = useMemo(() => new Map((logSnoozes ?? []).filter((s) => !s.deleted).map((s) => [s.snoozeId, s.occurrenceAt])), [logSnoozes])
  const now = useNow(60_000)
  const cancel = useCancelTurn(sessionId)
  const retry = useSendMessage(sessionId)
  // a Session that could not be loaded has no reminders to ask for
  const reminders = useSchedules(sessionId, !session.isError).data?.length ?? 0
  const [drawer, setDrawer] = useState(false)
  const running = session.data?.status === 'running'
  const top = useRootLength<HTMLDivElement>(SESSION_TOP_BOTTOM, bottomOf, '.main')
  const drawerLayout = useMediaQuery(DRAWER)
  const modal = drawer && drawerLayout
  const toggleRef = useRef<HTMLButtonElement>(null)
  const closeRef = useRef<HTMLButtonElement>(null)
  const wasOpen = useRef(false)
  // the drawer takes focus as it opens, and gives it back to its toggle as it closes (from within it, or when it was lost)
  useEffect(() => {
    if (modal) closeRef.current?.focus()
    else if (wasOpen.current) {
      const active = document.activeElement
      if (active === null || active === document.body || document.getElementById('reminders-drawer')?.contains(active) === true) toggleRef.current?.focus()
    }
    wasOpen.current = modal
  }, [modal])

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return
      if (drawer) {
        setDrawer(false)
        return
      }
      if (running && !offline && !cancel.isPending) {
        event.preventDefault()
        cancel.mutate()
      }
    }
    document.addEventListener('keydown', onKeyDown)
    return () => document.removeEventListener('keydown', onKeyDown)
  }, [drawer, running, offline, cancel])

  const provisional = session.data ?? provisionalSummary(log.data?.header ?? null, log.data?.eventCount ?? 0)
  if (session.isPending && provisional === null) {
    return (
      <div className="session">
        <ZoneBar browserZone={browserZone} />
        <p className="muted pad">Loading session…</p>
      </div>
    )
  }
  if (session.isError) {
    const missing = session.error instanceof ApiError && session.error.status === 404
    return (
      <div className="session">
        <h1 className="visually-hidden">{missing ? 'Session not found' : 'Session not loaded'}</h1>
        <ZoneBar browserZone={browserZone} />
        {missing ? (
          <div className="notice notice-error" role="alert">
            <strong>Session not found.</strong>
            <span>No session has the id “{sessionId}”.</span>
            <button type="button" className="button button-small" onClick={onLeave}>
              Back to sessions
            </button>
          </div>
        ) : (
          <ErrorNotice title="Could not load this session." error={session.error} onRetry={() => void session.refetch()} />
        )}
      </div>
    )
  }

  const summary = session.data ?? (provisional as SessionSummary)
  const sessionZone = summary.timeZone
  const name = sessionName(summary, locale, browserZone, now)
  const statusText = offline ? 'Status unknown' : session.data === undefined ? 'Loading…' : running ? 'Running' : 'Idle'
  return (
    <div className="session">
      <div className="session-top" ref={top}>
        <header className="session-head">
          <div className="session-title">
            <SessionTitle sessionId={sessionId} name={name} title={summary.title} offline={offline} />
            <span
              className={`status status-${offline ? 'unknown' : running ? 'running' : 'idle'}`}
              data-testid="session-status"
              data-status={session.data?.status ?? 'loading'}
              title={offline ? 'The server cannot be reached' : undefined}
            >
              {statusText}
            </span>
            {!offline && stream === 'reconnecting' && (
              <span className="stream stream-reconnecting" role="status">
                Reconnecting…
              </span>
            )}
          </div>
          <button
            ref={toggleRef}
            type="button"
            className="button button-small drawer-toggle"
            aria-expanded={drawer}
            aria-controls="reminders-drawer"
            onClick={() => setDrawer((open) => !open)}
            data-testid="reminders-toggle"
          >
            Reminders {reminders > 0 && <span className="count">{reminders}</span>}
          </button>
          <ZoneBar sessionZone={sessionZone} browserZone={browserZone} />
        </header>
        <ZoneDisagreement sessionZone={sessionZone} browserZone={browserZone} />
      </div>
      <div className="session-body">
        <div className="chat" inert={modal}>
          {log.isPending && <p className="muted pad">Loading conversation…</p>}
          {log.isError && <ErrorNotice title="Could not load the conversation." error={log.error} onRetry={() => void log.refetch()} />}
          {log.isSuccess && (
            <Conversation
              log={log.data}
              streaming={streaming}
              context={{
                sessionId,
                sessionZone,
                browserZone,
                locale,
                now,
                offline,
                done,
                snoozed,
                running,
                retrying: retry.isPending,
                // one retry per failed turn: a second click, or a click again after a lost answer, enters it once
                onRetry: (prompt, turn) => retry.mutate({ text: prompt, mode: 'queue', key: `retry-turn-${turn}` }),
              }}
            />
          )}
          <Composer sessionId={sessionId} running={running} offline={offline} />
        </div>
        <aside id="reminders-drawer" className={`side${drawer ? ' side-open' : ''}`} data-testid="reminders-drawer" aria-label="Reminders">
          <button ref={closeRef} type="button" className="button button-small drawer-close" onClick={() => setDrawer(false)}>
            Close
          </button>
          <RemindersPanel sessionId={sessionId} sessionZone={sessionZone} browserZone={browserZone} locale={locale} offline={offline} snoozedFrom={snoozedFrom} />
        </aside>
      </div>
    </div>
  )
}

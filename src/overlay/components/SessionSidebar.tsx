import { useState, type MouseEvent } from 'react'
import { errorMessage } from '../data/http.ts'
import { useCreateSession, useSessions } from '../data/queries.ts'
import { formatClockTime } from '../lib/due-time.ts'
import { sessionPath } from '../lib/route.ts'
import { sessionName } from '../lib/session-name.ts'
import { ErrorNotice } from './ErrorNotice.tsx'

function isPlainClick(event: MouseEvent): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey
}

/** The Session list (newest first) and the button that creates a Session in this browser's zone. */
export function SessionSidebar({
  activeId,
  browserZone,
  onOpen,
}: {
  activeId: string | null
  browserZone: string | null
  onOpen: (id: string) => void
}) {
  const sessions = useSessions()
  const create = useCreateSession()
  const [expanded, setExpanded] = useState(false)
  const now = Date.now()

  const createSession = () => {
    create.mutate(undefined, {
      onSuccess: ({ session }) => {
        setExpanded(false)
        onOpen(session.id)
      },
    })
  }

  return (
    <nav
      className={`sidebar${activeId === null ? ' sidebar-home' : expanded ? '' : ' sidebar-collapsed'}`}
      aria-label="Sessions"
    >
      <div className="sidebar-head">
        <span className="brand">Schedule Web</span>
        <button
          type="button"
          className="button button-primary"
          data-testid="new-session"
          onClick={createSession}
          disabled={create.isPending}
        >
          {create.isPending ? 'Creating…' : 'New session'}
        </button>
      </div>
      {create.isError && (
        <p className="notice notice-error" role="alert">
          Could not create a session: {errorMessage(create.error)}
        </p>
      )}
      <button
        type="button"
        className="sidebar-toggle"
        aria-expanded={expanded}
        onClick={() => setExpanded((v) => !v)}
      >
        {expanded ? 'Hide sessions' : 'All sessions'}
      </button>
      <div className="session-list-wrap">
        {sessions.isPending && <p className="muted pad">Loading sessions…</p>}
        {sessions.isError && <ErrorNotice title="Could not load sessions." error={sessions.error} onRetry={() => void sessions.refetch()} />}
        {sessions.isSuccess && sessions.data.length === 0 && (
          <p className="muted pad">No sessions yet. Create one to start.</p>
        )}
        {sessions.isSuccess && sessions.data.length > 0 && (
          <ul className="session-list">
            {sessions.data.map((session) => {
              const active = session.id === activeId
              return (
                <li key={session.id}>
                  <a
                    href={sessionPath(session.id)}
                    className={`session-item${active ? ' session-item-active' : ''}`}
                    data-testid="session-item"
                    data-session-id={session.id}
                    aria-current={active ? 'page' : undefined}
                    onClick={(event) => {
                      if (!isPlainClick(event)) return
                      event.preventDefault()
                      setExpanded(false)
                      onOpen(session.id)
                    }}
                  >
                    <span className="session-item-title">
                      {session.status === 'running' && <span className="dot dot-running" aria-label="running" />}
                      <span className="session-item-name">{sessionName(session)}</span>
                    </span>
                    <span className="session-item-meta">
                      <span>{session.timeZone ?? 'zone unavailable'}</span>
                      <span aria-hidden="true"> · </span>
                      <time dateTime={new Date(session.createdAt).toISOString()}>
                        {formatClockTime(session.createdAt, browserZone, now)}
                      </time>
                    </span>
                  </a>
                </li>
              )
            })}
          </ul>
        )}
      </div>
    </nav>
  )
}

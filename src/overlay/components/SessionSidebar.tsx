import { useState, type MouseEvent } from 'react'
import { errorMessage } from '../data/http.ts'
import { useUnread } from '../data/notices.ts'
import { newestFirst, useCreateSession, useSession, useSessions } from '../data/queries.ts'
import { useLocale } from '../hooks/use-locale.ts'
import { useNow } from '../hooks/use-now.ts'
import { formatFull, formatStamp, zonePlace } from '../lib/display/index.ts'
import { focusComposer } from '../lib/focus.ts'
import { sessionPath } from '../lib/route.ts'
import { isTitled, sessionName } from '../lib/session-name.ts'
import { ErrorNotice } from './ErrorNotice.tsx'

function isPlainClick(event: MouseEvent): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey
}

/** The Session list (newest first, paged), with unread marks for due reminders, and the button that creates a Session in this browser's zone. */
export function SessionSidebar({
  activeId,
  browserZone,
  live,
  onOpen,
}: {
  activeId: string | null
  browserZone: string | null
  live: boolean
  onOpen: (id: string) => void
}) {
  const sessions = useSessions(live)
  // the Session open here is in the list even when it is on a page not loaded yet (opened by its link): in its place
  // by the list's order, after the newer ones loaded
  const current = useSession(activeId ?? '', activeId !== null)
  const loaded = sessions.data ?? []
  const open = current.data
  const listed = open !== undefined && open.id === activeId && !loaded.some((s) => s.id === open.id) ? [...loaded, open].sort(newestFirst) : loaded
  const create = useCreateSession()
  const unread = useUnread()
  const locale = useLocale()
  const now = useNow(60_000)
  const [expanded, setExpanded] = useState(false)
  const zone = browserZone ?? 'UTC'
  const unreadTotal = Object.values(unread).reduce((sum, n) => sum + n, 0)

  const createSession = () => {
    create.mutate(undefined, {
      onSuccess: ({ session }) => {
        setExpanded(false)
        onOpen(session.id)
        focusComposer()
      },
    })
  }

  return (
    <nav className={`sidebar${activeId === null ? ' sidebar-home' : expanded ? '' : ' sidebar-collapsed'}`} aria-label="Sessions">
      <div className="sidebar-head">
        <span className="brand">Schedule Web</span>
        <button type="button" className="button button-primary" data-testid="new-session" onClick={createSession} disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'New session'}
        </button>
      </div>
      {create.isError && (
        <p className="notice notice-error" role="alert">
          Could not create a session: {errorMessage(create.error)}
        </p>
      )}
      <button type="button" className="sidebar-toggle" aria-expanded={expanded} onClick={() => setExpanded((v) => !v)}>
        {expanded ? 'Hide sessions' : 'All sessions'}
        {unreadTotal > 0 && <span className="unread-count">{` · ${unreadTotal} new`}</span>}
      </button>
      <div className="session-list-wrap">
        {sessions.isPending && <p className="muted pad">Loading sessions…</p>}
        {sessions.isError && <ErrorNotice title="Could not load sessions." error={sessions.error} onRetry={() => void sessions.refetch()} />}
        {sessions.isSuccess && listed.length === 0 && <p className="muted pad">No sessions yet. Create one to start.</p>}
        {sessions.isSuccess && listed.length > 0 && (
          <ul className="session-list">
            {listed.map((session) => {
              const active = session.id === activeId
              const count = unread[session.id] ?? 0
              const name = sessionName(session, locale, browserZone, now)
              return (
                <li key={session.id}>
                  <a
                    href={sessionPath(session.id)}
                    className={`session-item${active ? ' session-item-active' : ''}${count > 0 ? ' session-item-unread' : ''}`}
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
                      {session.status === 'running' && <span className="dot dot-running" role="img" aria-label="running" />}
                      <span className="session-item-name">{name}</span>
                      {count > 0 && (
                        <span className="unread-mark" data-testid="unread-mark" data-count={count}>
                          {count}
                          <span className="visually-hidden">{count === 1 ? ' reminder due' : ' reminders due'}</span>
                        </span>
                      )}
                    </span>
                    <span className="session-item-meta">
                      <span title={session.timeZone ?? undefined}>{session.timeZone === null ? 'no zone' : zonePlace(session.timeZone)}</span>
                      {/* beside the Session's place, when it started on that place's clock; an untitled name says it already */}
                      {isTitled(session) && (
                        <>
                          {' '}
                          <span aria-hidden="true">·</span> started{' '}
                          <time dateTime={new Date(session.createdAt).toISOString()} title={formatFull(session.createdAt, session.timeZone ?? zone, locale)}>
                            {formatStamp(session.createdAt, session.timeZone ?? zone, locale, now)}
                          </time>
                        </>
                      )}
                    </span>
                  </a>
                </li>
              )
            })}
          </ul>
        )}
        {sessions.hasNextPage && (
          <p className="pad">
            <button type="button" className="button button-small" onClick={() => void sessions.fetchNextPage()} disabled={sessions.isFetchingNextPage}>
              {sessions.isFetchingNextPage ? 'Loading…' : 'Older sessions'}
            </button>
          </p>
        )}
      </div>
    </nav>
  )
}

import { useEffect, useMemo } from 'react'
import { ApiError } from '../data/http.ts'
import { useEventLog, useSession } from '../data/queries.ts'
import { useSessionStream, type StreamState } from '../data/stream.ts'
import { useNow } from '../hooks/use-now.ts'
import { buildConversation } from '../lib/conversation.ts'
import { sessionName } from '../lib/session-name.ts'
import { Composer } from './Composer.tsx'
import { Conversation } from './Conversation.tsx'
import { ErrorNotice } from './ErrorNotice.tsx'
import { RemindersPanel } from './RemindersPanel.tsx'
import { ZoneBar, ZoneDisagreement } from './ZoneBar.tsx'

const STREAM_LABEL: Record<StreamState, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' }

/** One open Session: zones, conversation, reminders and composer, kept live over SSE. */
export function SessionView({ sessionId, browserZone, onLeave }: { sessionId: string; browserZone: string | null; onLeave: () => void }) {
  const session = useSession(sessionId)
  const exists = session.isSuccess
  const log = useEventLog(sessionId, exists)
  const stream = useSessionStream(sessionId, exists)
  const now = useNow(60_000)
  const conversation = useMemo(() => buildConversation(log.data?.events ?? []), [log.data])

  const title = session.isSuccess ? sessionName(session.data) : null
  useEffect(() => {
    document.title = title === null ? 'Schedule Web' : `${title} · Schedule Web`
  }, [title])

  if (session.isPending) {
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

  const sessionZone = session.data.timeZone
  const running = session.data.status === 'running'
  return (
    <div className="session">
      <header className="session-head">
        <div className="session-title">
          <h1>{title}</h1>
          <span className={`status status-${running ? 'running' : 'idle'}`} data-testid="session-status" data-status={session.data.status}>
            {running ? 'Running' : 'Idle'}
          </span>
          <span className={`stream stream-${stream}`} role="status">
            {STREAM_LABEL[stream]}
          </span>
        </div>
        <ZoneBar sessionZone={sessionZone} browserZone={browserZone} />
      </header>
      <ZoneDisagreement sessionZone={sessionZone} browserZone={browserZone} />
      <div className="session-body">
        <div className="chat">
          {log.isPending && <p className="muted pad">Loading conversation…</p>}
          {log.isError && <ErrorNotice title="Could not load the conversation." error={log.error} onRetry={() => void log.refetch()} />}
          {log.isSuccess && (
            <Conversation conversation={conversation} running={running} sessionZone={sessionZone} browserZone={browserZone} now={now} />
          )}
          <Composer sessionId={sessionId} running={running} />
        </div>
        <aside className="side">
          <RemindersPanel sessionId={sessionId} sessionZone={sessionZone} browserZone={browserZone} />
        </aside>
      </div>
    </div>
  )
}

import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import type { ReminderDueNotice, SessionSummary } from '../../protocol/index.ts'
import { parseJsonObject } from '../lib/json-object.ts'
import type { SseMessage } from '../lib/sse-parser.ts'
import { reportReachable } from './connectivity.ts'
import { noticeDue, type DueNotice } from './notices.ts'
import { putSession, settleDueSchedule } from './queries.ts'
import { openSse } from './sse-client.ts'

const CURSOR_KEY = 'schedule-web:stream-cursor'

function isSummary(value: unknown): value is SessionSummary {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return typeof v.id === 'string' && typeof v.createdAt === 'number' && (v.status === 'idle' || v.status === 'running')
}

function isReminderDue(value: Record<string, unknown>): value is Record<string, unknown> & ReminderDueNotice {
  return typeof value.sessionId === 'string' && typeof value.scheduleId === 'string' && typeof value.prompt === 'string' && typeof value.occurrenceAt === 'string'
}

function storedCursor(): string | null {
  try {
    return window.sessionStorage.getItem(CURSOR_KEY)
  } catch {
    return null
  }
}

function storeCursor(id: string): void {
  try {
    window.sessionStorage.setItem(CURSOR_KEY, id)
  } catch {
    // the cursor then lives only as long as this connection
  }
}

/**
 * Keeps `GET /api/stream` open for the whole page: Session summaries into the cache (so the list needs no polling) and
 * due reminders of every Session into toasts, unread marks and — when this page is not in front — a system notification.
 * Answers whether the stream is live.
 */
export function useAppStream(onNotice: (notice: DueNotice) => void): boolean {
  const client = useQueryClient()
  const [live, setLive] = useState(false)
  const noticeRef = useRef(onNotice)
  noticeRef.current = onNotice

  useEffect(() => {
    const onMessage = (message: SseMessage) => {
      if (message.id !== null) storeCursor(message.id)
      const data = parseJsonObject(message.data)
      if (data === null) return
      if (message.event === 'session' && isSummary(data.session)) {
        putSession(client, data.session)
      } else if (message.event === 'reminder-due' && isReminderDue(data)) {
        const { sessionId, scheduleId, prompt, occurrenceAt } = data
        settleDueSchedule(client, sessionId, scheduleId)
        noticeRef.current(noticeDue({ sessionId, scheduleId, prompt, occurrenceAt }))
      }
    }
    const close = openSse(
      { url: () => '/api/stream', resumeWithLastEventId: true, lastEventId: storedCursor() },
      {
        onOpen: () => setLive(true),
        onMessage,
        onReachable: (reachable) => {
          reportReachable(reachable)
          if (!reachable) setLive(false)
        },
        onHttpError: () => setLive(false),
      },
    )
    return () => {
      close()
    }
  }, [client])

  return live
}

import type { AssistantDelta, Host, SessionFeed } from '../host/index.ts'
import { summarize } from './summary.ts'
import { firstNoticeCursor, NOTICE_HISTORY, NoticeLog, remindersDue } from './notices.ts'
import { eventFrame, sseFrame, Wakeup, type SseSink } from './sse.ts'

/** Events read per page while a reader catches up from the log. */
const CATCH_UP_PAGE = 500

/** How long a session's changes are gathered into one `session` notice. */
const SESSION_NOTICE_MS = 250

const KEEP_ALIVE = ': keep-alive\n\n'

function deltaFrame(delta: AssistantDelta): string {
  return sseFrame({ event: 'assistant-delta', data: JSON.stringify(delta) })
}

function statusFrame(feed: SessionFeed): string {
  return sseFrame({ event: 'status', data: JSON.stringify({ status: feed.status }) })
}

/**
 * Streams one session to one reader (SPEC 8): its status, then every durable event after the
 * cursor, then live events as they become durable. Catching up waits for the reader; live events
 * do not, so a reader that stops reading is dropped by the sink.
 */
export async function pumpSession(sink: SseSink, feed: SessionFeed, cursor: number, heartbeatMs: number): Promise<void> {
  const wakeup = new Wakeup()
  let statusDirty = false
  const offEvents = feed.onEvents(() => wakeup.signal())
  const offStatus = feed.onStatus(() => {
    statusDirty = true
    wakeup.signal()
  })
  // deltas are never stored: a reader gets the text streamed so far of the answer being generated
  // (with the status, in the same tick as it subscribes), then each delta at once, ahead of any catching up
  const offDelta = feed.onDelta((delta) => {
    if (!sink.write(deltaFrame(delta))) wakeup.signal()
  })
  sink.onClose(() => wakeup.signal())
  try {
    if (!sink.write(statusFrame(feed))) return
    const streaming = feed.streaming
    if (streaming !== null && !sink.write(deltaFrame(streaming))) return
    while (!sink.closed) {
      while (cursor + 1 < feed.length && !sink.closed) {
        const behind = feed.length - 1 - cursor
        if (behind > CATCH_UP_PAGE) await sink.room()
        const { events } = await feed.page({ after: cursor, limit: CATCH_UP_PAGE })
        if (events.length === 0) break
        for (const event of events) {
          if (!sink.write(eventFrame(event))) return
          cursor = event.seq
        }
      }
      if (statusDirty) {
        statusDirty = false
        if (!sink.write(statusFrame(feed))) return
      }
      if (sink.closed) return
      if ((await wakeup.wait(heartbeatMs)) === 'timeout' && !sink.write(KEEP_ALIVE)) return
    }
  } finally {
    offEvents()
    offStatus()
    offDelta()
  }
}

/** Streams the all-sessions notices to one reader: what it missed after its cursor (kept history), then live ones. */
export async function pumpNotices(sink: SseSink, notices: NoticeLog, cursor: number, heartbeatMs: number): Promise<void> {
  const wakeup = new Wakeup()
  let sent = cursor
  const off = notices.subscribe((numbered) => {
    if (numbered.id <= sent) return
    sent = numbered.id
    if (!sink.write(numbered.frame)) wakeup.signal()
  })
  sink.onClose(() => wakeup.signal())
  try {
    for (const numbered of notices.since(cursor)) {
      if (numbered.id <= sent && numbered.id <= cursor) continue
      if (!sink.write(numbered.frame)) return
      sent = Math.max(sent, numbered.id)
    }
    while (!sink.closed) {
      if ((await wakeup.wait(heartbeatMs)) === 'timeout' && !sink.write(KEEP_ALIVE)) return
    }
  } finally {
    off()
  }
}

/**
 * The notices behind `GET /api/stream`, derived from the host: `reminder-due` for every Schedule
 * follow-up that becomes durable, `session` (gathered over 250 ms) when a session's description changes.
 */
export function watchNotices(host: Host): NoticeLog {
  const notices = new NoticeLog((id, notice) => sseFrame({ id: String(id), event: notice.event, data: JSON.stringify(notice.data) }), NOTICE_HISTORY, firstNoticeCursor(host.clock.now()))
  host.onEvents((sessionId, events) => {
    for (const event of events) for (const notice of remindersDue(sessionId, event)) notices.push(notice)
  })
  const pending = new Set<string>()
  const lastSent = new Map<string, string>()
  host.onSessionChanged((id) => {
    if (pending.has(id)) return
    pending.add(id)
    setTimeout(() => {
      pending.delete(id)
      host.describe(id).then(
        (description) => {
          const session = summarize(description)
          const text = JSON.stringify(session)
          if (lastSent.get(id) === text) return
          lastSent.set(id, text)
          notices.push({ event: 'session', data: { session } })
        },
        () => undefined,
      )
    }, SESSION_NOTICE_MS).unref()
  })
  return notices
}

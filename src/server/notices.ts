import type { ReminderDueNotice, SessionEvent, SessionSummary } from '../protocol/index.ts'
import { blocksText, parseFollowUp } from '../protocol/index.ts'

/** A notice of the all-sessions stream (SPEC 8 `GET /api/stream`). */
export type Notice =
  | { event: 'session'; data: { session: SessionSummary } }
  | { event: 'reminder-due'; data: ReminderDueNotice }

/** A notice with its server-wide cursor and its frame, serialised once. */
export type NumberedNotice = { id: number; notice: Notice; frame: string }

/** At least the last 1,000 notices are kept for readers that reconnect (SPEC 8). */
export const NOTICE_HISTORY = 2048

/** The reminders a durable event announces: a Schedule follow-up entering the inbox. */
export function remindersDue(sessionId: string, event: SessionEvent): Notice[] {
  if (event.type !== 'inbox/enqueued') return []
  const message = event.data.message
  if (message.source.kind !== 'plugin' || message.source.plugin !== 'schedule') return []
  const reminders = parseFollowUp(blocksText(message.content))
  return (reminders ?? []).map((reminder) => ({
    event: 'reminder-due',
    data: { sessionId, scheduleId: reminder.id, prompt: reminder.prompt, occurrenceAt: reminder.occurrenceAt },
  }))
}

/**
 * The first cursor of a server started at `nowMs`: its clock in microseconds, so the notices of a server started later
 * (after a restart) number above those of the one before, and a reader resuming with a cursor from before the restart
 * gets what the new server said before it reconnected (a reminder that came due as it started). Numbered from 1,
 * a restarted server's notices sat under the reader's old cursor and were skipped.
 */
export function firstNoticeCursor(nowMs: number): number {
  return Math.max(1, Math.floor(nowMs) * 1000)
}

/**
 * The server-wide log of notices behind `GET /api/stream`: numbered up from `first` (see `firstNoticeCursor`), the
 * latest `NOTICE_HISTORY` kept so a reader resuming with `Last-Event-ID` gets what it missed.
 */
export class NoticeLog {
  private readonly history: NumberedNotice[] = []
  private next: number
  private readonly listeners = new Set<(notice: NumberedNotice) => void>()

  constructor(
    private readonly frameOf: (id: number, notice: Notice) => string,
    private readonly capacity = NOTICE_HISTORY,
    first = 1,
  ) {
    this.next = first
  }

  /** The cursor of the latest notice (one under the first before there is one). */
  get last(): number {
    return this.next - 1
  }

  /** Appends a notice and hands it to every reader. */
  push(notice: Notice): void {
    const id = this.next++
    const numbered = { id, notice, frame: this.frameOf(id, notice) }
    this.history.push(numbered)
    if (this.history.length > this.capacity) this.history.splice(0, this.history.length - this.capacity)
    for (const listener of this.listeners) listener(numbered)
  }

  /** The kept notices after a cursor (all kept ones when the cursor is older than the history). */
  since(cursor: number): NumberedNotice[] {
    const first = this.history[0]?.id ?? this.next
    return this.history.slice(Math.max(0, cursor + 1 - first))
  }

  /** Subscribes to new notices. */
  subscribe(listener: (notice: NumberedNotice) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}

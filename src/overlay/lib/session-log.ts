import type { EventsResponse, SessionEvent, SessionHeader } from '../../protocol/index.ts'
import { emptyFold, foldEvents, type ConversationFold } from './conversation.ts'

/**
 * The overlay's copy of a window of one Session's log: a contiguous run of events `firstSeq..lastSeq` (the last page
 * first, older pages prepended as the person scrolls up) and the conversation folded from it. `version` changes on every
 * update; the events array and the fold are shared with the previous version and grow in place.
 */
export type SessionLog = {
  header: SessionHeader | null
  events: SessionEvent[]
  /** Seq of the first event held (the log's length when none is held). */
  firstSeq: number
  /** Seq of the last event held, or firstSeq − 1 when none is. */
  lastSeq: number
  /** The log's length as last reported (at least lastSeq + 1). */
  eventCount: number
  fold: ConversationFold
  version: number
}

/** One page of `GET /api/sessions/:id/events` (SPEC 8 v2) as a window starts from: the paging fields are derived when left out. */
export type EventsPage = Pick<EventsResponse, 'events'> & Partial<Pick<EventsResponse, 'firstSeq' | 'lastSeq' | 'eventCount'>> & { header: SessionHeader | null }

function contiguousFrom(events: readonly SessionEvent[], first: number): SessionEvent[] {
  const run: SessionEvent[] = []
  let expected = first
  for (const event of events) {
    if (event.seq < expected) continue
    if (event.seq !== expected) break
    run.push(event)
    expected += 1
  }
  return run
}

/** A log window from one page of events. */
export function logFromPage(page: EventsPage): SessionLog {
  const sorted = [...page.events].sort((a, b) => a.seq - b.seq)
  const first = sorted.length > 0 ? sorted[0].seq : (page.eventCount ?? 0)
  const events = contiguousFrom(sorted, first)
  const fold = emptyFold()
  foldEvents(fold, events)
  const lastSeq = events.length > 0 ? events[events.length - 1].seq : first - 1
  return { header: page.header, events, firstSeq: first, lastSeq, eventCount: Math.max(page.eventCount ?? 0, lastSeq + 1), fold, version: 0 }
}

/** What appending brought: the updated log, the events that were new, and whether a gap stopped the append. */
export type AppendResult = { log: SessionLog; added: SessionEvent[]; gap: boolean }

/** Appends events after `lastSeq` (ignoring ones already held); folds only the new ones. Stops at a gap and says so. */
export function appendToLog(log: SessionLog, incoming: readonly SessionEvent[], header?: SessionHeader | null): AppendResult {
  const fresh = incoming.filter((event) => event.seq > log.lastSeq)
  const nextHeader = log.header ?? header ?? null
  if (fresh.length === 0) return { log: nextHeader === log.header ? log : { ...log, header: nextHeader, version: log.version + 1 }, added: [], gap: false }
  fresh.sort((a, b) => a.seq - b.seq)
  const added = contiguousFrom(fresh, log.lastSeq + 1)
  const gap = added.length === 0 || added[added.length - 1].seq < fresh[fresh.length - 1].seq
  if (added.length === 0) return { log, added, gap }
  for (const event of added) log.events.push(event)
  foldEvents(log.fold, added)
  const lastSeq = added[added.length - 1].seq
  return {
    log: { ...log, header: nextHeader, lastSeq, eventCount: Math.max(log.eventCount, lastSeq + 1), version: log.version + 1 },
    added,
    gap,
  }
}

/** Prepends an older page that ends just before `firstSeq`; the conversation is folded again from the new first event. */
export function prependToLog(log: SessionLog, older: readonly SessionEvent[]): SessionLog {
  const before = [...older].filter((event) => event.seq < log.firstSeq).sort((a, b) => a.seq - b.seq)
  if (before.length === 0) return log
  const run = contiguousFrom(before, before[0].seq)
  if (run.length === 0 || run[run.length - 1].seq !== log.firstSeq - 1) return log
  const events = run.concat(log.events)
  const fold = emptyFold()
  foldEvents(fold, events)
  return { ...log, events, firstSeq: run[0].seq, fold, version: log.version + 1 }
}

/** True when events older than the window exist on the server. */
export function hasOlder(log: SessionLog): boolean {
  return log.firstSeq > 0
}

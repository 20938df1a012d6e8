import type { SessionEvent, SessionHeader } from '../../protocol/index.ts'

/** The client-side copy of one session's log: its header and events sorted by seq, without duplicates. */
export type EventLog = { header: SessionHeader | null; events: SessionEvent[] }

/** An empty log, before anything is known. */
export const EMPTY_LOG: EventLog = { header: null, events: [] }

/** Merges incoming events into a log by seq; existing entries win, the result is sorted and deduplicated. */
export function mergeEvents(log: EventLog | undefined, incoming: readonly SessionEvent[], header?: SessionHeader | null): EventLog {
  const base = log ?? EMPTY_LOG
  const nextHeader = base.header ?? header ?? null
  if (incoming.length === 0) return nextHeader === base.header ? base : { header: nextHeader, events: base.events }
  const known = new Set<number>()
  for (const event of base.events) known.add(event.seq)
  const fresh: SessionEvent[] = []
  for (const event of incoming) {
    if (known.has(event.seq)) continue
    known.add(event.seq)
    fresh.push(event)
  }
  if (fresh.length === 0) return nextHeader === base.header ? base : { header: nextHeader, events: base.events }
  const last = base.events.length > 0 ? base.events[base.events.length - 1].seq : -1
  const sortedFresh = fresh.slice().sort((a, b) => a.seq - b.seq)
  const events =
    sortedFresh[0].seq > last ? base.events.concat(sortedFresh) : base.events.concat(sortedFresh).sort((a, b) => a.seq - b.seq)
  return { header: nextHeader, events }
}

/** The seq of the last event of the contiguous run starting at seq 0, or -1 when seq 0 is absent. */
export function contiguousEnd(events: readonly SessionEvent[]): number {
  let expected = 0
  for (const event of events) {
    if (event.seq !== expected) break
    expected += 1
  }
  return expected - 1
}

/** The highest seq in the log, or -1 when it is empty. */
export function lastSeq(events: readonly SessionEvent[]): number {
  return events.length > 0 ? events[events.length - 1].seq : -1
}

/** True iff some event is missing between seq 0 and the highest seq held. */
export function hasGap(events: readonly SessionEvent[]): boolean {
  return contiguousEnd(events) !== lastSeq(events)
}

import { utcOffsetMs, type OffsetAt } from '../protocol/index.ts'

/** The marks the offsets are read at: every 6 hours from the epoch, the step `zoneOffsetsNear` samples at. */
const MARK_MS = 6 * 3_600_000
const SECOND_MS = 1000

/** Where a zone's offset changes within the 6 hours after a mark: from `atMs` (a whole second) on, it is `offset`. */
type Change = { atMs: number; offset: number }

/**
 * A zone's UTC offsets as `utcOffsetMs` reads them, each read through Intl once: the offset at each 6-hour mark asked
 * about, and where two marks in a row differ, the seconds between them where it changes, found by bisection. A wall time
 * is resolved with 9 samples a day apart and their round trips, 11 reads of Intl; this reader lets the wall times of
 * one window share them (a rule of every 5 minutes has 288 a day). Exact as long as no offset a zone takes within 6
 * hours comes back within them, which `zoneOffsetsNear` assumes too in sampling every 6 hours (the shortest any offset
 * of tzdata held is 4 days: Freetown, 1939). Meant for one computation: it keeps what it read.
 */
export function zoneOffsetReader(timeZone: string): OffsetAt {
  const marks = new Map<number, number>()
  const changes = new Map<number, Change[]>()
  const read = (ms: number): number => utcOffsetMs(timeZone, ms)
  const atMark = (index: number): number => {
    let offset = marks.get(index)
    if (offset === undefined) {
      offset = read(index * MARK_MS)
      marks.set(index, offset)
    }
    return offset
  }
  const changesAfter = (index: number): Change[] => {
    const known = changes.get(index)
    if (known !== undefined) return known
    const found: Change[] = []
    const end = (index + 1) * MARK_MS
    const last = atMark(index + 1)
    let from = index * MARK_MS
    let offset = atMark(index)
    while (offset !== last) {
      // read(low) is `offset`, read(high) is not: the first second of the next offset lies in (low, high]
      let low = from
      let high = end
      while (high - low > SECOND_MS) {
        const middle = low + Math.floor((high - low) / (2 * SECOND_MS)) * SECOND_MS
        if (read(middle) === offset) low = middle
        else high = middle
      }
      offset = read(high)
      found.push({ atMs: high, offset })
      from = high
    }
    changes.set(index, found)
    return found
  }
  return (epochMs) => {
    const second = Math.floor(epochMs / SECOND_MS) * SECOND_MS
    const index = Math.floor(second / MARK_MS)
    let offset = atMark(index)
    if (offset === atMark(index + 1)) return offset
    for (const change of changesAfter(index)) {
      if (second < change.atMs) break
      offset = change.offset
    }
    return offset
  }
}

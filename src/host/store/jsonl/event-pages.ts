import type { SessionEvent } from '../../../protocol/index.ts'
import { eventProblem } from '../../../protocol/index.ts'
import type { EventPage, EventRange } from '../store.ts'
import type { FileHandleLike } from './file-layer.ts'
import { corruptFile } from './session-file.ts'

const CHUNK = 64 * 1024

/** One line of a file: its text, where it starts and where the next one starts. */
type Line = { text: string; start: number; next: number }

/** Reads the line that starts at `start` (up to its newline, or to `end` when it has none). */
async function lineAt(handle: FileHandleLike, start: number, end: number): Promise<Line | null> {
  if (start >= end) return null
  const parts: Buffer[] = []
  let position = start
  while (position < end) {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, end - position))
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position)
    if (bytesRead === 0) break
    const nl = buffer.subarray(0, bytesRead).indexOf(0x0a)
    if (nl !== -1) {
      parts.push(buffer.subarray(0, nl))
      return { text: Buffer.concat(parts).toString('utf8'), start, next: position + nl + 1 }
    }
    parts.push(buffer.subarray(0, bytesRead))
    position += bytesRead
  }
  return { text: Buffer.concat(parts).toString('utf8'), start, next: end }
}

/** The start of the first line that begins at or after `position` (the byte after a newline). */
async function nextLineStart(handle: FileHandleLike, position: number, end: number): Promise<number> {
  if (position === 0) return 0
  let at = position - 1
  while (at < end) {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, end - at))
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, at)
    if (bytesRead === 0) return end
    const nl = buffer.subarray(0, bytesRead).indexOf(0x0a)
    if (nl !== -1) return at + nl + 1
    at += bytesRead
  }
  return end
}

function seqOf(text: string): number | null {
  try {
    const value = JSON.parse(text) as { seq?: unknown }
    return typeof value.seq === 'number' ? value.seq : null
  } catch {
    return null
  }
}

/** The start of the line whose last byte is `end - 1` (its newline, when it has one). */
async function lineStartBefore(handle: FileHandleLike, floor: number, end: number): Promise<number> {
  let limit = end - 1
  while (limit > floor) {
    const from = Math.max(floor, limit - CHUNK)
    const buffer = Buffer.allocUnsafe(limit - from)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from)
    const nl = buffer.subarray(0, bytesRead).lastIndexOf(0x0a)
    if (nl !== -1) return from + nl + 1
    limit = from
  }
  return floor
}

/** The last complete event: its seq and where it ends (a torn final line, as a crash leaves it, is skipped). */
async function lastEvent(handle: FileHandleLike, path: string, headerEnd: number, size: number): Promise<{ seq: number; end: number } | null> {
  if (size <= headerEnd) return null
  const byte = Buffer.alloc(1)
  await handle.read(byte, 0, 1, size - 1)
  const start = await lineStartBefore(handle, headerEnd, size)
  const line = (await lineAt(handle, start, size)) as Line
  const seq = seqOf(line.text)
  if (seq !== null) return { seq, end: size }
  if (byte[0] === 0x0a) throw corruptFile(path, -1, 'the last line is not valid JSON')
  if (start <= headerEnd) return null
  const before = await lineStartBefore(handle, headerEnd, start)
  const previous = (await lineAt(handle, before, start)) as Line
  const previousSeq = seqOf(previous.text)
  if (previousSeq === null) throw corruptFile(path, -1, 'the line before a torn final line is not valid JSON')
  return { seq: previousSeq, end: start }
}

/**
 * A page of a closed session file's events (SPEC 8), at a cost independent of its length: the
 * last event is read from the end, the first event of the page is found by binary search over
 * byte offsets (seqs ascend through the file), and only the page's lines are decoded — with the
 * same decoder as opening the session, so a damaged line is `corrupt` here too.
 */
export async function readEventPage(handle: FileHandleLike, path: string, size: number, range: EventRange): Promise<EventPage> {
  const header = await lineAt(handle, 0, size)
  if (header === null) return { events: [], eventCount: 0 }
  const headerEnd = header.next
  const last = await lastEvent(handle, path, headerEnd, size)
  const eventCount = last === null ? 0 : last.seq + 1
  let from: number
  let to: number
  if (range.after !== undefined) {
    from = Math.max(0, range.after + 1)
    to = Math.min(eventCount, from + range.limit)
  } else if (range.before !== undefined) {
    to = Math.min(eventCount, Math.max(0, range.before))
    from = Math.max(0, to - range.limit)
  } else {
    to = eventCount
    from = Math.max(0, to - range.limit)
  }
  if (last === null || from >= to) return { events: [], eventCount }
  let lo = headerEnd
  let hi = last.end
  while (hi - lo > CHUNK) {
    const mid = lo + Math.floor((hi - lo) / 2)
    const start = await nextLineStart(handle, mid, hi)
    if (start >= hi) {
      hi = mid
      continue
    }
    const line = (await lineAt(handle, start, hi)) as Line
    const seq = seqOf(line.text)
    if (seq === null) throw corruptFile(path, -1, 'a line in the middle of the file is not valid JSON')
    if (seq < from) lo = line.next
    else hi = start
  }
  const events: SessionEvent[] = []
  let cursor = lo
  while (cursor < last.end && events.length < to - from) {
    const line = (await lineAt(handle, cursor, last.end)) as Line
    cursor = line.next
    let value: unknown
    try {
      value = JSON.parse(line.text)
    } catch {
      throw corruptFile(path, from + events.length, 'line is not valid JSON')
    }
    const seq = (value as { seq?: unknown }).seq
    if (typeof seq === 'number' && seq < from) continue
    const expected = from + events.length
    const problem = eventProblem(value, expected)
    if (problem !== null) throw corruptFile(path, expected, problem)
    events.push(value as SessionEvent)
  }
  return { events, eventCount }
}

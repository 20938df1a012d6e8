import type { SessionEvent, SessionHeader } from '../../../protocol/index.ts'
import { eventProblem, headerProblem } from '../../../protocol/index.ts'
import { corruptSession } from '../store-error.ts'

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch {
    return { ok: false }
  }
}

/** Decodes a session row's header text with the shared decoder; throws `corrupt` at seq -1. */
export function decodeHeader(id: string, text: string): SessionHeader {
  const parsed = parse(text)
  if (!parsed.ok) throw corruptSession(id, -1, 'header is not valid JSON')
  const problem = headerProblem(parsed.value)
  if (problem !== null) throw corruptSession(id, -1, problem)
  const header = parsed.value as SessionHeader
  if (header.id !== id) throw corruptSession(id, -1, `the header names session ${header.id}`)
  return header
}

/** An event row as read: `seq` and `time` as the driver hands bigint columns (text). */
export type EventRow = [seq: string, time: string, type: string, eventJson: string]

/**
 * Decodes the event row expected at `expected` with the shared decoder (SPEC 2.2), the same one
 * the JSONL store and `check` use; a gap, bad JSON, a bad shape or columns that disagree with the
 * event throw `corrupt` naming the seq.
 */
export function decodeEvent(id: string, expected: number, row: EventRow): SessionEvent {
  const [seq, time, type, text] = row
  if (seq !== String(expected)) throw corruptSession(id, expected, `expected seq ${expected}, found ${seq}`)
  const parsed = parse(text)
  if (!parsed.ok) throw corruptSession(id, expected, 'event is not valid JSON')
  const problem = eventProblem(parsed.value, expected)
  if (problem !== null) throw corruptSession(id, expected, problem)
  const event = parsed.value as SessionEvent
  if (event.type !== type || String(event.time) !== time) {
    throw corruptSession(id, expected, `the row's type ${type} and time ${time} disagree with its event`)
  }
  return event
}

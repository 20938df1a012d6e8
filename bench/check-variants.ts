import { readFile } from 'node:fs/promises'
import type { SessionEvent, SessionHeader } from '../src/protocol/events.ts'
import { decodeHeader } from '../src/host/session-file.ts'
import { checkSessionLog } from '../src/invariant/check-session-log.ts'
import { InvariantError } from '../src/invariant/invariant-error.ts'
import { invariantFold } from '../src/invariant/invariant-fold.ts'
import { applyScheduleEvent, emptyScheduleState, type ScheduleState } from '../src/schedule/index.ts'
import { scheduleCheck } from '../src/server/check.ts'

const EVENT_TYPES = new Set([
  'turn/start',
  'step/start',
  'user/message',
  'request/header',
  'assistant/message',
  'tool/call',
  'tool/result',
  'step/end',
  'turn/end',
  'compact/summary',
  'schedule/change',
  'inbox/enqueued',
  'inbox/dropped',
])

/** Calls `onLine` with each line of a file decoded on its own from the Buffer (no whole-file string). */
async function eachLine(path: string, onLine: (line: string) => boolean | void): Promise<void> {
  const buf = await readFile(path)
  let pos = 0
  while (pos < buf.length) {
    let nl = buf.indexOf(0x0a, pos)
    if (nl === -1) nl = buf.length
    if (onLine(buf.toString('utf8', pos, nl)) === false) return
    pos = nl + 1
  }
}

/** Floor A: read the file, decode it to one string (as `loadSessionFile` does), `JSON.parse` every line, keep nothing. */
export async function readAndParseWhole(path: string): Promise<number> {
  const text = (await readFile(path)).toString('utf8')
  let pos = 0
  let lines = 0
  while (pos < text.length) {
    let nl = text.indexOf('\n', pos)
    if (nl === -1) nl = text.length
    JSON.parse(text.slice(pos, nl))
    lines++
    pos = nl + 1
  }
  return lines
}

/** Floor B: read the file, decode and `JSON.parse` each line on its own, keep nothing. */
export async function readAndParsePerLine(path: string): Promise<number> {
  let lines = 0
  await eachLine(path, (line) => {
    JSON.parse(line)
    lines++
  })
  return lines
}

function validEvent(value: Record<string, unknown>, seq: number): boolean {
  return (
    value.seq === seq &&
    typeof value.time === 'number' &&
    Number.isFinite(value.time) &&
    typeof value.type === 'string' &&
    EVENT_TYPES.has(value.type) &&
    typeof value.data === 'object' &&
    value.data !== null &&
    !Array.isArray(value.data)
  )
}

type Verdict = { ok: true } | { ok: false; seq: number; message: string }

/**
 * Proposed fix A only: `checkFile` with a loader that decodes line by line from the Buffer
 * (same checks as `loadSessionFile`), still keeping every event before the folds run.
 */
export async function checkWithPerLineLoader(path: string): Promise<Verdict> {
  let header: SessionHeader | undefined
  const events: SessionEvent[] = []
  let bad = false
  await eachLine(path, (line) => {
    const value = JSON.parse(line) as Record<string, unknown>
    if (header === undefined) header = decodeHeader(value, path)
    else if (validEvent(value, events.length)) events.push(value as unknown as SessionEvent)
    else {
      bad = true
      return false
    }
  })
  if (bad || header === undefined) return { ok: false, seq: events.length, message: 'bad event line' }
  const invariant = checkSessionLog(header, events)
  if (!invariant.ok) return invariant
  return scheduleCheck(header, events)
}

/**
 * Proposed fixes A + B: decode line by line and fold each event through the invariant and the
 * Schedule fold as it is parsed, keeping no event (what a streaming `check` would cost).
 */
export async function streamingCheck(path: string): Promise<Verdict> {
  let header: SessionHeader | undefined
  let invariant = invariantFold.init({ type: 'session', version: 1, id: 'x', createdAt: 0 })
  let schedule: ScheduleState = emptyScheduleState
  let seq = 0
  let verdict: Verdict = { ok: true }
  await eachLine(path, (line) => {
    const value = JSON.parse(line) as Record<string, unknown>
    if (header === undefined) {
      header = decodeHeader(value, path)
      invariant = invariantFold.init(header)
      return
    }
    if (!validEvent(value, seq)) {
      verdict = { ok: false, seq, message: 'bad event line' }
      return false
    }
    const event = value as unknown as SessionEvent
    try {
      invariantFold.validate?.(invariant, event, header)
    } catch (error) {
      if (error instanceof InvariantError) {
        verdict = { ok: false, seq: error.seq, message: error.message }
        return false
      }
      throw error
    }
    invariant = invariantFold.apply(invariant, event)
    const next = applyScheduleEvent(schedule, event)
    if (!next.ok) {
      verdict = { ok: false, seq, message: next.error.message }
      return false
    }
    schedule = next.value
    seq++
  })
  return verdict
}

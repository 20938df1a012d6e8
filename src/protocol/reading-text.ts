import { memoized } from './memo.ts'
import type { ClientZones } from './client-zones.ts'
import { renderClientZones } from './client-zones.ts'
import { isDurationText } from './duration.ts'
import { isZoneShape } from './time-zone.ts'

/** Which event an elapsed value measures from (SPEC 5.4). */
export type ReadingBaseline = 'model-visible message' | 'step context'

/** The fields of one four-line time-context reading (SPEC 5.4). */
export type ReadingFields = {
  turn: number
  step: number
  timestamp: string
  session: string
  client: ClientZones
  baseline: ReadingBaseline
  elapsed: string
}

/**
 * What reading a text gives: the fields; `format` when it is not the four-line shape (SPEC 6 check 2);
 * `integers` when it is, but its turn or step digits are not a positive safe integer (check 3).
 */
export type ReadingTextResult = { ok: true; fields: ReadingFields } | { ok: false; failure: 'format' | 'integers' }

const LINE_1 = /^Time sampled while preparing turn ([0-9]+), step ([0-9]+): (\S+)$/
const LINE_2 = /^Session time zone: (.+)\.$/
const LINE_3 = /^Client time zone for this request: (.+)\.$/
const LINE_4 = /^Elapsed since the preceding (model-visible message|step context): (.+)\.$/
const MIXED_PREFIX = 'mixed '
const FORMAT: ReadingTextResult = Object.freeze({ ok: false, failure: 'format' })
const INTEGERS: ReadingTextResult = Object.freeze({ ok: false, failure: 'integers' })

/** The four-line reading text, `\n`-joined with no trailing newline (SPEC 5.4). */
export function renderReadingText(fields: ReadingFields): string {
  return [
    `Time sampled while preparing turn ${fields.turn}, step ${fields.step}: ${fields.timestamp}`,
    `Session time zone: ${fields.session}.`,
    `Client time zone for this request: ${renderClientZones(fields.client)}.`,
    `Elapsed since the preceding ${fields.baseline}: ${fields.elapsed}.`,
  ].join('\n')
}

function positiveSafeInteger(digits: string): number | null {
  const value = Number(digits)
  return value > 0 && Number.isSafeInteger(value) && String(value) === digits ? value : null
}

/** Reads a reading text exactly: the four-line shape first, then positive safe integers for turn and step (SPEC 5.4, 6). The answer is frozen: it may be shared. */
export const readReadingText: (text: string) => ReadingTextResult = memoized(
  (text) => {
    const result = readUncached(text)
    if (!result.ok) return result
    const { client } = result.fields
    if (client.kind === 'mixed') Object.freeze(client.timeZones)
    Object.freeze(client)
    Object.freeze(result.fields)
    return Object.freeze(result)
  },
  // readings read lately: each is read on its append (the invariant) and again by whoever reads the conversation
  // (the offline model, twice a step); texts that are no reading (a person's, up to 64 KiB) are not held
  64,
  (result) => result.ok,
)

function readUncached(text: string): ReadingTextResult {
  const lines = text.split('\n')
  if (lines.length !== 4) return FORMAT
  const l1 = LINE_1.exec(lines[0])
  const l2 = LINE_2.exec(lines[1])
  const l3 = LINE_3.exec(lines[2])
  const l4 = LINE_4.exec(lines[3])
  if (l1 === null || l2 === null || l3 === null || l4 === null) return FORMAT
  const session = l2[1]
  if (session !== 'unavailable' && !isZoneShape(session)) return FORMAT
  const client = parseClient(l3[1])
  if (client === null) return FORMAT
  const elapsed = l4[2]
  if (elapsed !== 'unavailable' && !isDurationText(elapsed)) return FORMAT
  // Each anchored line is its own rendering (`.` and `\S` never match a line terminator); only a
  // mixed client list has more than one spelling, so only it is compared with its rendering.
  if (client.kind === 'mixed' && renderClientZones(client) !== l3[1]) return FORMAT
  const rest = { timestamp: l1[3], session, client, baseline: l4[1] as ReadingBaseline, elapsed }
  const turn = positiveSafeInteger(l1[1])
  const step = positiveSafeInteger(l1[2])
  if (turn === null || step === null) return INTEGERS
  return { ok: true, fields: { turn, step, ...rest } }
}

/** The fields of a reading text, or null unless it is exactly the four-line format with a valid turn and step (SPEC 5.4). */
export function parseReadingText(text: string): ReadingFields | null {
  const result = readReadingText(text)
  return result.ok ? result.fields : null
}

function parseClient(value: string): ClientZones | null {
  if (value === 'missing') return { kind: 'missing' }
  if (!value.startsWith(MIXED_PREFIX)) return isZoneShape(value) ? { kind: 'resolved', timeZone: value } : null
  let list: unknown
  try {
    list = JSON.parse(value.slice(MIXED_PREFIX.length))
  } catch {
    return null
  }
  if (!Array.isArray(list) || list.length < 2) return null
  const zones: string[] = []
  for (const zone of list) {
    if (typeof zone !== 'string' || !isZoneShape(zone)) return null
    if (zones.length > 0 && !(zones[zones.length - 1] < zone)) return null
    zones.push(zone)
  }
  return { kind: 'mixed', timeZones: zones }
}

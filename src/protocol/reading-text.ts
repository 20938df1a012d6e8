import type { ClientZones } from './client-zones.ts'
import { renderClientZones } from './client-zones.ts'

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

const ZONE_SHAPE = /^(?:UTC|[A-Za-z][A-Za-z0-9_+.-]*(?:\/[A-Za-z0-9_+.-]+)+)$/
const DURATION_SHAPE =
  /^(?:[1-9][0-9]*d )?(?:(?:[1-9]|1[0-9]|2[0-3])h )?(?:(?:[1-9]|[1-5][0-9])m )?(?:[0-9]|[1-5][0-9])s$/
const LINE_1 = /^Time sampled while preparing turn (0|[1-9][0-9]*), step (0|[1-9][0-9]*): (\S+)$/
const LINE_2 = /^Session time zone: (.+)\.$/
const LINE_3 = /^Client time zone for this request: (.+)\.$/
const LINE_4 = /^Elapsed since the preceding (model-visible message|step context): (.+)\.$/
const MIXED_PREFIX = 'mixed '

/** The four-line reading text, `\n`-joined with no trailing newline (SPEC 5.4). */
export function renderReadingText(fields: ReadingFields): string {
  return [
    `Time sampled while preparing turn ${fields.turn}, step ${fields.step}: ${fields.timestamp}`,
    `Session time zone: ${fields.session}.`,
    `Client time zone for this request: ${renderClientZones(fields.client)}.`,
    `Elapsed since the preceding ${fields.baseline}: ${fields.elapsed}.`,
  ].join('\n')
}

/** The fields of a reading text, or null unless the text is exactly the four-line format (SPEC 5.4). */
export function parseReadingText(text: string): ReadingFields | null {
  const lines = text.split('\n')
  if (lines.length !== 4) return null
  const l1 = LINE_1.exec(lines[0])
  const l2 = LINE_2.exec(lines[1])
  const l3 = LINE_3.exec(lines[2])
  const l4 = LINE_4.exec(lines[3])
  if (l1 === null || l2 === null || l3 === null || l4 === null) return null
  const session = l2[1]
  if (session !== 'unavailable' && !ZONE_SHAPE.test(session)) return null
  const client = parseClient(l3[1])
  if (client === null) return null
  const elapsed = l4[2]
  if (elapsed !== 'unavailable' && !DURATION_SHAPE.test(elapsed)) return null
  const fields: ReadingFields = {
    turn: Number(l1[1]),
    step: Number(l1[2]),
    timestamp: l1[3],
    session,
    client,
    baseline: l4[1] as ReadingBaseline,
    elapsed,
  }
  return renderReadingText(fields) === text ? fields : null
}

function parseClient(value: string): ClientZones | null {
  if (value === 'missing') return { kind: 'missing' }
  if (!value.startsWith(MIXED_PREFIX)) return ZONE_SHAPE.test(value) ? { kind: 'resolved', timeZone: value } : null
  let list: unknown
  try {
    list = JSON.parse(value.slice(MIXED_PREFIX.length))
  } catch {
    return null
  }
  if (!Array.isArray(list) || list.length < 2) return null
  const zones: string[] = []
  for (const zone of list) {
    if (typeof zone !== 'string' || !ZONE_SHAPE.test(zone)) return null
    if (zones.length > 0 && !(zones[zones.length - 1] < zone)) return null
    zones.push(zone)
  }
  return { kind: 'mixed', timeZones: zones }
}

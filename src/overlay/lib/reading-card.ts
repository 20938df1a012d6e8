import type { ClientZones } from '../../protocol/index.ts'
import { parseReadingText, parseZonedTimestamp } from '../../protocol/index.ts'

/** A reading's sampled timestamp split for display. */
export type SampledTime = { date: string; time: string; offset: string; zone: string; instantMs: number }

/** What a reading card shows; `tone` is `warning` for mixed, `neutral` for missing, `ok` for resolved. */
export type ReadingCard = {
  turn: number
  step: number
  timestamp: string
  sampled: SampledTime | null
  sessionZone: string | null
  clientKind: ClientZones['kind']
  clientZones: string[]
  clientLabel: string
  baseline: string
  elapsed: string
  tone: 'ok' | 'warning' | 'neutral'
}

/** Splits `2026-07-15T09:01:01+08:00[Asia/Shanghai]` into its parts, or null unless it is a reading timestamp. */
export function splitReadingTimestamp(timestamp: string): SampledTime | null {
  const parsed = parseZonedTimestamp(timestamp)
  if (parsed === null) return null
  return { date: parsed.date, time: parsed.time, offset: parsed.offset, zone: parsed.zone, instantMs: parsed.epochMs }
}

function clientView(client: ClientZones): { zones: string[]; label: string; tone: ReadingCard['tone'] } {
  switch (client.kind) {
    case 'resolved':
      return { zones: [client.timeZone], label: client.timeZone, tone: 'ok' }
    case 'mixed':
      return { zones: [...client.timeZones], label: `mixed: ${client.timeZones.join(', ')}`, tone: 'warning' }
    case 'missing':
      return { zones: [], label: 'missing', tone: 'neutral' }
    default: {
      const unreachable: never = client
      return unreachable
    }
  }
}

/** The card model of a time-context reading's text, or null when the text is not a reading. */
export function readingCard(text: string): ReadingCard | null {
  const fields = parseReadingText(text)
  if (fields === null) return null
  const client = clientView(fields.client)
  return {
    turn: fields.turn,
    step: fields.step,
    timestamp: fields.timestamp,
    sampled: splitReadingTimestamp(fields.timestamp),
    sessionZone: fields.session === 'unavailable' ? null : fields.session,
    clientKind: fields.client.kind,
    clientZones: client.zones,
    clientLabel: client.label,
    baseline: fields.baseline,
    elapsed: fields.elapsed,
    tone: client.tone,
  }
}

import type { SessionHeader, UserMessage } from '../protocol/events.ts'
import { clientZoneOfSource, clientZonesFrom } from '../protocol/client-zones.ts'
import { renderReadingText } from '../protocol/reading-text.ts'
import { formatDuration } from './duration.ts'
import type { TimeContextIndex } from './index-fold.ts'
import { buildReadingMessage } from './reading-message.ts'
import { formatZonedTimestamp } from './timestamp.ts'

/** Everything one reading decision depends on; `now` is sampled once by the caller. */
export type ReadingDecisionInput = {
  index: TimeContextIndex
  header: SessionHeader
  fallbackZone: string
  refreshIntervalMs: number
  turn: number
  step: number
  messages: readonly UserMessage[]
  now: number
}

/** True iff the interval rule suppresses a reading at `now` (SPEC 5.3). */
export function intervalSuppresses(lastReadingTime: number | null, refreshIntervalMs: number, now: number): boolean {
  return refreshIntervalMs > 0 && lastReadingTime !== null && now >= lastReadingTime && now - lastReadingTime < refreshIntervalMs
}

/** The reading to append to an entering non-empty batch, or null when the interval rule skips it (SPEC 5.3, 5.4). */
export function decideReading(input: ReadingDecisionInput): UserMessage | null {
  const { index, header, turn, step, now } = input
  if (intervalSuppresses(index.lastReadingTime, input.refreshIntervalMs, now)) return null
  const sameTurn = index.turn === turn
  const zones: string[] = sameTurn ? [...index.turnZones] : []
  for (const message of input.messages) {
    const zone = clientZoneOfSource(message.source)
    if (zone !== null) zones.push(zone)
  }
  const sessionZone = header.timeZone
  const baselineTime = step === 1 ? index.lastModelVisibleTime : sameTurn ? index.turnReadingTime : null
  const text = renderReadingText({
    turn,
    step,
    timestamp: formatZonedTimestamp(now, sessionZone ?? input.fallbackZone),
    session: sessionZone ?? 'unavailable',
    client: clientZonesFrom(zones),
    baseline: step === 1 ? 'model-visible message' : 'step context',
    elapsed: formatDuration(baselineTime === null ? null : now - baselineTime),
  })
  return buildReadingMessage(turn, step, text)
}

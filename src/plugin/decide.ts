import type { SessionHeader, UserMessage } from '../protocol/index.ts'
import { buildReadingMessage, formatDuration, formatZonedTimestamp, renderReadingText, turnClientZones } from '../protocol/index.ts'
import type { TimeContextIndex } from './index-fold.ts'

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
  const sessionZone = header.timeZone
  const baselineTime = step === 1 ? index.lastModelVisibleTime : sameTurn ? index.turnReadingTime : null
  const text = renderReadingText({
    turn,
    step,
    timestamp: formatZonedTimestamp(now, sessionZone ?? input.fallbackZone),
    session: sessionZone ?? 'unavailable',
    client: turnClientZones(sameTurn ? index.turnZones : [], input.messages),
    baseline: step === 1 ? 'model-visible message' : 'step context',
    elapsed: formatDuration(baselineTime === null ? null : now - baselineTime),
  })
  return buildReadingMessage(turn, step, text)
}

import type { SessionEvent, SessionHeader, UserMessage } from '../src/protocol/events.ts'
import { clientZonesFrom } from '../src/protocol/client-zones.ts'
import { renderReadingText } from '../src/protocol/reading-text.ts'
import { formatDuration } from '../src/protocol/index.ts'
import { buildReadingMessage } from '../src/protocol/index.ts'
import { formatZonedTimestamp } from '../src/protocol/index.ts'
import { InvariantError } from '../src/invariant/invariant-error.ts'
import { validateInvariant, type InvariantState } from '../src/invariant/invariant-fold.ts'
import type { SessionLogCheck } from '../src/invariant/check-session-log.ts'

/*
 * Naive baselines: the same rules as SPEC 5.3/5.4 and SPEC 6, derived by rescanning the raw log
 * for every decision / every reading instead of keeping an index. Formatting is shared with the
 * project (the baseline differs in how the inputs are found, not in how text is rendered).
 */

function sourceOf(event: SessionEvent): Record<string, unknown> | null {
  const source = (event.data as { source?: unknown }).source
  return typeof source === 'object' && source !== null ? (source as Record<string, unknown>) : null
}

function isReading(event: SessionEvent): boolean {
  if (event.type !== 'user/message') return false
  const s = sourceOf(event)
  return s !== null && s.kind === 'plugin' && s.plugin === 'time-context'
}

function rpcZone(source: unknown): string | null {
  if (typeof source !== 'object' || source === null) return null
  const s = source as Record<string, unknown>
  return s.kind === 'user' && typeof s.rpcId === 'string' && typeof s.clientTimeZone === 'string' ? s.clientTimeZone : null
}

/** One decision, derived by scanning `events[0..end)` (the log as it stands before the decision). */
export type NaiveDecisionInput = {
  events: readonly SessionEvent[]
  end: number
  header: SessionHeader
  fallbackZone: string
  refreshIntervalMs: number
  turn: number
  step: number
  messages: readonly UserMessage[]
  now: number
}

/** The reading (or null when the interval rule skips it), rescanning the whole raw log (SPEC 5.3, 5.4). */
export function naiveDecideReading(input: NaiveDecisionInput): UserMessage | null {
  const { events, end, header, turn, step, now } = input
  let lastReading: number | null = null
  let lastVisible: number | null = null
  let openTurnStart = -1
  for (let i = 0; i < end; i++) {
    const event = events[i]
    switch (event.type) {
      case 'turn/start':
        openTurnStart = i
        break
      case 'turn/end':
        openTurnStart = -1
        break
      case 'assistant/message':
      case 'tool/result':
        lastVisible = event.time
        break
      case 'user/message':
        lastVisible = event.time
        if (isReading(event)) lastReading = event.time
        break
      default:
        break
    }
  }
  const interval = input.refreshIntervalMs
  if (interval > 0 && lastReading !== null && now >= lastReading && now - lastReading < interval) return null
  const thisTurn =
    openTurnStart >= 0 && (events[openTurnStart] as SessionEvent<'turn/start'>).data.turn === turn ? openTurnStart : -1
  const zones: string[] = []
  let turnReading: number | null = null
  if (thisTurn >= 0) {
    for (let i = thisTurn + 1; i < end; i++) {
      const event = events[i]
      if (event.type !== 'user/message') continue
      if (isReading(event)) turnReading = event.time
      else {
        const zone = rpcZone(event.data.source)
        if (zone !== null) zones.push(zone)
      }
    }
  }
  for (const message of input.messages) {
    const zone = rpcZone(message.source)
    if (zone !== null) zones.push(zone)
  }
  const baseline = step === 1 ? lastVisible : turnReading
  const text = renderReadingText({
    turn,
    step,
    timestamp: formatZonedTimestamp(now, header.timeZone ?? input.fallbackZone),
    session: header.timeZone ?? 'unavailable',
    client: clientZonesFrom(zones),
    baseline: step === 1 ? 'model-visible message' : 'step context',
    elapsed: formatDuration(baseline === null ? null : now - baseline),
  })
  return buildReadingMessage(turn, step, text)
}

/** The invariant positions before `events[end]`, derived by rescanning the log from its start. */
export function naiveInvariantState(events: readonly SessionEvent[], end: number): InvariantState {
  let openTurn: number | null = null
  let openStep: number | null = null
  let headerInStep = false
  let readingInStep = false
  let zones = new Set<string>()
  let lastVisible: number | null = null
  let stepBaseline: number | null = null
  let turnReading: number | null = null
  for (let i = 0; i < end; i++) {
    const event = events[i]
    switch (event.type) {
      case 'turn/start':
        openTurn = event.data.turn
        openStep = null
        headerInStep = false
        readingInStep = false
        zones = new Set()
        turnReading = null
        break
      case 'turn/end':
        openTurn = null
        openStep = null
        zones = new Set()
        turnReading = null
        break
      case 'step/start':
        openStep = event.data.step
        headerInStep = false
        readingInStep = false
        stepBaseline = lastVisible
        break
      case 'step/end':
        openStep = null
        break
      case 'request/header':
        if (openStep !== null) headerInStep = true
        break
      case 'assistant/message':
      case 'tool/result':
        lastVisible = event.time
        break
      case 'user/message': {
        lastVisible = event.time
        if (isReading(event)) {
          if (openStep !== null) readingInStep = true
          if (openTurn !== null) turnReading = event.time
        } else if (openTurn !== null) {
          const zone = rpcZone(event.data.source)
          if (zone !== null) zones.add(zone)
        }
        break
      }
      default:
        break
    }
  }
  return {
    openTurn,
    openStep,
    headerInStep,
    readingInStep,
    turnZones: [...zones].sort(),
    lastModelVisibleTime: lastVisible,
    stepBaselineTime: stepBaseline,
    turnReadingTime: turnReading,
  }
}

/** Validates every reading of a log by rescanning the log before it (O(readings × events)). */
export function naiveCheckSessionLog(header: SessionHeader, events: readonly SessionEvent[]): SessionLogCheck {
  for (let i = 0; i < events.length; i++) {
    const event = events[i]
    if (!isReading(event)) continue
    try {
      validateInvariant(naiveInvariantState(events, i), event, header)
    } catch (error) {
      if (error instanceof InvariantError) return { ok: false, seq: error.seq, message: error.message }
      throw error
    }
  }
  return { ok: true }
}

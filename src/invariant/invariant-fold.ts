import type { SessionFold } from '../host/index.ts'
import type { ReadingFields, SessionEvent, SessionHeader } from '../protocol/index.ts'
import {
  decodeSingleTextContent,
  isReadingOf,
  isTimeContextSource,
  nextTurnZones,
  parseDuration,
  parseZonedTimestamp,
  readReadingText,
  renderClientZones,
  turnClientZones,
} from '../protocol/index.ts'
import { InvariantError } from './invariant-error.ts'
import { REASONS, duplicateReadingReason, wrongBaselineReason, wrongPositionReason } from './reasons.ts'

/** Positions the invariant folds forward over every event of a session (SPEC 6). */
export type InvariantState = {
  /** The open turn, or null between turns. */
  readonly openTurn: number | null
  /** The open step, or null outside a step. */
  readonly openStep: number | null
  /** True once `request/header` was appended in the open step. */
  readonly headerInStep: boolean
  /** True once a time-context reading was appended in the open step. */
  readonly readingInStep: boolean
  /** Sorted distinct client zones of the user-rpc messages entered in the open turn. */
  readonly turnZones: readonly string[]
  /** `time` of the latest `user/message`, `assistant/message` or `tool/result` so far. */
  readonly lastModelVisibleTime: number | null
  /** `lastModelVisibleTime` as it was at the open step's `step/start` (the step-1 baseline). */
  readonly stepBaselineTime: number | null
  /** `time` of the latest time-context reading in the open turn (the later-step baseline). */
  readonly turnReadingTime: number | null
}

/** The state before the first event. */
export const INITIAL_INVARIANT_STATE: InvariantState = {
  openTurn: null,
  openStep: null,
  headerInStep: false,
  readingInStep: false,
  turnZones: [],
  lastModelVisibleTime: null,
  stepBaselineTime: null,
  turnReadingTime: null,
}

function sourceOf(event: SessionEvent): unknown {
  return (event.data as { source?: unknown } | null)?.source
}

/** Folds one event into the invariant positions in O(1) amortised. */
export function applyToInvariantState(state: InvariantState, event: SessionEvent): InvariantState {
  let { openTurn, openStep, headerInStep, readingInStep, turnZones, lastModelVisibleTime, stepBaselineTime, turnReadingTime } = state
  switch (event.type) {
    case 'turn/start':
      openTurn = event.data.turn
      openStep = null
      headerInStep = false
      readingInStep = false
      turnZones = nextTurnZones(turnZones, event, false)
      turnReadingTime = null
      break
    case 'turn/end':
      openTurn = null
      openStep = null
      turnZones = nextTurnZones(turnZones, event, true)
      turnReadingTime = null
      break
    case 'step/start':
      openStep = event.data.step
      headerInStep = false
      readingInStep = false
      stepBaselineTime = lastModelVisibleTime
      break
    case 'step/end':
      openStep = null
      break
    case 'request/header':
      if (openStep === null) return state
      headerInStep = true
      break
    case 'assistant/message':
    case 'tool/result':
      lastModelVisibleTime = event.time
      break
    case 'user/message': {
      const source = sourceOf(event)
      lastModelVisibleTime = event.time
      if (isTimeContextSource(source)) {
        readingInStep = openStep !== null || readingInStep
        if (openTurn !== null) turnReadingTime = event.time
      } else {
        turnZones = nextTurnZones(turnZones, event, openTurn !== null)
      }
      break
    }
    default:
      return state
  }
  // One literal instead of chained `{ ...state }` spreads: V8 clones spread-of-spread objects on a slow path (~4× slower fold).
  return { openTurn, openStep, headerInStep, readingInStep, turnZones, lastModelVisibleTime, stepBaselineTime, turnReadingTime }
}

function elapsedMatches(fields: ReadingFields, renderedMs: number, eventTime: number, baseline: number | null): boolean {
  if (baseline === null) return fields.elapsed === 'unavailable'
  const seconds = parseDuration(fields.elapsed)
  if (seconds === null) return false
  const low = Math.floor(Math.max(0, renderedMs - baseline) / 1000)
  const high = Math.floor(Math.max(0, Math.min(renderedMs + 999, eventTime) - baseline) / 1000)
  return seconds >= low && seconds <= high
}

function reject(reason: string, event: SessionEvent): never {
  throw new InvariantError(reason, event.seq)
}

/** Runs the twelve SPEC 6 checks, in order, on one event; throws `InvariantError` on the first failure. */
export function validateInvariant(state: InvariantState, event: SessionEvent, header: SessionHeader): void {
  if (event.type !== 'user/message' || !isTimeContextSource(sourceOf(event))) return
  const text = decodeSingleTextContent(event.data)
  if (text === null) reject(REASONS.content, event)
  const read = readReadingText(text)
  if (!read.ok) reject(read.failure === 'format' ? REASONS.format : REASONS.integers, event)
  const { fields } = read
  const { openTurn, openStep } = state
  if (openTurn === null) reject(REASONS.noTurn, event)
  if (openStep === null) reject(REASONS.noStep, event)
  if (state.headerInStep) reject(REASONS.afterHeader, event)
  if (fields.turn !== openTurn || fields.step !== openStep) {
    reject(wrongPositionReason(fields.turn, fields.step, openTurn, openStep), event)
  }
  if (state.readingInStep) reject(duplicateReadingReason(openStep), event)
  if (!isReadingOf(event.data, text)) reject(REASONS.source, event)
  const session = header.timeZone ?? 'unavailable'
  const client = renderClientZones(turnClientZones(state.turnZones))
  if (fields.session !== session || renderClientZones(fields.client) !== client) reject(REASONS.zones, event)
  const label = openStep === 1 ? 'model-visible message' : 'step context'
  if (fields.baseline !== label) reject(wrongBaselineReason(openStep, fields.baseline), event)
  const rendered = parseZonedTimestamp(fields.timestamp)
  if (rendered === null || rendered.epochMs > event.time) reject(REASONS.timestamp, event)
  const baseline = openStep === 1 ? state.stepBaselineTime : state.turnReadingTime
  if (!elapsedMatches(fields, rendered.epochMs, event.time, baseline)) reject(REASONS.elapsed, event)
  // a timestamp that parses is its instant rendered in the zone it names, so it is rendered in the
  // Session zone exactly when it names that zone (a rendering always ends with `[zone]`)
  if (header.timeZone !== undefined && header.timeZone !== rendered.zone) {
    reject(REASONS.sessionZone, event)
  }
}

/** The invariant companion's fold: validates time-context readings before append and on open. */
export const invariantFold: SessionFold<InvariantState> = {
  name: 'time-context/invariant',
  init: () => INITIAL_INVARIANT_STATE,
  apply: applyToInvariantState,
  validate: validateInvariant,
}

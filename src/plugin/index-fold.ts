import type { SessionFold } from '../host/index.ts'
import type { SessionEvent } from '../protocol/index.ts'
import { isTimeContextSource, nextTurnZones } from '../protocol/index.ts'

/** What the time-context decision needs of one session, a pure fold of its durable events (SPEC 12.1). */
export type TimeContextIndex = {
  /** `time` of the latest raw `user/message`, `assistant/message` or `tool/result`. */
  readonly lastModelVisibleTime: number | null
  /** `time` of the latest raw time-context reading, shadowed ones included. */
  readonly lastReadingTime: number | null
  /** The open turn, or null between turns. */
  readonly turn: number | null
  /** Sorted distinct client zones of the user-rpc messages entered in the open turn. */
  readonly turnZones: readonly string[]
  /** `time` of the latest time-context reading in the open turn. */
  readonly turnReadingTime: number | null
}

/** The index of a session with no events. */
export const EMPTY_TIME_CONTEXT_INDEX: TimeContextIndex = {
  lastModelVisibleTime: null,
  lastReadingTime: null,
  turn: null,
  turnZones: [],
  turnReadingTime: null,
}

/** One index value, its five fields always written in the same order (one object shape, no spread per event). */
function indexOf(
  lastModelVisibleTime: number | null,
  lastReadingTime: number | null,
  turn: number | null,
  turnZones: readonly string[],
  turnReadingTime: number | null,
): TimeContextIndex {
  return { lastModelVisibleTime, lastReadingTime, turn, turnZones, turnReadingTime }
}

/** Folds one durable event into the index in O(1) amortised. */
export function applyToTimeContextIndex(index: TimeContextIndex, event: SessionEvent): TimeContextIndex {
  switch (event.type) {
    case 'turn/start':
      return indexOf(index.lastModelVisibleTime, index.lastReadingTime, event.data.turn, nextTurnZones(index.turnZones, event, false), null)
    case 'turn/end':
      return indexOf(index.lastModelVisibleTime, index.lastReadingTime, null, nextTurnZones(index.turnZones, event, true), null)
    case 'assistant/message':
    case 'tool/result':
      return indexOf(event.time, index.lastReadingTime, index.turn, index.turnZones, index.turnReadingTime)
    case 'user/message': {
      const open = index.turn !== null
      if (isTimeContextSource((event.data as { source?: unknown } | null)?.source)) {
        return indexOf(event.time, event.time, index.turn, index.turnZones, open ? event.time : index.turnReadingTime)
      }
      return indexOf(event.time, index.lastReadingTime, index.turn, nextTurnZones(index.turnZones, event, open), index.turnReadingTime)
    }
    default:
      return index
  }
}

/** The per-session time-context index as a host fold. */
export const timeContextIndexFold: SessionFold<TimeContextIndex> = {
  name: 'time-context/index',
  init: () => EMPTY_TIME_CONTEXT_INDEX,
  apply: applyToTimeContextIndex,
}

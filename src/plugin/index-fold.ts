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

/** Folds one durable event into the index in O(1) amortised. */
export function applyToTimeContextIndex(index: TimeContextIndex, event: SessionEvent): TimeContextIndex {
  switch (event.type) {
    case 'turn/start':
      return { ...index, turn: event.data.turn, turnZones: nextTurnZones(index.turnZones, event, false), turnReadingTime: null }
    case 'turn/end':
      return { ...index, turn: null, turnZones: nextTurnZones(index.turnZones, event, true), turnReadingTime: null }
    case 'assistant/message':
    case 'tool/result':
      return { ...index, lastModelVisibleTime: event.time }
    case 'user/message': {
      const open = index.turn !== null
      if (isTimeContextSource((event.data as { source?: unknown } | null)?.source)) {
        return {
          ...index,
          lastModelVisibleTime: event.time,
          lastReadingTime: event.time,
          turnReadingTime: open ? event.time : index.turnReadingTime,
        }
      }
      return { ...index, lastModelVisibleTime: event.time, turnZones: nextTurnZones(index.turnZones, event, open) }
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

import type { SessionFold } from '../host/plugin-api.ts'
import type { SessionEvent } from '../protocol/events.ts'
import { clientZoneOfSource } from '../protocol/client-zones.ts'
import { isTimeContextSource } from './reading-message.ts'
import { addZone } from './zone-set.ts'

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
      return { ...index, turn: event.data.turn, turnZones: [], turnReadingTime: null }
    case 'turn/end':
      return { ...index, turn: null, turnZones: [], turnReadingTime: null }
    case 'assistant/message':
    case 'tool/result':
      return { ...index, lastModelVisibleTime: event.time }
    case 'user/message': {
      const source: unknown = (event.data as { source?: unknown } | null)?.source
      const open = index.turn !== null
      if (isTimeContextSource(source)) {
        return {
          ...index,
          lastModelVisibleTime: event.time,
          lastReadingTime: event.time,
          turnReadingTime: open ? event.time : index.turnReadingTime,
        }
      }
      const zone = open ? clientZoneOfSource(source) : null
      return {
        ...index,
        lastModelVisibleTime: event.time,
        turnZones: zone === null ? index.turnZones : addZone(index.turnZones, zone),
      }
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

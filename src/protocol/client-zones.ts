import type { SessionEvent, UserMessage } from './events.ts'
import { addZone } from './zone-set.ts'

/** The client zones of one open turn (SPEC 4.4). */
export type ClientZones =
  | { kind: 'missing' }
  | { kind: 'resolved'; timeZone: string }
  | { kind: 'mixed'; timeZones: string[] }

/** The client zone a message with this source contributes to its turn (SPEC 4.4), or null. */
export function clientZoneOfSource(source: unknown): string | null {
  if (typeof source !== 'object' || source === null) return null
  const s = source as Record<string, unknown>
  return s.kind === 'user' && typeof s.rpcId === 'string' && typeof s.clientTimeZone === 'string'
    ? s.clientTimeZone
    : null
}

/** Client zones from already-extracted zone strings: de-duplicated and sorted with the default JS sort. */
export function clientZonesFrom(zones: Iterable<string>): ClientZones {
  const sorted = [...new Set(zones)].sort()
  if (sorted.length === 0) return { kind: 'missing' }
  if (sorted.length === 1) return { kind: 'resolved', timeZone: sorted[0] }
  return { kind: 'mixed', timeZones: sorted }
}

const NO_ZONES: readonly string[] = []

/**
 * The open turn's sorted distinct client zones after one durable event (SPEC 4.4): emptied at every
 * `turn/start` and `turn/end`; a `user/message` adds its source's zone while a turn is open.
 * The list is copied only when a new zone joins it, so folding a log is O(events) amortised.
 */
export function nextTurnZones(zones: readonly string[], event: SessionEvent, turnOpen: boolean): readonly string[] {
  switch (event.type) {
    case 'turn/start':
    case 'turn/end':
      return NO_ZONES
    case 'user/message': {
      if (!turnOpen) return zones
      const zone = clientZoneOfSource((event.data as { source?: unknown } | null)?.source)
      return zone === null ? zones : addZone(zones, zone)
    }
    default:
      return zones
  }
}

/** The client zones of the open turn: the zones folded so far plus those of the proposed batch (SPEC 4.4). */
export function turnClientZones(turnZones: readonly string[], batch: Iterable<UserMessage> = []): ClientZones {
  let zones = turnZones
  for (const message of batch) {
    const zone = clientZoneOfSource(message.source)
    if (zone !== null) zones = addZone(zones, zone)
  }
  return clientZonesFrom(zones)
}

/** The `<client>` slot of a reading: `missing`, the zone, or `mixed ` + the JSON list (SPEC 5.4). */
export function renderClientZones(zones: ClientZones): string {
  switch (zones.kind) {
    case 'missing':
      return 'missing'
    case 'resolved':
      return zones.timeZone
    case 'mixed':
      return `mixed ${JSON.stringify(zones.timeZones)}`
    default: {
      const unreachable: never = zones
      return unreachable
    }
  }
}

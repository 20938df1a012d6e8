import type { UserMessage } from './events.ts'

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

/** Client zones of the user-rpc messages of one open turn plus its proposed batch (SPEC 4.4). */
export function deriveClientZones(messages: Iterable<UserMessage>): ClientZones {
  const zones: string[] = []
  for (const message of messages) {
    const zone = clientZoneOfSource(message.source)
    if (zone !== null) zones.push(zone)
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

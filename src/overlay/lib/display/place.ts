import { rawTimeZones, timeZonesNames } from '@vvo/tzdb'
import { formatOffset, offsetMinutes } from './offset.ts'

const current = new Set<string>(timeZonesNames)
const today = new Map<string, string>()
for (const zone of rawTimeZones) {
  for (const member of zone.group) {
    if (current.has(member) || today.has(member)) continue
    const sameCity = zone.group.find((other) => current.has(other) && city(other) === city(member))
    today.set(member, sameCity ?? zone.name)
  }
}
const LEGACY_UTC = new Set(['UTC', 'Etc/UTC', 'Etc/UCT', 'Etc/GMT', 'Etc/Universal', 'Etc/Zulu', 'GMT', 'UCT', 'Universal', 'Zulu'])

function city(zone: string): string {
  return zone.slice(zone.lastIndexOf('/') + 1)
}

/** Today's IANA name of a zone from the zone database (`Asia/Calcutta` → `Asia/Kolkata`, `Europe/Kiev` → `Europe/Kyiv`). */
export function todaysZoneName(zone: string): string {
  return current.has(zone) ? zone : (today.get(zone) ?? zone)
}

/** The place a person reads for a zone: `America/New_York` → `New York`, `Asia/Calcutta` → `Kolkata`, `Etc/UTC` → `UTC`. */
export function zonePlace(zone: string): string {
  if (LEGACY_UTC.has(zone)) return 'UTC'
  return city(todaysZoneName(zone)).replace(/_/g, ' ')
}

/** The hover text of a zone: its IANA id as given and its offset now, `Asia/Calcutta · UTC+05:30`. */
export function zoneDetail(zone: string, instantMs: number): string {
  const minutes = offsetMinutes(zone, instantMs)
  return minutes === null ? zone : `${zone} · ${formatOffset(minutes)}`
}

import { rawTimeZones, timeZonesNames } from '@vvo/tzdb'

const current = new Set<string>(timeZonesNames)
/**
 * Old names that are not an old spelling of their group's zone but another place whose clock tzdb folded into it
 * (Coral Harbour keeps Panama's time, Ponape (Pohnpei) Kosrae's): they keep their own place's name.
 */
const OTHER_PLACES = new Set(['America/Coral_Harbour', 'Pacific/Ponape'])
const linkTargets = new Map<string, string>()
for (const zone of rawTimeZones) {
  for (const member of zone.group) {
    if (current.has(member) || linkTargets.has(member) || OTHER_PLACES.has(member)) continue
    const sameCity = zone.group.find((other) => current.has(other) && lastSegment(other) === lastSegment(member))
    linkTargets.set(member, sameCity ?? zone.name)
  }
}

function lastSegment(zone: string): string {
  const slash = zone.lastIndexOf('/')
  return slash === -1 ? zone : zone.slice(slash + 1)
}

/**
 * Today's IANA name of a zone from the maintained zone database: legacy links map to their current
 * zone (`Asia/Calcutta` → `Asia/Kolkata`, `Europe/Kiev` → `Europe/Kyiv`); other names stay as given.
 */
export function currentZoneName(zone: string): string {
  return current.has(zone) ? zone : (linkTargets.get(zone) ?? zone)
}

/** The place a person reads for a zone: `Europe/Berlin` → `Berlin`, `Asia/Calcutta` → `Kolkata`, `UTC` → `UTC`. */
export function zonePlace(zone: string): string {
  if (zone === 'UTC' || zone === 'Etc/UTC' || zone === 'Etc/GMT' || zone === 'GMT') return 'UTC'
  return lastSegment(currentZoneName(zone)).replace(/_/g, ' ')
}

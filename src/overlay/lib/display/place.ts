import { currentZoneName, zonePlace } from '../../../protocol/index.ts'
import { formatOffset, offsetMinutes } from './offset.ts'

export { currentZoneName, zonePlace } from '../../../protocol/index.ts'

/** The hover text of a zone: its IANA id as given and its offset now, `Asia/Calcutta · UTC+05:30`. */
export function zoneDetail(zone: string, instantMs: number): string {
  const minutes = offsetMinutes(zone, instantMs)
  return minutes === null ? zone : `${zone} · ${formatOffset(minutes)}`
}

/** A zone as the zone picker lists it: its place, its offset now and today's IANA name, `Kolkata (UTC+05:30, Asia/Kolkata)`; each said once (`UTC`). */
export function zoneOption(zone: string, instantMs: number): string {
  const minutes = offsetMinutes(zone, instantMs)
  const place = zonePlace(zone)
  const details = [...new Set([minutes === null ? null : formatOffset(minutes), currentZoneName(zone)])].filter((part) => part !== null && part !== place)
  return details.length === 0 ? place : `${place} (${details.join(', ')})`
}

/**
 * Zones in the order the zone picker lists them: by region, then by the place they are shown as, so a person scanning
 * for their city finds it where its name sorts (`Kolkata` among the K's of Asia, though the runtime may call it
 * `Asia/Calcutta`; `Indianapolis` among the I's of America, not after `Indiana/Winamac`).
 */
export function zonesInListOrder(zones: readonly string[]): string[] {
  const keyed = zones.map((zone) => {
    const name = currentZoneName(zone)
    const slash = name.indexOf('/')
    return { zone, region: slash < 0 ? '' : name.slice(0, slash), place: zonePlace(zone) }
  })
  keyed.sort((a, b) => (a.region === b.region ? a.place.localeCompare(b.place, 'en') || a.zone.localeCompare(b.zone, 'en') : a.region < b.region ? -1 : 1))
  return keyed.map((entry) => entry.zone)
}

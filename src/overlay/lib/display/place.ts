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

import { formatOffset, offsetMinutes } from './offset.ts'

export { currentZoneName, zonePlace } from '../../../protocol/index.ts'

/** The hover text of a zone: its IANA id as given and its offset now, `Asia/Calcutta · UTC+05:30`. */
export function zoneDetail(zone: string, instantMs: number): string {
  const minutes = offsetMinutes(zone, instantMs)
  return minutes === null ? zone : `${zone} · ${formatOffset(minutes)}`
}


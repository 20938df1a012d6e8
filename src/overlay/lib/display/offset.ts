import { utcOffsetMinutes } from '../../../protocol/index.ts'

/** The zone's UTC offset in whole minutes at an instant (east positive), or null when the zone is unknown. */
export function offsetMinutes(timeZone: string, instantMs: number): number | null {
  try {
    return utcOffsetMinutes(timeZone, instantMs)
  } catch {
    return null
  }
}

/** An offset in minutes as `UTC+05:30`, `UTC−03:30` or `UTC` for zero. */
export function formatOffset(minutes: number): string {
  if (minutes === 0) return 'UTC'
  const sign = minutes > 0 ? '+' : '−'
  const abs = Math.abs(minutes)
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}

import { canonicalTimeZone } from './time-zone.ts'
import { wallClockAt, wallFieldsAsUtc } from './wall-clock.ts'

/** A parsed reading timestamp: the instant it names, its zone and UTC offset, and its parts as written. */
export type ZonedTimestamp = {
  epochMs: number
  zone: string
  offsetMinutes: number
  /** `YYYY-MM-DD` */
  date: string
  /** `HH:mm:ss` */
  time: string
  /** `±HH:MM` */
  offset: string
}

const TIMESTAMP = /^((\d{4})-(\d{2})-(\d{2}))T((\d{2}):(\d{2}):(\d{2}))(([+-])(\d{2}):(\d{2}))\[([^\]]+)\]$/
const MEMO_LIMIT = 1024
const lastFormatted = new Map<string, { epochSeconds: number; text: string }>()

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0')
}

/** `YYYY-MM-DDTHH:mm:ss±HH:MM[zone]` of an instant in a zone, floored to whole seconds (SPEC 5.4). */
export function formatZonedTimestamp(epochMs: number, zone: string): string {
  if (!Number.isFinite(epochMs)) throw new RangeError(`time-context: instant must be finite, got ${String(epochMs)}`)
  const epochSeconds = Math.floor(epochMs / 1000)
  const last = lastFormatted.get(zone)
  if (last !== undefined && last.epochSeconds === epochSeconds) return last.text
  const wall = wallClockAt(zone, epochSeconds * 1000)
  const local = wallFieldsAsUtc(wall)
  const offset = Math.round((local - epochSeconds * 1000) / 60_000)
  const sign = offset < 0 ? '-' : '+'
  const abs = Math.abs(offset)
  const text =
    `${pad(wall.year, 4)}-${pad(wall.month, 2)}-${pad(wall.day, 2)}` +
    `T${pad(wall.hour, 2)}:${pad(wall.minute, 2)}:${pad(wall.second, 2)}` +
    `${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}[${zone}]`
  if (lastFormatted.size >= MEMO_LIMIT) lastFormatted.clear()
  lastFormatted.set(zone, { epochSeconds, text })
  return text
}

/**
 * The instant, zone and offset of a timestamp exactly as `formatZonedTimestamp` renders it, else null.
 * The same test without building the text: the zone's wall clock at the instant the text names
 * must be the one written (then the offset the renderer derives is the one written too), and the
 * offset must be spelled as the renderer spells it (minutes below 60, a zero offset as `+00:00`).
 */
export function parseZonedTimestamp(text: string): ZonedTimestamp | null {
  const match = TIMESTAMP.exec(text)
  if (match === null) return null
  const zone = match[13]
  if (canonicalTimeZone(zone) === null) return null
  const offsetHours = Number(match[11])
  const offsetRest = Number(match[12])
  const negative = match[10] === '-'
  if (offsetRest >= 60 || (negative && offsetHours === 0 && offsetRest === 0)) return null
  const offsetMinutes = (negative ? -1 : 1) * (offsetHours * 60 + offsetRest)
  const year = Number(match[2])
  const month = Number(match[3])
  const day = Number(match[4])
  const hour = Number(match[6])
  const minute = Number(match[7])
  const second = Number(match[8])
  const epochMs = wallFieldsAsUtc({ year, month, day, hour, minute, second }) - offsetMinutes * 60_000
  if (!Number.isFinite(epochMs)) return null
  const wall = wallClockAt(zone, epochMs)
  if (wall.year !== year || wall.month !== month || wall.day !== day || wall.hour !== hour || wall.minute !== minute || wall.second !== second) {
    return null
  }
  return { epochMs, zone, offsetMinutes, date: match[1], time: match[5], offset: match[9] }
}

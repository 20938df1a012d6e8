import { canonicalTimeZone } from '../protocol/time-zone.ts'

/** A parsed zoned timestamp: the instant it names, its zone as written, and its UTC offset. */
export type ZonedTimestamp = { epochMs: number; zone: string; offsetMinutes: number }

type WallClock = { year: number; month: number; day: number; hour: number; minute: number; second: number }

const FORMATTED = /^(\d{2})\/(\d{2})\/(\d{4}), (\d{2}):(\d{2}):(\d{2})$/
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})([+-])(\d{2}):(\d{2})\[([^\]]+)\]$/
const FORMATTER_LIMIT = 1024
const formatters = new Map<string, Intl.DateTimeFormat>()
const lastFormatted = new Map<string, { epochSeconds: number; text: string }>()

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
    if (formatters.size >= FORMATTER_LIMIT) {
      formatters.clear()
      lastFormatted.clear()
    }
    formatters.set(zone, formatter)
  }
  return formatter
}

function wallClock(formatter: Intl.DateTimeFormat, epochMs: number): WallClock {
  const match = FORMATTED.exec(formatter.format(epochMs))
  if (match !== null) {
    return {
      year: Number(match[3]),
      month: Number(match[1]),
      day: Number(match[2]),
      hour: Number(match[4]),
      minute: Number(match[5]),
      second: Number(match[6]),
    }
  }
  const fields: Record<string, number> = {}
  for (const part of formatter.formatToParts(epochMs)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value)
  }
  return {
    year: fields.year,
    month: fields.month,
    day: fields.day,
    hour: fields.hour,
    minute: fields.minute,
    second: fields.second,
  }
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0')
}

/** `YYYY-MM-DDTHH:mm:ss±HH:MM[zone]` of an instant in a zone, floored to whole seconds (SPEC 5.4). */
export function formatZonedTimestamp(epochMs: number, zone: string): string {
  if (!Number.isFinite(epochMs)) throw new RangeError(`time-context: instant must be finite, got ${String(epochMs)}`)
  const epochSeconds = Math.floor(epochMs / 1000)
  const last = lastFormatted.get(zone)
  if (last !== undefined && last.epochSeconds === epochSeconds) return last.text
  const wall = wallClock(formatterFor(zone), epochSeconds * 1000)
  const local = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second)
  const offset = Math.round((local - epochSeconds * 1000) / 60_000)
  const sign = offset < 0 ? '-' : '+'
  const abs = Math.abs(offset)
  const text =
    `${pad(wall.year, 4)}-${pad(wall.month, 2)}-${pad(wall.day, 2)}` +
    `T${pad(wall.hour, 2)}:${pad(wall.minute, 2)}:${pad(wall.second, 2)}` +
    `${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}[${zone}]`
  lastFormatted.set(zone, { epochSeconds, text })
  return text
}

/** The instant, zone and offset of a timestamp exactly as `formatZonedTimestamp` renders it, else null. */
export function parseZonedTimestamp(text: string): ZonedTimestamp | null {
  const match = TIMESTAMP.exec(text)
  if (match === null) return null
  const zone = match[10]
  if (canonicalTimeZone(zone) === null) return null
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number)
  const offsetMinutes = (match[7] === '-' ? -1 : 1) * (Number(match[8]) * 60 + Number(match[9]))
  const epochMs = Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000
  if (!Number.isFinite(epochMs) || formatZonedTimestamp(epochMs, zone) !== text) return null
  return { epochMs, zone, offsetMinutes }
}

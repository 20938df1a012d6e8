/** The wall-clock reading of an instant in a zone, whole seconds; years before 1 CE are astronomical (1 BC = 0). */
export type WallClock = { year: number; month: number; day: number; hour: number; minute: number; second: number }

const FORMATTED = /^(\d{2})\/(\d{2})\/(\d+) (AD|BC), (\d{2}):(\d{2}):(\d{2})$/
const FORMATTER_LIMIT = 1024
const formatters = new Map<string, Intl.DateTimeFormat>()

/** The one cached `en-US` formatter per zone that every wall-clock reading goes through (bounded). */
export function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    if (formatters.size >= FORMATTER_LIMIT) formatters.clear()
    formatters.set(timeZone, formatter)
  }
  return formatter
}

function astronomicalYear(yearOfEra: number, era: string | undefined): number {
  return era === 'BC' ? 1 - yearOfEra : yearOfEra
}

function twoDigits(text: string, at: number): number {
  const high = text.charCodeAt(at) - 48
  const low = text.charCodeAt(at + 1) - 48
  return high >= 0 && high <= 9 && low >= 0 && low <= 9 ? high * 10 + low : -1
}

/** `MM/DD/YYYY AD, HH:mm:ss` read by position (the common shape, without a regular expression), else null. */
function fixedWidth(text: string): WallClock | null {
  if (text.length !== 23 || text.slice(10, 15) !== ' AD, ' || text[2] !== '/' || text[5] !== '/' || text[17] !== ':' || text[20] !== ':') return null
  const month = twoDigits(text, 0)
  const day = twoDigits(text, 3)
  const century = twoDigits(text, 6)
  const years = twoDigits(text, 8)
  const hour = twoDigits(text, 15)
  const minute = twoDigits(text, 18)
  const second = twoDigits(text, 21)
  if (month < 0 || day < 0 || century < 0 || years < 0 || hour < 0 || minute < 0 || second < 0) return null
  return { year: century * 100 + years, month, day, hour, minute, second }
}

/** The last second read per zone, its fields copied (a reading is rendered and then validated at the same second, and many Sessions read the same one). */
type LastRead = { at: number; year: number; month: number; day: number; hour: number; minute: number; second: number }
const lastRead = new Map<string, LastRead>()

/** The wall clock of an instant (floored to the second) in a valid IANA zone; throws RangeError for an unknown zone. */
export function wallClockAt(timeZone: string, epochMs: number): WallClock {
  const wholeSecond = Math.floor(epochMs / 1000) * 1000
  let last = lastRead.get(timeZone)
  if (last !== undefined && last.at === wholeSecond) {
    return { year: last.year, month: last.month, day: last.day, hour: last.hour, minute: last.minute, second: last.second }
  }
  const wall = readWallClock(timeZone, wholeSecond)
  if (last === undefined) {
    if (lastRead.size >= FORMATTER_LIMIT) lastRead.clear()
    last = { at: wholeSecond, ...wall }
    lastRead.set(timeZone, last)
  } else {
    Object.assign(last, wall)
    last.at = wholeSecond
  }
  return wall
}

function readWallClock(timeZone: string, wholeSecond: number): WallClock {
  const formatter = zoneFormatter(timeZone)
  const text = formatter.format(wholeSecond)
  const fixed = fixedWidth(text)
  if (fixed !== null) return fixed
  const match = FORMATTED.exec(text)
  if (match !== null) {
    return {
      year: astronomicalYear(Number(match[3]), match[4]),
      month: Number(match[1]),
      day: Number(match[2]),
      hour: Number(match[5]),
      minute: Number(match[6]),
      second: Number(match[7]),
    }
  }
  const fields: Record<string, string> = {}
  for (const part of formatter.formatToParts(wholeSecond)) fields[part.type] = part.value
  return {
    year: astronomicalYear(Number(fields.year), fields.era),
    month: Number(fields.month),
    day: Number(fields.day),
    hour: Number(fields.hour),
    minute: Number(fields.minute),
    second: Number(fields.second),
  }
}

/** The UTC offset, in milliseconds east of UTC (whole seconds), that a valid IANA zone has at an instant (throws RangeError for an unknown zone). */
export function utcOffsetMs(timeZone: string, epochMs: number): number {
  const wholeSecond = Math.floor(epochMs / 1000) * 1000
  const wall = wallClockAt(timeZone, wholeSecond)
  // setUTCFullYear, not Date.UTC: years 0–99 stay themselves
  const asUtc = new Date(0)
  asUtc.setUTCFullYear(wall.year, wall.month - 1, wall.day)
  asUtc.setUTCHours(wall.hour, wall.minute, wall.second, 0)
  return asUtc.getTime() - wholeSecond
}

/** The UTC offset, in minutes east of UTC, that a valid IANA zone has at an instant (throws RangeError for an unknown zone). */
export function utcOffsetMinutes(timeZone: string, epochMs: number): number {
  return Math.round(utcOffsetMs(timeZone, epochMs) / 60_000)
}

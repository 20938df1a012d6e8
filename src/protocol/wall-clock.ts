/** The wall-clock reading of an instant in a zone, whole seconds; years before 1 CE are astronomical (1 BC = 0). */
export type WallClock = { year: number; month: number; day: number; hour: number; minute: number; second: number }

const FORMATTED = /^(\d{2})\/(\d{2})\/(\d+) (AD|BC), (\d{2}):(\d{2}):(\d{2})$/
const ZONE_LIMIT = 1024

/**
 * What is kept per zone (bounded): its one `en-US` formatter, and the last second read in it with
 * its fields (a reading is rendered and then validated at the same second, and many Sessions read
 * the same one).
 */
type ZoneEntry = { formatter: Intl.DateTimeFormat; at: number; year: number; month: number; day: number; hour: number; minute: number; second: number }
const zones = new Map<string, ZoneEntry>()

function zoneEntry(timeZone: string): ZoneEntry {
  let entry = zones.get(timeZone)
  if (entry === undefined) {
    const formatter = new Intl.DateTimeFormat('en-US', {
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
    if (zones.size >= ZONE_LIMIT) zones.clear()
    entry = { formatter, at: Number.NaN, year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 }
    zones.set(timeZone, entry)
  }
  return entry
}

/** The one cached `en-US` formatter per zone that every wall-clock reading goes through (bounded). */
export function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  return zoneEntry(timeZone).formatter
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

/** The wall clock of an instant (floored to the second) in a valid IANA zone; throws RangeError for an unknown zone. */
export function wallClockAt(timeZone: string, epochMs: number): WallClock {
  const wholeSecond = Math.floor(epochMs / 1000) * 1000
  const entry = zoneEntry(timeZone)
  if (entry.at !== wholeSecond) {
    Object.assign(entry, readWallClock(entry.formatter, wholeSecond))
    entry.at = wholeSecond
  }
  return { year: entry.year, month: entry.month, day: entry.day, hour: entry.hour, minute: entry.minute, second: entry.second }
}

function readWallClock(formatter: Intl.DateTimeFormat, wholeSecond: number): WallClock {
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

/** Wall-clock fields read as if they were UTC: the epoch milliseconds of the same fields in UTC (years 0–99 stay themselves). */
export function wallFieldsAsUtc(wall: WallClock & { millisecond?: number }): number {
  // setUTCFullYear, not Date.UTC: years 0–99 stay themselves
  const asUtc = new Date(0)
  asUtc.setUTCFullYear(wall.year, wall.month - 1, wall.day)
  asUtc.setUTCHours(wall.hour, wall.minute, wall.second, wall.millisecond ?? 0)
  return asUtc.getTime()
}

/** The UTC offset, in milliseconds east of UTC (whole seconds), that a valid IANA zone has at an instant (throws RangeError for an unknown zone). */
export function utcOffsetMs(timeZone: string, epochMs: number): number {
  const wholeSecond = Math.floor(epochMs / 1000) * 1000
  return wallFieldsAsUtc(wallClockAt(timeZone, wholeSecond)) - wholeSecond
}

/** A zone's UTC offset at an instant, in milliseconds east of UTC, as `utcOffsetMs` reads it (one that remembers what it read may stand in). */
export type OffsetAt = (epochMs: number) => number

const OFFSET_SAMPLE_MS = 6 * 3_600_000
const OFFSET_SAMPLES = 4

/** A zone's offsets read through Intl each time. */
export function intlOffsets(timeZone: string): OffsetAt {
  return (epochMs) => utcOffsetMs(timeZone, epochMs)
}

/**
 * The UTC offsets a valid zone has within a day either side of a wall time read as UTC (`wallMs`, from
 * `wallFieldsAsUtc`), sampled every 6 hours: every offset a wall time there can be read with.
 */
export function zoneOffsetsNear(timeZone: string, wallMs: number, offsetAt: OffsetAt = intlOffsets(timeZone)): number[] {
  const offsets = new Set<number>()
  for (let step = -OFFSET_SAMPLES; step <= OFFSET_SAMPLES; step += 1) offsets.add(offsetAt(wallMs + step * OFFSET_SAMPLE_MS))
  return [...offsets]
}

/**
 * Every instant whose wall clock in a valid zone reads exactly `wall` (milliseconds included), earliest first: none
 * in a gap a clock change skips, two in an overlap it repeats. Each candidate is kept only if it reads back the same.
 */
export function instantsForWallTime(wall: WallClock & { millisecond?: number }, timeZone: string, offsetAt: OffsetAt = intlOffsets(timeZone)): number[] {
  const wallMs = wallFieldsAsUtc(wall)
  const instants = new Set<number>()
  for (const offset of zoneOffsetsNear(timeZone, wallMs, offsetAt)) {
    const candidate = wallMs - offset
    const wholeSecond = Math.floor(candidate / 1000) * 1000
    if (wholeSecond + offsetAt(wholeSecond) + (candidate - wholeSecond) === wallMs) instants.add(candidate)
  }
  return [...instants].sort((a, b) => a - b)
}

/** The UTC offset, in minutes east of UTC, that a valid IANA zone has at an instant (throws RangeError for an unknown zone). */
export function utcOffsetMinutes(timeZone: string, epochMs: number): number {
  return Math.round(utcOffsetMs(timeZone, epochMs) / 60_000)
}

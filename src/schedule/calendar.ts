import { Temporal } from 'temporal-polyfill'
import { ruleMinutesOfDay, wallFieldsAsUtc, type CalendarRule } from '../protocol/index.ts'
import { daysInMonth, MAX_INSTANT_MS, resolveWallTime, type LocalDate, type LocalDateTime } from './absolute-time.ts'
import { countingOf, countOn, seriesOf, seriesWalls, type Counting, type Series } from './rule-walls.ts'
import { zoneOffsetReader } from './zone-offsets.ts'

/** What a calendar reminder's occurrences follow: the rule, its zone and the local date the series starts on. */
export type CalendarSpec = { readonly rrule: string; readonly rule: CalendarRule; readonly timeZone: string; readonly starts: LocalDate }

/** One occurrence: its wall time in the zone as the rule names it, and the instant it resolved to. */
export type Occurrence = { wall: LocalDateTime; instant: number; shifted: boolean }

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
/** Widest distance between a wall time and its instant: UTC offsets span −12 h..+14 h, plus a gap. */
const WALL_MARGIN_MS = 26 * HOUR_MS
const FIRST_WINDOW_MS = 8 * DAY_MS
/** Longest window of wall times looked at once. */
const MAX_WINDOW_MS = 9_000 * DAY_MS
/** Most wall times a search makes at once: a rule of every 5 minutes has 2,300 in a first window of 8 days. */
const WALL_BATCH = 512
/** How far ahead a next occurrence is searched for before the series counts as having none. */
const SEARCH_HORIZON_MS = 100 * 366 * DAY_MS
/** Most periods of the rule's frequency one search walks through, so no rule costs more than a bounded expansion. */
export const SEARCH_PERIODS = 20_000
/** The shortest length of each frequency's period: a span of n of them holds at most n + 1 periods. */
const SHORTEST_PERIOD_MS: Record<CalendarRule['freq'], number> = { DAILY: DAY_MS, WEEKLY: 7 * DAY_MS, MONTHLY: 28 * DAY_MS, YEARLY: 365 * DAY_MS }
const CACHE_LIMIT = 512
/** The last year a YEARLY rule counting its ordinals within the year reaches. */
const LAST_YEAR = 9999

/** The first wall time of the series: `starts` at the rule's earliest time of day. */
export function seriesStart(spec: CalendarSpec): LocalDateTime {
  return { ...spec.starts, hour: spec.rule.byHour[0], minute: spec.rule.byMinute[0], second: 0, millisecond: 0 }
}

/** True for a YEARLY rule with an ordinal BYDAY and no BYMONTH (`BYDAY=53MO`: the 53rd Monday of the year). */
function countsWeekdaysInYear(rule: CalendarRule): boolean {
  return rule.freq === 'YEARLY' && rule.byMonth === null && rule.byDay !== null && rule.byDay.some((d) => d.ordinal !== null)
}

/** Per rule and start: its series (a rule of every minute has 1,440 times of day to list). */
const serieses = new Map<string, Series>()

/**
 * The spec's series, whose wall times `rule-walls.ts` makes. They reach as far as each rule's did when rrule-temporal
 * expanded them: to the end of an UNTIL, else as far as asked; but for a YEARLY rule counting its ordinals within the
 * year, which Schedule expanded year by year, no further than the last instant (without UNTIL) and year 9999.
 */
function seriesOfSpec(spec: CalendarSpec): Series {
  const key = `${spec.rrule}|${spec.starts.year}-${spec.starts.month}-${spec.starts.day}`
  const known = serieses.get(key)
  if (known !== undefined) return known
  const { rule } = spec
  const withinYears = countsWeekdaysInYear(rule)
  const until = rule.end.kind === 'until-date' || rule.end.kind === 'until-instant' || withinYears ? untilWall(rule) : Infinity
  const series = seriesOf(rule, spec.starts, until, withinYears ? LAST_YEAR : Infinity)
  if (serieses.size >= CACHE_LIMIT) serieses.clear()
  serieses.set(key, series)
  return series
}

/** Most periods (of FREQ and INTERVAL) past its start a series' COUNT is counted through: one that has not ended by then lasts longer than any search looks (a century, `SEARCH_PERIODS`). */
const COUNTED_PERIODS = 100_000

/** Per rule and start: the counting of its COUNT so far, carried on as later wall times are asked for. */
const countings = new Map<string, Counting>()

/**
 * The wall time (floating) of a series' `count`th occurrence when the counting, from its start on the rule without
 * its COUNT, finds it by `throughFloating`; null when the series has not ended by then (or goes on past
 * `COUNTED_PERIODS` periods or the year 9999). Wall times count as the rule makes them (two folded together by a gap
 * count twice, as RFC 5545 counts them). The counting goes only as far as wall times are asked for, and never twice
 * over the same ones: a search over the century after a series' start does not count the millennium a COUNT of a
 * rare day can run.
 */
function countedEndBy(spec: CalendarSpec, count: number, throughFloating: number): number | null {
  const key = `${spec.rrule}|${spec.starts.year}-${spec.starts.month}-${spec.starts.day}`
  const series = seriesOfSpec(spec)
  let counting = countings.get(key)
  if (counting === undefined) {
    counting = countingOf(series)
    if (countings.size >= CACHE_LIMIT) countings.clear()
    countings.set(key, counting)
  }
  const limit = Math.min(series.dtstart + COUNTED_PERIODS * spec.rule.interval * SHORTEST_PERIOD_MS[spec.rule.freq], MAX_INSTANT_MS + 366 * DAY_MS + WALL_MARGIN_MS)
  countOn(series, counting, count, throughFloating, limit)
  return counting.last
}

function wallOf(floatingMs: number): LocalDateTime {
  const d = new Date(floatingMs)
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: 0,
    millisecond: 0,
  }
}

function untilInstant(spec: CalendarSpec): number {
  return spec.rule.end.kind === 'until-instant' ? spec.rule.end.epochMs : MAX_INSTANT_MS
}

/** The last wall time (floating) the series may reach: the end of an UNTIL date, an UNTIL instant plus the widest offset, or none. */
function untilWall(rule: CalendarRule): number {
  switch (rule.end.kind) {
    case 'until-date':
      return wallFieldsAsUtc({ ...rule.end, hour: 23, minute: 59, second: 59, millisecond: 0 })
    case 'until-instant':
      return rule.end.epochMs + WALL_MARGIN_MS
    case 'count':
    case 'never':
      return MAX_INSTANT_MS
    default: {
      const unreachable: never = rule.end
      return unreachable
    }
  }
}

/** The rule's wall times (floating milliseconds) in `[fromFloating, toFloating]`, earliest first, at most `most` of them. */
function wallsBetween(spec: CalendarSpec, fromFloating: number, toFloating: number, most = Infinity): number[] {
  const { rule } = spec
  if (rule.end.kind !== 'count') return seriesWalls(seriesOfSpec(spec), fromFloating, toFloating, most)
  const last = countedEndBy(spec, rule.end.count, toFloating)
  const to = last === null ? toFloating : Math.min(toFloating, last)
  return to < fromFloating ? [] : seriesWalls(seriesOfSpec(spec), fromFloating, to, most)
}

/** The occurrences of the rule's wall times in `[fromFloating, toFloating]` whose instants lie in `[fromMs, toMs]`, unsorted. */
function resolvedBetween(spec: CalendarSpec, fromFloating: number, toFloating: number, fromMs: number, toMs: number): Occurrence[] {
  const out: Occurrence[] = []
  const offsets = zoneOffsetReader(spec.timeZone)
  for (const floating of wallsBetween(spec, fromFloating, Math.min(toFloating, MAX_INSTANT_MS))) {
    const wall = wallOf(floating)
    const resolved = resolveWallTime(wall, wall, spec.timeZone, offsets)
    if (resolved.instant >= fromMs && resolved.instant <= toMs) out.push({ wall, instant: resolved.instant, shifted: resolved.shifted })
  }
  return out
}

/** Occurrences sorted by instant, wall times that resolve to one instant (two wall times folded together by a gap) once. */
function byInstant(occurrences: Occurrence[]): Occurrence[] {
  occurrences.sort((a, b) => a.instant - b.instant)
  return occurrences.filter((o, i) => i === 0 || o.instant !== occurrences[i - 1].instant)
}

function windowBetween(spec: CalendarSpec, fromMs: number, toMs: number): Occurrence[] {
  return resolvedBetween(spec, fromMs - WALL_MARGIN_MS, toMs + WALL_MARGIN_MS, fromMs, toMs)
}

/**
 * The occurrences whose instants lie in `[fromMs, toMs]`, earliest first. Wall times that resolve
 * to one instant (two wall times folded together by a gap) count once.
 */
export function occurrencesBetween(spec: CalendarSpec, fromMs: number, toMs: number): Occurrence[] {
  const last = Math.min(toMs, untilInstant(spec), MAX_INSTANT_MS)
  const out: Occurrence[] = []
  // one at a time: a window of a long stretch holds more occurrences than a call can take as arguments
  for (let from = fromMs; from <= last; from += MAX_WINDOW_MS) for (const occurrence of windowBetween(spec, from, Math.min(from + MAX_WINDOW_MS - 1, last))) out.push(occurrence)
  return byInstant(out)
}

function searchSpanMs(rule: CalendarRule): number {
  return Math.min(SEARCH_HORIZON_MS, SEARCH_PERIODS * rule.interval * SHORTEST_PERIOD_MS[rule.freq])
}

/** The instant of the `n`th occurrence among these (wall times that resolve to one instant count once), or null when fewer. */
function nthInstant(occurrences: readonly Occurrence[], n: number): number | null {
  const instants = [...new Set(occurrences.map((o) => o.instant))].sort((a, b) => a - b)
  return instants.length < n ? null : instants[n - 1]
}

/**
 * The first `n` occurrences strictly after `afterMs`, fewer when the series ends or none lies within
 * the search: a century, and at most `SEARCH_PERIODS` periods of the rule's frequency, counted from
 * `afterMs` or from the series start when that is later. Wall times are made and resolved from the
 * earliest on, a batch at a time, until the `n`th occurrence lies more than the widest distance
 * between a wall time and its instant before the last wall time made: no later one can resolve before it.
 */
export function occurrencesAfter(spec: CalendarSpec, afterMs: number, n: number): Occurrence[] {
  const begin = Math.max(afterMs, wallFieldsAsUtc(seriesStart(spec)) - WALL_MARGIN_MS)
  const last = Math.min(begin + searchSpanMs(spec.rule), MAX_INSTANT_MS, untilInstant(spec))
  const lastWall = Math.min(last + WALL_MARGIN_MS, MAX_INSTANT_MS)
  const offsets = zoneOffsetReader(spec.timeZone)
  const found: Occurrence[] = []
  let from = begin + 1 - WALL_MARGIN_MS
  let span = FIRST_WINDOW_MS
  while (n > 0 && begin < last && from <= lastWall) {
    const to = Math.min(from + span - 1, lastWall)
    const walls = wallsBetween(spec, from, to, WALL_BATCH)
    for (const floating of walls) {
      const wall = wallOf(floating)
      const resolved = resolveWallTime(wall, wall, spec.timeZone, offsets)
      if (resolved.instant > begin && resolved.instant <= last) found.push({ wall, instant: resolved.instant, shifted: resolved.shifted })
    }
    if (walls.length === WALL_BATCH) {
      from = walls[walls.length - 1] + 1
    } else {
      from = to + 1
      span = Math.min(span * 4, MAX_WINDOW_MS)
    }
    const nth = nthInstant(found, n)
    if (nth !== null && nth < from - 1 - WALL_MARGIN_MS) break
  }
  return byInstant(found).slice(0, n)
}

/** Where `closeAtClockChanges` stops for a series with COUNT: `horizon`, or the instant of its last wall time when that comes first. */
function countedSpanEnd(spec: CalendarSpec, horizon: number): number {
  const { rule } = spec
  if (rule.end.kind !== 'count') return horizon
  const lastWall = countedEndBy(spec, rule.end.count, horizon + WALL_MARGIN_MS)
  return lastWall === null ? horizon : Math.min(horizon, lastWall + WALL_MARGIN_MS)
}

/** One change of a zone's UTC offset: its instant, the offsets before and after it, and the changes either side of it. */
type ClockChange = { atMs: number; before: number; after: number; previousMs: number; nextMs: number }

/**
 * The wall times (floating) around a clock change that can lie closer to an occurrence on its other
 * side than their wall times do: those within `minGapMs` plus the size of the change of the two wall
 * times the change moves between. A wall time farther out keeps one offset, so it lies at least
 * `minGapMs` from any occurrence on the other side, and from its neighbours on its own side as far as
 * their wall times do. `alone`: no other change within a day of those wall times.
 */
function clockChangeWalls(change: ClockChange, minGapMs: number): { from: number; to: number; alone: boolean } {
  const { atMs, before, after } = change
  const reach = minGapMs + Math.abs(after - before)
  const from = atMs + Math.min(before, after) - reach
  const to = atMs + Math.max(before, after) + reach
  return { from, to, alone: change.previousMs < from - before - DAY_MS && change.nextMs > to - after + DAY_MS }
}

/**
 * The occurrences around one clock change whose instants lie in `(afterMs, lastMs]`, by instant. For a
 * change alone, only the wall times of `clockChangeWalls`: one before the later of the change's two wall
 * times reads with the offset before it (a wall time in a gap moves forward by the gap's length, one in
 * an overlap is the earlier instant), a later one with the offset after it. Else every occurrence within
 * a day of the change, each wall time resolved.
 */
function aroundClockChange(spec: CalendarSpec, change: ClockChange, afterMs: number, lastMs: number, minGapMs: number): Occurrence[] {
  const { atMs, before, after } = change
  const walls = clockChangeWalls(change, minGapMs)
  if (!walls.alone) return occurrencesBetween(spec, Math.max(afterMs + 1, atMs - DAY_MS), Math.min(atMs + DAY_MS, lastMs))
  const out: Occurrence[] = []
  for (const floating of wallsBetween(spec, walls.from, Math.min(walls.to, MAX_INSTANT_MS))) {
    const readBefore = floating < atMs + Math.max(before, after)
    const instant = floating - (readBefore ? before : after)
    if (instant > afterMs && instant <= lastMs) out.push({ wall: wallOf(floating), instant, shifted: readBefore && floating >= atMs + before })
  }
  return byInstant(out)
}

/**
 * A lower bound on the distance between any two wall times of the rule: the closest two of its times of
 * day, or its last time of one day and its first of the next.
 */
function closestWallsMs(rule: CalendarRule): number {
  const times = ruleMinutesOfDay(rule)
  let closest = 24 * 60 - (times[times.length - 1] - times[0])
  for (let i = 1; i < times.length; i += 1) closest = Math.min(closest, times[i] - times[i - 1])
  return closest * 60_000
}

/**
 * Two consecutive occurrences after `afterMs` less than `minGapMs` apart around a change of the zone's
 * UTC offset, or null. Elsewhere an occurrence lies as far from the next as their wall times do; a
 * change of offset (a wall time moved out of a gap, or two either side of it) can bring them closer,
 * on a night far from where a series starts (a rule of the 14th of each month meets a spring-forward
 * night of New York only in some years). Every change up to where `occurrencesAfter` stops searching
 * is looked at (a zone changes its offset about twice a year), each by expanding the rule only in the
 * hours around it.
 */
export function closeAtClockChanges(spec: CalendarSpec, afterMs: number, minGapMs: number): [Occurrence, Occurrence] | null {
  const lastMs = Math.min(untilInstant(spec), MAX_INSTANT_MS)
  const horizon = countedSpanEnd(spec, Math.min(afterMs + searchSpanMs(spec.rule), lastMs))
  const closest = closestWallsMs(spec.rule)
  const start = Temporal.Instant.fromEpochMilliseconds(afterMs).toZonedDateTimeISO(spec.timeZone)
  let before = start.offsetNanoseconds / 1e6
  let previousMs = start.getTimeZoneTransition('previous')?.epochMilliseconds ?? -Infinity
  let change = start.getTimeZoneTransition('next')
  while (change !== null && change.epochMilliseconds <= horizon) {
    const next = change.getTimeZoneTransition('next')
    const after = change.offsetNanoseconds / 1e6
    const clockChange: ClockChange = { atMs: change.epochMilliseconds, before, after, previousMs, nextMs: next?.epochMilliseconds ?? Infinity }
    // a change alone brings occurrences closer by at most the time it moves the clock forward, and never when it moves it back
    if (!clockChangeWalls(clockChange, minGapMs).alone || closest < minGapMs + Math.max(0, after - before)) {
      const around = aroundClockChange(spec, clockChange, afterMs, lastMs, minGapMs)
      for (let j = 1; j < around.length; j += 1) {
        if (around[j].instant - around[j - 1].instant < minGapMs) return [around[j - 1], around[j]]
      }
    }
    before = after
    previousMs = change.epochMilliseconds
    change = next
  }
  return null
}

/** The first occurrence strictly after `afterMs`, or null when the series has none. */
export function firstOccurrenceAfter(spec: CalendarSpec, afterMs: number): Occurrence | null {
  return occurrencesAfter(spec, afterMs, 1)[0] ?? null
}

/**
 * True iff a search for occurrences after `afterMs` stops at year 9999 (not at its span) and the series
 * goes on past it: before its end, it has a wall time within a year after the last accepted instant,
 * or one of 31 December 9999 that lies in 10000 in the zone (west of UTC).
 */
export function continuesPastLastInstant(spec: CalendarSpec, afterMs: number): boolean {
  if (spec.rule.end.kind === 'until-instant') return false
  if (Math.max(afterMs, wallFieldsAsUtc(seriesStart(spec)) - WALL_MARGIN_MS) + searchSpanMs(spec.rule) < MAX_INSTANT_MS) return false
  const windows = [[MAX_INSTANT_MS - WALL_MARGIN_MS, MAX_INSTANT_MS + FIRST_WINDOW_MS], [MAX_INSTANT_MS + FIRST_WINDOW_MS + 1, MAX_INSTANT_MS + 366 * DAY_MS]]
  const offsets = zoneOffsetReader(spec.timeZone)
  for (const [fromFloating, toFloating] of windows) {
    for (const floating of wallsBetween(spec, fromFloating, toFloating)) {
      if (floating > MAX_INSTANT_MS) return true
      const wall = wallOf(floating)
      if (resolveWallTime(wall, wall, spec.timeZone, offsets).instant > MAX_INSTANT_MS) return true
    }
  }
  return false
}

/** True iff some month the rule allows has a day the rule's BYMONTHDAY names (Feb 30 never comes). */
export function monthDaysCanOccur(rule: CalendarRule): boolean {
  if (rule.byMonthDay === null) return true
  const months = rule.byMonth ?? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
  return months.some((month) => rule.byMonthDay?.some((day) => Math.abs(day) <= daysInMonth(2024, month)) === true)
}

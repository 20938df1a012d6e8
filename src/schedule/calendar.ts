import { RRuleTemporal, type RRuleOptions } from 'rrule-temporal'
import { Temporal } from 'temporal-polyfill'
import { atSetPositions, ruleMinutesOfDay, setPositionIndexes, wallFieldsAsUtc, WEEKDAYS, withStartDays, type CalendarRule } from '../protocol/index.ts'
import { daysInMonth, MAX_INSTANT_MS, resolveWallTime, type LocalDate, type LocalDateTime } from './absolute-time.ts'
import { expandsYearlyWeekdays, yearlyWeekdayWalls } from './yearly-weekdays.ts'
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
/** Longest window handed to the library at once (its period scan is capped at 10,000 periods). */
const MAX_WINDOW_MS = 9_000 * DAY_MS
/** How far ahead a next occurrence is searched for before the series counts as having none. */
const SEARCH_HORIZON_MS = 100 * 366 * DAY_MS
/** Most periods of the rule's frequency one search walks through, so no rule costs more than a bounded expansion. */
export const SEARCH_PERIODS = 20_000
/** The shortest length of each frequency's period: a span of n of them holds at most n + 1 periods. */
const SHORTEST_PERIOD_MS: Record<CalendarRule['freq'], number> = { DAILY: DAY_MS, WEEKLY: 7 * DAY_MS, MONTHLY: 28 * DAY_MS, YEARLY: 365 * DAY_MS }
const CACHE_LIMIT = 512

/** A rule's expander, and the minutes of the day its wall times are kept at (null: all). */
type Expander = { library: RRuleTemporal; kept: ReadonlySet<number> | null }

const expanders = new Map<string, Expander>()

function floatingZoned(wall: LocalDateTime): Temporal.ZonedDateTime {
  return Temporal.Instant.fromEpochMilliseconds(wallFieldsAsUtc(wall)).toZonedDateTimeISO('UTC')
}

/** The first wall time of the series: `starts` at the rule's earliest time of day. */
export function seriesStart(spec: CalendarSpec): LocalDateTime {
  return { ...spec.starts, hour: spec.rule.byHour[0], minute: spec.rule.byMinute[0], second: 0, millisecond: 0 }
}

/** A DAILY rule's BYSETPOS pick, expanded without BYSETPOS: the lists handed to the library, and the minutes of the day kept (null: all). */
type DailyPick = { byHour: number[]; byMinute: number[]; kept: ReadonlySet<number> | null }

/**
 * The times of day a DAILY rule's BYSETPOS picks (each day holds the same candidate times, so the pick
 * is the same every day), as the BYHOUR and BYMINUTE lists of the hours and minutes picked; when the
 * picked times are not every pair of those (BYSETPOS=1,-1 of every 5 minutes: 00:00 and 23:55, not
 * 00:55 or 23:00), the expanded wall times are kept only at the picked minutes of the day (a COUNT
 * counts only what is kept: see `countedEndBy`). Null without BYSETPOS.
 * rrule-temporal 2.2.8 spends milliseconds a day on BYSETPOS (17 s for one create of every 5 minutes
 * with BYSETPOS=-1), and nothing on the lists.
 */
function dailySelection(rule: CalendarRule): DailyPick | null {
  if (rule.freq !== 'DAILY' || rule.bySetPos === null) return null
  const chosen = atSetPositions(ruleMinutesOfDay(rule), rule.bySetPos)
  const byHour = [...new Set(chosen.map((time) => Math.floor(time / 60)))]
  const byMinute = [...new Set(chosen.map((time) => time % 60))].sort((a, b) => a - b)
  return { byHour, byMinute, kept: byHour.length * byMinute.length === chosen.length ? null : new Set(chosen) }
}

/**
 * The library expands the rule on wall-clock dates only: it runs in UTC, which has no clock changes,
 * so no occurrence is dropped; each wall time is resolved in the real zone by `resolveWallTime`.
 */
function expander(spec: CalendarSpec): Expander {
  const key = `${spec.rrule}|${spec.starts.year}-${spec.starts.month}-${spec.starts.day}|${spec.rule.end.kind}`
  const cached = expanders.get(key)
  if (cached !== undefined) return cached
  const { rule } = spec
  if (picksSetPositions(rule)) return remember(key, { library: new RRuleTemporal(periodDaysOptions(spec)), kept: null })
  const options: Extract<RRuleOptions, { freq: string }> = {
    freq: rule.freq,
    interval: rule.interval,
    byHour: rule.byHour,
    byMinute: rule.byMinute,
    bySecond: [0],
    tzid: 'UTC',
    dtstart: floatingZoned(seriesStart(spec)),
    cache: false,
  }
  if (rule.byDay !== null) options.byDay = rule.byDay.map((d) => `${d.ordinal ?? ''}${d.weekday}`)
  if (rule.byMonthDay !== null) options.byMonthDay = rule.byMonthDay
  if (rule.byMonth !== null) options.byMonth = rule.byMonth
  const selection = dailySelection(rule)
  if (selection !== null) Object.assign(options, { byHour: selection.byHour, byMinute: selection.byMinute })
  else if (rule.bySetPos !== null) options.bySetPos = rule.bySetPos
  if (rule.wkst !== null) options.wkst = rule.wkst
  switch (rule.end.kind) {
    case 'count':
      // never handed to the library, which counts a COUNT from the series start on every window and gives up past
      // 10,000 periods: `wallsBetween` expands the rule without it up to its counted end (`countedEndBy`)
      break
    case 'until-date':
    case 'until-instant':
      options.until = Temporal.Instant.fromEpochMilliseconds(untilWall(rule)).toZonedDateTimeISO('UTC')
      break
    case 'never':
      break
    default: {
      const unreachable: never = rule.end
      return unreachable
    }
  }
  return remember(key, { library: new RRuleTemporal(options), kept: selection?.kept ?? null })
}

function remember(key: string, created: Expander): Expander {
  if (expanders.size >= CACHE_LIMIT) expanders.clear()
  expanders.set(key, created)
  return created
}

/**
 * True for a WEEKLY, MONTHLY or YEARLY rule with BYSETPOS (but the YEARLY ordinals `yearlyWeekdayWalls` expands):
 * its positions are picked by `setPositionWalls`, never by rrule-temporal 2.2.8, which spends time on each period in
 * proportion to the largest position (a weekly BYSETPOS=366 of every 5 minutes took 12 ms a week, so a COUNT counted
 * over a century held the event loop for a minute, and from a series started centuries ago for many minutes).
 */
function picksSetPositions(rule: CalendarRule): boolean {
  return rule.bySetPos !== null && rule.freq !== 'DAILY' && !expandsYearlyWeekdays(rule)
}

/** The first day (floating, 00:00) of the period of the rule's frequency holding the floating instant: its week (from WKST, default Monday), month or year. */
function periodStart(rule: CalendarRule, floating: number): number {
  const d = new Date(Math.floor(floating / DAY_MS) * DAY_MS)
  if (rule.freq === 'WEEKLY') {
    const back = ((d.getUTCDay() + 6) % 7 - WEEKDAYS.indexOf(rule.wkst ?? 'MO') + 7) % 7
    return d.getTime() - back * DAY_MS
  }
  d.setUTCFullYear(d.getUTCFullYear(), rule.freq === 'YEARLY' ? 0 : d.getUTCMonth(), 1)
  return d.getTime()
}

/** The first day of the period after the one starting at `start`. */
function nextPeriodStart(rule: CalendarRule, start: number): number {
  if (rule.freq === 'WEEKLY') return start + 7 * DAY_MS
  const d = new Date(start)
  if (rule.freq === 'YEARLY') d.setUTCFullYear(d.getUTCFullYear() + 1, 0, 1)
  else d.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  return d.getTime()
}

/**
 * The library's options for the days (at 00:00) a BYSETPOS rule's periods hold before its positions pick, from the
 * start of the period `starts` lies in (so the first period is whole, as RFC 5545 sets it): the rule without BYSETPOS,
 * its end or times of day, with the days the series start implies named (a WEEKLY rule's weekday, a MONTHLY rule's day
 * of the month, a YEARLY rule's month and day).
 */
function periodDaysOptions(spec: CalendarSpec): Extract<RRuleOptions, { freq: string }> {
  const { rule, starts } = spec
  const first = periodStart(rule, wallFieldsAsUtc(seriesStart(spec)))
  const options: Extract<RRuleOptions, { freq: string }> = {
    freq: rule.freq,
    interval: rule.interval,
    byHour: [0],
    byMinute: [0],
    bySecond: [0],
    tzid: 'UTC',
    dtstart: Temporal.Instant.fromEpochMilliseconds(first).toZonedDateTimeISO('UTC'),
    cache: false,
  }
  const { byDay, byMonthDay, byMonth } = withStartDays(rule, starts)
  if (byDay !== null) options.byDay = byDay.map((d) => `${d.ordinal ?? ''}${d.weekday}`)
  if (byMonthDay !== null) options.byMonthDay = byMonthDay
  if (byMonth !== null) options.byMonth = byMonth
  if (rule.wkst !== null) options.wkst = rule.wkst
  return options
}

/**
 * The wall times (floating) in `[fromFloating, toFloating]` of a rule `picksSetPositions` accepts: each period's days
 * (from the library) times the rule's times of day, in order, picked at the rule's positions; none before the series
 * start or after its UNTIL (which end the series after the positions pick, as RFC 5545 has it).
 */
function setPositionWalls(spec: CalendarSpec, fromFloating: number, toFloating: number): number[] {
  const { rule } = spec
  const start = wallFieldsAsUtc(seriesStart(spec))
  const until = rule.end.kind === 'until-date' || rule.end.kind === 'until-instant' ? untilWall(rule) : Infinity
  const from = Math.max(fromFloating, start)
  const to = Math.min(toFloating, until)
  if (to < from) return []
  const times = ruleMinutesOfDay(rule).map((minutes) => minutes * 60_000)
  const firstPeriod = periodStart(rule, from)
  const afterLast = nextPeriodStart(rule, periodStart(rule, to))
  const days = expander(spec).library.between(new Date(firstPeriod), new Date(afterLast - 1), true).map((zoned) => zoned.epochMilliseconds)
  const out: number[] = []
  for (let i = 0; i < days.length; ) {
    const period = periodStart(rule, days[i])
    let end = i
    while (end < days.length && periodStart(rule, days[end]) === period) end += 1
    const size = (end - i) * times.length
    for (const index of setPositionIndexes(size, rule.bySetPos ?? [])) {
      const wall = days[i + Math.floor(index / times.length)] + times[index % times.length]
      if (wall >= from && wall <= to) out.push(wall)
    }
    i = end
  }
  return out
}

/** Most periods (of FREQ and INTERVAL) past its start a series' COUNT is counted through: one that has not ended by then lasts longer than any search looks (a century, `SEARCH_PERIODS`). */
const COUNTED_PERIODS = 100_000

/** How far a series' COUNT has been counted: wall times before `next` (floating) number `seen`; `last`, once found, is the wall time of its last occurrence. */
type Counting = { next: number; seen: number; span: number; last: number | null }

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
  const start = wallFieldsAsUtc(seriesStart(spec))
  let counting = countings.get(key)
  if (counting === undefined) {
    counting = { next: start, seen: 0, span: FIRST_WINDOW_MS, last: null }
    if (countings.size >= CACHE_LIMIT) countings.clear()
    countings.set(key, counting)
  }
  const endless: CalendarSpec = { ...spec, rule: { ...spec.rule, end: { kind: 'never' } } }
  const limit = Math.min(start + COUNTED_PERIODS * spec.rule.interval * SHORTEST_PERIOD_MS[spec.rule.freq], MAX_INSTANT_MS + 366 * DAY_MS + WALL_MARGIN_MS)
  while (counting.last === null && counting.next <= Math.min(throughFloating, limit)) {
    const to = Math.min(counting.next + counting.span - 1, limit)
    const walls = wallsBetween(endless, counting.next, to)
    if (counting.seen + walls.length >= count) counting.last = walls[count - counting.seen - 1]
    counting.seen += walls.length
    counting.next = to + 1
    counting.span = Math.min(counting.span * 4, MAX_WINDOW_MS)
  }
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

/** The rule's wall times (floating milliseconds) in `[fromFloating, toFloating]`, earliest first. */
function wallsBetween(spec: CalendarSpec, fromFloating: number, toFloating: number): number[] {
  const { rule } = spec
  if (expandsYearlyWeekdays(rule)) {
    return yearlyWeekdayWalls(rule, wallFieldsAsUtc(seriesStart(spec)), untilWall(rule), fromFloating, toFloating)
  }
  if (rule.end.kind === 'count') {
    const last = countedEndBy(spec, rule.end.count, toFloating)
    const to = last === null ? toFloating : Math.min(toFloating, last)
    return to < fromFloating ? [] : wallsBetween({ ...spec, rule: { ...rule, end: { kind: 'never' } } }, fromFloating, to)
  }
  if (picksSetPositions(rule)) return setPositionWalls(spec, fromFloating, toFloating)
  const { library, kept } = expander(spec)
  const walls = library.between(new Date(fromFloating), new Date(toFloating), true).map((zoned) => zoned.epochMilliseconds)
  return kept === null ? walls : walls.filter((floating) => kept.has(minuteOfDay(floating)))
}

function minuteOfDay(floatingMs: number): number {
  return Math.floor((((floatingMs % DAY_MS) + DAY_MS) % DAY_MS) / 60_000)
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
  for (let from = fromMs; from <= last; from += MAX_WINDOW_MS) out.push(...windowBetween(spec, from, Math.min(from + MAX_WINDOW_MS - 1, last)))
  return byInstant(out)
}

function searchSpanMs(rule: CalendarRule): number {
  return Math.min(SEARCH_HORIZON_MS, SEARCH_PERIODS * rule.interval * SHORTEST_PERIOD_MS[rule.freq])
}

/**
 * The first `n` occurrences strictly after `afterMs`, fewer when the series ends or none lies within
 * the search: a century, and at most `SEARCH_PERIODS` periods of the rule's frequency, counted from
 * `afterMs` or from the series start when that is later.
 */
export function occurrencesAfter(spec: CalendarSpec, afterMs: number, n: number): Occurrence[] {
  const found: Occurrence[] = []
  const begin = Math.max(afterMs, wallFieldsAsUtc(seriesStart(spec)) - WALL_MARGIN_MS)
  const last = Math.min(begin + searchSpanMs(spec.rule), MAX_INSTANT_MS, untilInstant(spec))
  let from = begin + 1
  let span = FIRST_WINDOW_MS
  while (found.length < n && from <= last) {
    const to = Math.min(from + span - 1, last)
    for (const occurrence of occurrencesBetween(spec, from, to)) {
      if (found.length < n) found.push(occurrence)
    }
    from = to + 1
    span = Math.min(span * 4, MAX_WINDOW_MS)
  }
  return found
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

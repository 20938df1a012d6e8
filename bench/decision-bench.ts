import type { SessionEvent, SessionHeader, UserMessage } from '../src/protocol/events.ts'
import { loadSessionFile as loadFile, nodeFiles } from '../src/host/index.ts'

const loadSessionFile = (path: string) => loadFile(path, nodeFiles)
import { decideReading } from '../src/plugin/decide.ts'
import { timeContextIndexFold, type TimeContextIndex } from '../src/plugin/index-fold.ts'
import { isTimeContextSource } from '../src/protocol/index.ts'
import { BENCH_FALLBACK_ZONE } from './generate.ts'
import { median } from './measure.ts'
import { naiveDecideReading } from './naive.ts'

/** One recorded decision: the log before a `step/start`, the batch that entered, and the reading the log holds. */
export type DecisionPoint = {
  /** Number of events before the decision (the naive baseline scans this many). */
  end: number
  /** `timeContextIndexFold` folded over `events[0..end)`, exactly as SessionLog builds it. */
  index: TimeContextIndex
  turn: number
  step: number
  messages: UserMessage[]
  now: number
  /** The reading text the log holds for this step. */
  logged: string | null
}

/** A loaded session with its decision points. */
export type DecisionSubject = {
  label: string
  header: SessionHeader
  events: SessionEvent[]
  /** Decisions at the end of the log (what a live decision at this session length costs). */
  tail: DecisionPoint[]
  /** Decisions spread over the whole log (for the naive/indexed equality check). */
  spread: DecisionPoint[]
}

/** Loads a session file and records decision points from one forward fold of the index. */
export async function loadDecisionSubject(label: string, path: string, tailCount: number, spreadCount: number): Promise<DecisionSubject> {
  const { header, events } = await loadSessionFile(path)
  const starts: number[] = []
  for (let i = 0; i < events.length; i++) if (events[i].type === 'step/start') starts.push(i)
  const tailSet = new Set(starts.slice(-tailCount))
  const spreadSet = new Set<number>()
  for (let k = 0; k < spreadCount; k++) spreadSet.add(starts[Math.floor((k * starts.length) / spreadCount)])
  const tail: DecisionPoint[] = []
  const spread: DecisionPoint[] = []
  let index = timeContextIndexFold.init(header)
  for (let p = 0; p < events.length; p++) {
    const event = events[p]
    if (event.type === 'step/start' && (tailSet.has(p) || spreadSet.has(p))) {
      const messages: UserMessage[] = []
      let logged: string | null = null
      for (let q = p + 1; q < events.length; q++) {
        const next = events[q]
        if (next.type !== 'user/message') break
        if (isTimeContextSource(next.data.source)) {
          logged = next.data.content[0].text
          break
        }
        messages.push(next.data)
      }
      const point: DecisionPoint = { end: p, index, turn: event.data.turn, step: event.data.step, messages, now: event.time, logged }
      if (tailSet.has(p)) tail.push(point)
      if (spreadSet.has(p)) spread.push(point)
    }
    index = timeContextIndexFold.apply(index, event)
  }
  return { label, header, events, tail, spread }
}

type Decide = (subject: DecisionSubject, point: DecisionPoint, refreshIntervalMs: number) => UserMessage | null

/** The plugin's work: the index fold's state at the point, then `decideReading`. */
const indexedDecide: Decide = (subject, point, refreshIntervalMs) =>
  decideReading({
    index: point.index,
    header: subject.header,
    fallbackZone: BENCH_FALLBACK_ZONE,
    refreshIntervalMs,
    turn: point.turn,
    step: point.step,
    messages: point.messages,
    now: point.now,
  })

/** The reference: one full rescan of the raw log up to the point. */
const naiveDecide: Decide = (subject, point, refreshIntervalMs) =>
  naiveDecideReading({
    events: subject.events,
    end: point.end,
    header: subject.header,
    fallbackZone: BENCH_FALLBACK_ZONE,
    refreshIntervalMs,
    turn: point.turn,
    step: point.step,
    messages: point.messages,
    now: point.now,
  })

function textOf(reading: UserMessage | null): string | null {
  return reading === null ? null : reading.content[0].text
}

/** Outcome of comparing naive and indexed decisions (and the logged readings) on a sample. */
export type EqualityReport = { compared: number; mismatches: string[]; mixed: number; suppressed: number }

/** Compares indexed vs naive (interval 0 and a positive interval) and both vs the logged reading. */
export function compareDecisions(subject: DecisionSubject, points: readonly DecisionPoint[]): EqualityReport {
  const mismatches: string[] = []
  let mixed = 0
  let suppressed = 0
  for (const point of points) {
    const where = `${subject.label} seq ${point.end} (turn ${point.turn} step ${point.step})`
    const a = textOf(indexedDecide(subject, point, 0))
    const b = textOf(naiveDecide(subject, point, 0))
    if (a !== b) mismatches.push(`${where}: indexed and naive differ`)
    if (a !== point.logged) mismatches.push(`${where}: indexed differs from the logged reading`)
    if (a?.includes('request: mixed [')) mixed++
    const c = textOf(indexedDecide(subject, point, 120_000))
    const d = textOf(naiveDecide(subject, point, 120_000))
    if (c !== d) mismatches.push(`${where}: indexed and naive differ with refreshIntervalMs 120000`)
    if (c === null) suppressed++
  }
  return { compared: points.length, mismatches, mixed, suppressed }
}

let sink = 0

function timeBatch(subject: DecisionSubject, count: number, decide: Decide): number {
  const points = subject.tail
  const start = performance.now()
  for (let i = 0; i < count; i++) sink += textOf(decide(subject, points[i % points.length], 0))?.length ?? 0
  return ((performance.now() - start) * 1000) / count
}

/** µs per decision of `count` indexed decisions cycling over the points. */
export function indexedBatch(subject: DecisionSubject, count: number): number {
  return timeBatch(subject, count, indexedDecide)
}

/** µs per decision of `count` naive decisions (full rescan each) cycling over the points. */
export function naiveBatch(subject: DecisionSubject, count: number): number {
  return timeBatch(subject, count, naiveDecide)
}

/** Median µs/decision per subject, batches interleaved across subjects so drift hits every size alike. */
export function measureDecisions(
  subjects: readonly DecisionSubject[],
  options: { rounds: number; indexedPerBatch: number; naiveVisitsPerBatch: number; naiveRounds: number },
): { indexed: Map<string, number>; naive: Map<string, number>; naiveCounts: Map<string, number> } {
  for (let w = 0; w < 3; w++) for (const s of subjects) indexedBatch(s, options.indexedPerBatch)
  naiveBatch(subjects[0], 200)
  const indexed = new Map<string, number[]>()
  const naive = new Map<string, number[]>()
  const naiveCounts = new Map<string, number>()
  for (let r = 0; r < options.rounds; r++) {
    const order = r % 2 === 0 ? subjects : [...subjects].reverse()
    for (const s of order) {
      const list = indexed.get(s.label) ?? []
      list.push(indexedBatch(s, options.indexedPerBatch))
      indexed.set(s.label, list)
    }
  }
  for (let r = 0; r < options.naiveRounds; r++) {
    for (const s of subjects) {
      const count = Math.max(2, Math.round(options.naiveVisitsPerBatch / s.events.length))
      naiveCounts.set(s.label, count)
      const list = naive.get(s.label) ?? []
      list.push(naiveBatch(s, count))
      naive.set(s.label, list)
    }
  }
  if (sink === -1) console.log(sink)
  const med = (m: Map<string, number[]>): Map<string, number> => new Map([...m].map(([k, v]) => [k, median(v)]))
  return { indexed: med(indexed), naive: med(naive), naiveCounts }
}

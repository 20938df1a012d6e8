import { join } from 'node:path'
import { acksWhileTurn, measureAcks } from './ack-bench.ts'
import { measureFanout } from './fanout-bench.ts'
import { fmt, loadAverage, sizeLabel } from './measure.ts'
import { measurePages, type PagedSession } from './page-bench.ts'
import type { ScaleResults } from './scale-report.ts'
import { measureStartupAndList } from './startup-bench.ts'

/** How much of the scale bench to run: the full sizes or the `--quick` ones. */
export type ScalePlan = {
  sessions: number
  startReps: number
  pageReps: number
  freshReps: number
  ackLevels: number[]
  ackRounds: number
  ackWindowMs: number
  /** Untimed load each side of the acknowledgement bench runs once before its first window. */
  ackWarmupMs: number
  turnMessages: number
  fanoutLevels: number[]
  fanoutPosts: number
}

/** The full plan (SPEC 12.1 sizes) and the reduced one of `--quick`. */
export function scalePlan(quick: boolean): ScalePlan {
  return quick
    ? { sessions: 1000, startReps: 3, pageReps: 15, freshReps: 1, ackLevels: [1, 10, 100], ackRounds: 1, ackWindowMs: 1500, ackWarmupMs: 1000, turnMessages: 50, fanoutLevels: [1, 100], fanoutPosts: 50 }
    : { sessions: 10_000, startReps: 5, pageReps: 25, freshReps: 3, ackLevels: [1, 10, 100], ackRounds: 2, ackWindowMs: 2000, ackWarmupMs: 2000, turnMessages: 100, fanoutLevels: [1, 100, 500], fanoutPosts: 100 }
}

/**
 * SPEC 12.1 (v2) scale figures through the real server: start-up and RSS, the cold session list,
 * event pages of `big` vs `small` (sessions in `dataDir`), acknowledgement throughput and SSE
 * fan-out, each beside its floor measured in the same run.
 */
export async function measureScale(
  root: string,
  dataDir: string,
  small: PagedSession,
  big: PagedSession,
  plan: ScalePlan,
  seed: number,
  log: (line: string) => void,
): Promise<ScaleResults> {
  const loadAtStart = loadAverage()
  const { startup, list } = await measureStartupAndList(join(root, 'start'), plan.sessions, plan.startReps, seed, log)
  log(`scale: start-up and list done`)
  const pages = await measurePages(dataDir, small, big, plan.pageReps, plan.freshReps)
  for (const state of ['closed', 'open']) {
    const cells = ['last', 'middle'].map((kind) => `${kind} ${fmt(pages.medians.get(`${state}:${kind}:${big.id}`))} / ${fmt(pages.medians.get(`${state}:${kind}:${small.id}`))} ms`)
    log(`events pages ${state}, ${sizeLabel(big.events - (big.events % 1000))} / ${sizeLabel(small.events - (small.events % 1000))}: ${cells.join(', ')}`)
  }
  const acks = await measureAcks(join(root, 'acks'), plan.ackLevels, plan.ackRounds, 500, plan.ackWindowMs, log, {}, plan.ackWarmupMs)
  const whileTurn = await acksWhileTurn(join(root, 'acks', 'turn'), plan.turnMessages)
  log(`acks behind a turn: busy p50 ${fmt(whileTurn.busyP50, 2)} ms, idle p50 ${fmt(whileTurn.idleP50, 2)} ms, turn p50 ${fmt(whileTurn.turnP50, 2)} ms`)
  const fanout = await measureFanout(join(root, 'fanout'), plan.fanoutLevels, 10, plan.fanoutPosts, log)
  return { startup, list, pages, acks, acksWhileTurn: whileTurn, fanout, load: `${loadAtStart} at start / ${loadAverage()} at end` }
}

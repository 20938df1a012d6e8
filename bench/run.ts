/**
 * `npm run bench` (SPEC 12.1): time-context decision cost, whole-log check throughput, session
 * open time, the HTTP round trip, PostgreSQL message throughput and the overlay in headless
 * Chromium, on generated sessions of 1k…1M events, each beside a naive baseline or a floor; then
 * the v2 scale figures through the real server (start-up, cold list, event pages,
 * acknowledgements, SSE fan-out), each beside a floor measured in the same run. Prints markdown
 * tables and one PASS/FAIL line per target; figures, not assertions: the exit code is 0 when a
 * target misses and 1 only when a correctness guard fails. `npm run bench -- --quick` stops at
 * 100k events and runs the reduced scale plan; `--only=scale` runs only the scale part.
 */
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getHeapStatistics } from 'node:v8'
import { checkFile } from '../src/server/check.ts'
import { checkFolds } from '../src/server/compose.ts'
import { measureCheck, naiveCheckerDisagreements, readAndParseKeeping, type CheckRow } from './check-bench.ts'
import { compareDecisions, loadDecisionSubject, measureDecisions, type DecisionSubject } from './decision-bench.ts'
import { generateSession, type GeneratedSession } from './generate.ts'
import { measureHttp } from './http-bench.ts'
import { measurePostgres } from './postgres-bench.ts'
import { collect, fmt, loadAverage, medianTiming, sizeLabel, timed, type Timing } from './measure.ts'
import { timeOpenSession } from './open-bench.ts'
import { renderReport } from './report.ts'
import { measureUi, renderUiReport, type UiFigures } from './ui-bench.ts'
import { measureScale, scalePlan } from './scale-bench.ts'
import { renderScale } from './scale-report.ts'

const HEAP_MB = 8192
const SIZES = [1_000, 10_000, 100_000, 1_000_000]
const CHECK_SIZES = [10_000, 100_000, 1_000_000]
const NAIVE_CHECK_SIZES = new Set([10_000, 100_000])
const SESSION_ZONE = 'Asia/Shanghai'
const SEED = 20_260_705
const ROUNDS = 9
const INDEXED_PER_BATCH = 4000

/** Re-runs this script with a large heap and --expose-gc unless it already has them. */
function respawnIfNeeded(): boolean {
  const hasGc = typeof (globalThis as { gc?: unknown }).gc === 'function'
  if (process.env.SCHEDULE_WEB_BENCH_CHILD === '1' || (hasGc && getHeapStatistics().heap_size_limit >= 6e9)) return false
  const script = fileURLToPath(import.meta.url)
  const result = spawnSync(
    process.execPath,
    [...process.execArgv, `--max-old-space-size=${HEAP_MB}`, '--expose-gc', script, ...process.argv.slice(2)],
    { stdio: 'inherit', env: { ...process.env, SCHEDULE_WEB_BENCH_CHILD: '1' } },
  )
  process.exitCode = result.status ?? 1
  return true
}

function log(line: string): void {
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`)
}

async function generateAll(sizes: number[], sessionsDir: string): Promise<Map<number, GeneratedSession>> {
  const generated = new Map<number, GeneratedSession>()
  for (const [i, size] of sizes.entries()) {
    const id = `bench-${sizeLabel(size)}`
    const path = join(sessionsDir, `${id}.jsonl`)
    const { value: g, timing } = await timed(() => generateSession({ path, id, targetEvents: size, seed: SEED + i, sessionZone: SESSION_ZONE }))
    const verdict = await checkFile(path, await checkFolds())
    if (!verdict.ok) throw new Error(`generated session is not valid: ${verdict.line}`)
    generated.set(size, g)
    log(
      `generated ${id}: ${g.events} events, ${(g.bytes / 1e6).toFixed(1)} MB, ${g.turns} turns, ${g.readings} readings ` +
        `(${g.mixedReadings} mixed), ${g.compactions} compactions, ${g.scheduleChanges} schedule changes ` +
        `in ${(timing.wallMs / 1000).toFixed(1)} s; check: ok`,
    )
  }
  return generated
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick')
  const scaleOnly = process.argv.includes('--only=scale')
  const sizes = quick ? SIZES.slice(0, 3) : SIZES
  const checkSizes = quick ? CHECK_SIZES.slice(0, 2) : CHECK_SIZES
  const root = await mkdtemp(join(tmpdir(), 'schedule-web-bench-'))
  process.once('SIGINT', () => {
    rmSync(root, { recursive: true, force: true })
    process.exit(130)
  })
  const dataDir = join(root, 'data')
  const sessionsDir = join(dataDir, 'sessions')
  await mkdir(sessionsDir, { recursive: true })
  const started = performance.now()
  const loadAtStart = loadAverage()
  const failures: string[] = []
  log(`node ${process.version}, ${cpus().length} CPUs, heap limit ${(getHeapStatistics().heap_size_limit / 1e9).toFixed(1)} GB, load average ${loadAtStart}`)
  try {
    // Generated sessions, each asserted valid by `check` before anything is timed.
    const generated = await generateAll(scaleOnly ? [sizes[0], sizes[sizes.length - 1]] : sizes, sessionsDir)
    const at = (size: number): GeneratedSession => generated.get(size) as GeneratedSession
    const paged = (size: number) => ({ id: at(size).id, events: at(size).events, timeZone: SESSION_ZONE })
    const scaleRun = () =>
      measureScale(join(root, 'scale'), dataDir, paged(sizes[0]), paged(sizes[sizes.length - 1]), scalePlan(quick), SEED, (line) => log(`${line}; load ${loadAverage()}`))
    if (scaleOnly) {
      const scale = await scaleRun()
      const seconds = (performance.now() - started) / 1000
      console.log(`\n## Schedule Web bench (scale only) — node ${process.version}, ${cpus().length} CPUs, load average ${loadAtStart} at start / ${loadAverage()} at end, ${seconds.toFixed(0)} s`)
      console.log(renderScale(scale))
      return
    }
    failures.push(...(await naiveCheckerDisagreements(at(sizes[0]).path)))

    // Whole-log check throughput.
    const checkRows = new Map<number, CheckRow>()
    for (const size of checkSizes) {
      const reps = size >= 1_000_000 ? 5 : size >= 100_000 ? 5 : 9
      const row = await measureCheck(at(size).path, reps, NAIVE_CHECK_SIZES.has(size) ? (size >= 100_000 ? 1 : 3) : 0, await checkFolds())
      checkRows.set(size, row)
      log(
        `check ${sizeLabel(size)}: read+parse ${fmt(row.floor.wallMs)} ms, checkFile ${fmt(row.check.wallMs)} ms, ` +
          `naive ${fmt(row.naive?.wallMs)} ms; load ${loadAverage()}`,
      )
    }

    // Session open: the first open validates the whole log; later ones (a server reopening a session
    // it closed, or after a restart) trust the prefix validated before. Beside the floor of SPEC 12.1:
    // read + JSON.parse keeping the objects, interleaved.
    const openRows = new Map<number, Timing>()
    const firstOpens = new Map<number, Timing>()
    const keepFloors = new Map<number, Timing>()
    for (const size of sizes) {
      const reps = size >= 1_000_000 ? 3 : size >= 100_000 ? 3 : 5
      firstOpens.set(size, await timeOpenSession(dataDir, at(size).id, at(size).events))
      const runs: Timing[] = []
      const floors: Timing[] = []
      for (let r = 0; r < reps; r++) {
        collect()
        floors.push((await timed(() => readAndParseKeeping(at(size).path))).timing)
        collect()
        runs.push(await timeOpenSession(dataDir, at(size).id, at(size).events))
      }
      openRows.set(size, medianTiming(runs))
      keepFloors.set(size, medianTiming(floors))
      log(`open ${sizeLabel(size)}: first ${fmt(firstOpens.get(size)?.wallMs)} ms, then ${fmt(openRows.get(size)?.wallMs)} ms; read+parse keeping ${fmt(keepFloors.get(size)?.wallMs)} ms`)
    }

    // Time-context decision.
    collect()
    const subjects: DecisionSubject[] = []
    for (const size of sizes) subjects.push(await loadDecisionSubject(sizeLabel(size), at(size).path, 48, size >= 1_000_000 ? 60 : 200))
    let compared = 0
    for (const subject of subjects) {
      const report = compareDecisions(subject, [...subject.tail, ...subject.spread])
      compared += report.compared
      failures.push(...report.mismatches.slice(0, 5))
      log(`decisions ${subject.label}: ${report.compared} compared (${report.mixed} mixed, ${report.suppressed} suppressed at a 120 s interval), ${report.mismatches.length} mismatches`)
    }
    const decisions = measureDecisions(subjects, {
      rounds: ROUNDS,
      indexedPerBatch: INDEXED_PER_BATCH,
      naiveVisitsPerBatch: 3_000_000,
      naiveRounds: 3,
    })
    subjects.length = 0
    collect()

    // HTTP round trip.
    const http = await measureHttp(join(root, 'http'), 200, 10)
    log(`http: POST→202 p50 ${fmt(http.ackP50)} ms, p99 ${fmt(http.ackP99)} ms; reading on SSE p50 ${fmt(http.readingP50)} ms, p99 ${fmt(http.readingP99)} ms`)

    // PostgreSQL store: acknowledged messages at 100 sessions vs bare INSERT; COMMIT loops.
    const pgDir = await mkdtemp(join(tmpdir(), 'schedule-web-bench-pg-'))
    const postgres = await measurePostgres(pgDir, { sessions: 100, seconds: 3, rounds: 3, modelDelayMs: 1000, leaseMs: 2000, failovers: 3, log }).finally(() =>
      rm(pgDir, { recursive: true, force: true }),
    )
    if (postgres.checked !== postgres.sessions) failures.push(`postgres: only ${postgres.checked} of ${postgres.sessions} sessions pass check after the run`)

    // Overlay in headless Chromium (SPEC 12.1): first render, DOM size and new-message latency.
    let ui: UiFigures | null = null
    try {
      ui = await measureUi({ log })
    } catch (error) {
      failures.push(`overlay bench could not run: ${error instanceof Error ? error.message : String(error)}`)
    }

    // Scale through the real server (SPEC 12.1 v2).
    const scale = await scaleRun()

    const seconds = (performance.now() - started) / 1000
    console.log(
      renderReport({
        sizes,
        checkSizes,
        generated,
        checkRows,
        openRows,
        firstOpens,
        keepFloors,
        decisions,
        indexedPerBatch: INDEXED_PER_BATCH,
        rounds: ROUNDS,
        http,
        postgres,
        compared,
        failures,
        environment: `node ${process.version}, ${cpus().length} CPUs, load average ${loadAtStart} at start / ${loadAverage()} at end, ${seconds.toFixed(0)} s`,
      }),
    )
    if (ui !== null) console.log(`\n${renderUiReport(ui)}`)
    console.log(renderScale(scale))
  } finally {
    await rm(root, { recursive: true, force: true })
  }
  if (failures.length > 0) process.exitCode = 1
}

if (!respawnIfNeeded()) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
    process.exitCode = 1
  })
}

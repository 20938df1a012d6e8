import type { CheckRow } from './check-bench.ts'
import type { GeneratedSession } from './generate.ts'
import type { HttpFigures } from './http-bench.ts'
import type { PostgresFigures } from './postgres-bench.ts'
import { fmt, sizeLabel, type Timing } from './measure.ts'

/** Everything the bench measured. */
export type BenchResults = {
  sizes: number[]
  checkSizes: number[]
  generated: Map<number, GeneratedSession>
  checkRows: Map<number, CheckRow>
  openRows: Map<number, Timing>
  /** The first open of each session (the whole log validated), and the floor of open: read + parse keeping the objects. */
  firstOpens: Map<number, Timing>
  keepFloors: Map<number, Timing>
  decisions: { indexed: Map<string, number>; naive: Map<string, number>; naiveCounts: Map<string, number> }
  indexedPerBatch: number
  rounds: number
  http: HttpFigures
  postgres: PostgresFigures
  compared: number
  failures: string[]
  environment: string
}

type Cell = number | null | undefined

/** The markdown table, the notes and one PASS/FAIL line per target. */
export function renderReport(r: BenchResults): string {
  const labels = r.sizes.map(sizeLabel)
  const rows: string[] = []
  const add = (name: string, value: (size: number) => Cell, digits = 1): void => {
    rows.push(`| ${name} | ${r.sizes.map((s) => fmt(value(s), digits)).join(' | ')} |`)
  }
  const decision = (m: Map<string, number>, s: number): Cell => m.get(sizeLabel(s))
  const check = (s: number, pick: (row: CheckRow) => number): Cell => {
    const row = r.checkRows.get(s)
    return row ? pick(row) : null
  }
  add('session file (MB)', (s) => (r.generated.get(s)?.bytes ?? 0) / 1e6)
  add('readings in file (k)', (s) => (r.generated.get(s)?.readings ?? 0) / 1000, 1)
  add('**decision, indexed (µs)**', (s) => decision(r.decisions.indexed, s), 2)
  add('decision, naive rescan (µs)', (s) => decision(r.decisions.naive, s))
  add('  naive / indexed', (s) => (decision(r.decisions.naive, s) ?? NaN) / (decision(r.decisions.indexed, s) ?? NaN))
  add('read + JSON.parse every line (ms)', (s) => check(s, (row) => row.floor.wallMs))
  add('**check = checkFile (ms)**', (s) => check(s, (row) => row.check.wallMs))
  add('  check / read+parse', (s) => check(s, (row) => row.check.wallMs / row.floor.wallMs), 2)
  add('  check / read+parse, CPU time', (s) => check(s, (row) => row.check.cpuMs / row.floor.cpuMs), 2)
  add('naive check, per-reading rescan (ms)', (s) => check(s, (row) => row.naive?.wallMs ?? NaN))
  add('  naive check / check', (s) => check(s, (row) => (row.naive?.wallMs ?? NaN) / row.check.wallMs))
  add('read + JSON.parse keeping the objects (ms)', (s) => r.keepFloors.get(s)?.wallMs)
  add('**Host.openSession, reopened (ms)**', (s) => r.openRows.get(s)?.wallMs)
  add('  open / read+parse keeping', (s) => (r.openRows.get(s)?.wallMs ?? NaN) / (r.keepFloors.get(s)?.wallMs ?? NaN), 2)
  add('Host.openSession, first open: whole log validated (ms)', (s) => r.firstOpens.get(s)?.wallMs)

  const out: string[] = ['', `## Schedule Web bench — ${r.environment}`, '']
  out.push(`| metric (median) | ${labels.join(' | ')} |`, `|---|${labels.map(() => '---:').join('|')}|`, ...rows, '')
  const h = r.http
  out.push(
    `HTTP round trip (real server on port 0, offline model, ${h.messages} messages, one turn each):`,
    `| POST → 202 | POST → reading on SSE | POST → turn/end on SSE |`,
    `|---:|---:|---:|`,
    `| p50 ${fmt(h.ackP50)} ms, p95 ${fmt(h.ackP95)} ms, p99 ${fmt(h.ackP99)} ms | p50 ${fmt(h.readingP50)} ms, p95 ${fmt(h.readingP95)} ms, p99 ${fmt(h.readingP99)} ms | p50 ${fmt(h.turnP50)} ms, p95 ${fmt(h.turnP95)} ms |`,
    '',
    `Notes: indexed = timeContextIndexFold folded over the log, then decideReading (the plugin listener's work), ${r.indexedPerBatch} decisions per batch, ` +
      `median of ${r.rounds} interleaved batches; naive = one full rescan of the raw log per decision ` +
      `(${r.sizes.map((s) => `${sizeLabel(s)}: ${r.decisions.naiveCounts.get(sizeLabel(s)) ?? '?'}`).join(', ')} decisions per batch). ` +
      'read+parse decodes each line from the Buffer and keeps nothing; checkFile streams the same way and folds the invariant and Schedule checks per event.',
    '',
  )
  const p = r.postgres
  out.push(
    `PostgreSQL store (embedded PostgreSQL 18, fsync on; ${p.sessions} concurrent sessions, ${p.rounds} interleaved rounds of ${p.seconds} s, medians):`,
    `| bare BEGIN; INSERT; COMMIT, 10 connections | same, one connection per loop | POST /messages → 202, real server (commits/s → acks/s) | ack p50 / p99 |`,
    `|---:|---:|---:|---:|`,
    `| ${fmt(p.floorPooled, 0)} commits/s | ${fmt(p.floorDirect, 0)} commits/s | ${fmt(p.acks, 0)} acks/s | ${fmt(p.ackP50)} ms / ${fmt(p.ackP99)} ms |`,
    '',
    `Notes: the server runs in its own process with the offline model answering after ${p.modelDelayMs} ms, so turns write while messages arrive; ` +
      'each round compares the server with the better floor of the same round; every session passes check --database-url afterwards.',
    '',
  )
  const first = labels[0]
  const last = labels[labels.length - 1]
  const flat = (r.decisions.indexed.get(last) ?? NaN) / (r.decisions.indexed.get(first) ?? NaN)
  const naiveRatio = (r.decisions.naive.get(last) ?? NaN) / (r.decisions.indexed.get(last) ?? NaN)
  out.push(
    `${flat <= 2 ? 'PASS' : 'FAIL'} decision O(1): indexed(${last}) / indexed(${first}) = ${fmt(flat, 2)} (target ≤ 2); naive / indexed at ${last} = ${fmt(naiveRatio, 0)}×`,
  )
  const biggest = r.checkSizes[r.checkSizes.length - 1]
  const row = r.checkRows.get(biggest)
  if (row) {
    const ratio = row.check.wallMs / row.floor.wallMs
    out.push(
      `${ratio <= 2 ? 'PASS' : 'FAIL'} check one pass: check(${sizeLabel(biggest)}) / read+parse(${sizeLabel(biggest)}) = ${fmt(ratio, 2)} ` +
        `(target ≤ 2; read+parse ${fmt(row.floor.wallMs)} ms; CPU-time ratio ${fmt(row.check.cpuMs / row.floor.cpuMs, 2)})`,
    )
  }
  const openBiggest = r.sizes[r.sizes.length - 1]
  const openRatio = (r.openRows.get(openBiggest)?.wallMs ?? NaN) / (r.keepFloors.get(openBiggest)?.wallMs ?? NaN)
  out.push(
    `${openRatio <= 1.5 ? 'PASS' : 'FAIL'} open: openSession(${sizeLabel(openBiggest)}) / read+parse keeping the objects = ${fmt(openRatio, 2)} ` +
      `(target ≤ 1.5; a first open, validating the whole log, ${fmt(r.firstOpens.get(openBiggest)?.wallMs)} ms)`,
  )
  out.push(
    `${p.ratio >= 0.5 ? 'PASS' : 'FAIL'} PostgreSQL throughput: acks/s / bare INSERT;COMMIT commits/s at ${p.sessions} sessions = ${fmt(p.ratio, 2)} (target ≥ 0.5)`,
  )
  const worstFailover = Math.max(...p.failovers)
  const failoverRatio = worstFailover / p.leaseMs
  const failoverTarget = (p.leaseMs + 1000) / p.leaseMs
  out.push(
    `${failoverRatio <= failoverTarget ? 'PASS' : 'FAIL'} PostgreSQL failover: slowest takeover after kill -9 / lease-ms = ${fmt(failoverRatio, 2)} ` +
      `(${p.failovers.map((ms) => fmt(ms, 0)).join(', ')} ms at lease ${p.leaseMs} ms; target ≤ ${fmt(failoverTarget, 2)}, i.e. lease-ms + 1 s)`,
  )
  out.push(
    `${r.failures.length === 0 ? 'PASS' : 'FAIL'} correctness: ${r.compared} decisions naive = indexed = logged reading; ` +
      'generated sessions pass check and open without appending; naive checker agrees with the project on tampered logs',
  )
  for (const failure of r.failures) out.push(`  - ${failure}`)
  return out.join('\n')
}

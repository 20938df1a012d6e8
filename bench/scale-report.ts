import { cpuBudgetText, type AckLevel, type AckWhileTurn } from './ack-bench.ts'
import type { FanoutLevel } from './fanout-bench.ts'
import { fmt, sizeLabel } from './measure.ts'
import type { PageFigures, PageKind } from './page-bench.ts'
import type { ColdListFigures, StartupFigures } from './startup-bench.ts'

/** Everything the scale part of the bench measured (SPEC 12.1, v2). */
export type ScaleResults = {
  startup: StartupFigures
  list: ColdListFigures
  pages: PageFigures
  acks: AckLevel[]
  acksWhileTurn: AckWhileTurn
  fanout: FanoutLevel[]
  /** Load average before and after the scale part. */
  load: string
}

/** A target: PASS when `ok(ratio)`, printed with its wording. */
type Target = { ok: (ratio: number) => boolean; text: string }

const atMost = (limit: number): Target => ({ ok: (ratio) => ratio <= limit, text: `≤ ${limit}` })
const atLeast = (limit: number): Target => ({ ok: (ratio) => ratio >= limit, text: `≥ ${limit}` })

function verdict(ratio: number, target: Target): 'PASS' | 'FAIL' {
  return Number.isFinite(ratio) && target.ok(ratio) ? 'PASS' : 'FAIL'
}

const mb = (bytes: number): number => bytes / 1e6

function pageKey(state: 'closed' | 'open', kind: PageKind, id: string): string {
  return `${state}:${kind}:${id}`
}

/** The scale section: a table of measured value, floor and ratio per target, the throughput and fan-out tables, PASS/FAIL lines and notes. */
export function renderScale(r: ScaleResults): string {
  const { startup: s, list: l, pages: p } = r
  const many = sizeLabel(s.sessions)
  const big = sizeLabel(p.big.events - (p.big.events % 1000))
  const small = sizeLabel(p.small.events - (p.small.events % 1000))
  const page = (state: 'closed' | 'open', kind: PageKind): { bigMs: number; smallMs: number; ratio: number } => {
    const bigMs = p.medians.get(pageKey(state, kind, p.big.id)) ?? NaN
    const smallMs = p.medians.get(pageKey(state, kind, p.small.id)) ?? NaN
    return { bigMs, smallMs, ratio: bigMs / smallMs }
  }
  type Row = { name: string; value: number; floor: number; target: Target; digits?: number }
  const rows: Row[] = [
    { name: `time to \`listening on\`, ${many} sessions vs empty data dir (ms)`, value: s.listenManyMs, floor: s.listenEmptyMs, target: atMost(2) },
    { name: `RSS once listening and settled, ${many} sessions vs empty (MB)`, value: mb(s.rssMany), floor: mb(s.rssEmpty), target: atMost(1.5) },
    { name: `cold \`GET /api/sessions\` (first page, limit 50) at ${many} vs reading every header (ms)`, value: l.firstPageMs, floor: l.headerFloorMs, target: atMost(3) },
    { name: `cold list, all ${l.pages} pages in turn at ${many} vs reading every header (ms)`, value: l.allPagesMs, floor: l.headerFloorMs, target: atMost(3) },
  ]
  for (const state of ['closed', 'open'] as const) {
    for (const kind of ['last', 'middle'] as const) {
      const figures = page(state, kind)
      rows.push({
        name: `\`GET /events\` ${kind === 'last' ? 'default (last) page' : '`?after=` middle page'}, session ${state === 'closed' ? 'not open' : 'open'}, ${big} vs ${small} events (ms)`,
        value: figures.bigMs,
        floor: figures.smallMs,
        target: atMost(2),
      })
    }
  }
  const out: string[] = [
    '',
    `### Scale (SPEC 12.1 v2): the real CLI (\`serve --port 0 --no-build\`, offline model) on generated data; load average ${r.load}`,
    '',
    '| scale metric (median) | measured | floor | ratio | target |',
    '|---|---:|---:|---:|---:|',
  ]
  for (const row of rows) out.push(`| ${row.name} | ${fmt(row.value, row.digits)} | ${fmt(row.floor, row.digits)} | ${fmt(row.value / row.floor, 2)} | ${row.target.text} |`)

  out.push(
    '',
    'Acknowledged messages: one client per session POSTs a message as soon as the previous 202 arrived, sessions in parallel; floor = one file per session, ~300-byte line `write` + `fdatasync` per message, same concurrency, same disk:',
    '',
    '| sessions | acks/s | floor/s | ratio | ack p50 (ms) | ack p99 (ms) | floor p50 (ms) | floor p99 (ms) | p99 ratio | bare node:http + append+fsync /s | CPU per message: server / bare / floor (ms) | turns |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  )
  for (const a of r.acks) {
    out.push(
      `| ${a.sessions} | ${fmt(a.server.perSecond, 0)} | ${fmt(a.floor.perSecond, 0)} | ${fmt(a.server.perSecond / a.floor.perSecond, 3)} | ${fmt(a.server.p50)} | ${fmt(a.server.p99)} | ` +
        `${fmt(a.floor.p50, 2)} | ${fmt(a.floor.p99, 2)} | ${fmt(a.server.p99 / a.floor.p99, 1)} | ${fmt(a.bare.perSecond, 0)} | ${fmt(a.server.cpuMsPerOp, 2)} / ${fmt(a.bare.cpuMsPerOp, 2)} / ${fmt(a.floor.cpuMsPerOp, 3)} | ${a.turns} for ${a.messages} messages |`,
    )
    const q = a.parked
    if (q !== null) {
      out.push(
        `| ${a.sessions}, turns parked in the model | ${fmt(q.perSecond, 0)} | ${fmt(a.floor.perSecond, 0)} | ${fmt(q.perSecond / a.floor.perSecond, 3)} | ${fmt(q.p50)} | ${fmt(q.p99)} | ` +
          `${fmt(a.floor.p50, 2)} | ${fmt(a.floor.p99, 2)} | ${fmt(q.p99 / a.floor.p99, 1)} | | ${fmt(q.cpuMsPerOp, 2)} / — / — | none ran (first turn of each session waits for the model) |`,
      )
    }
  }
  const topLevel = r.acks.at(-1)
  if (topLevel !== undefined) out.push('', `${cpuBudgetText(topLevel)} (CPU of the server's process, all threads, and of the bench process running its clients, per message).`)

  out.push(
    '',
    'SSE fan-out: subscribers on one session\'s stream; the driver renames the session (one durable `session/title` event per PATCH) and notes when it posted, each subscriber when the frame arrived; floor = a bare node:http server (bench/bare-server.ts) that makes the same line durable (append + fdatasync) and writes the same frame bytes to as many sockets; posts alternate between the two:',
    '',
    '| subscribers | slowest p50 (ms) | floor slowest p50 (ms) | ratio | median subscriber p50 (ms) | floor (ms) | CPU per event (ms) | floor CPU per event (ms) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
  )
  for (const f of r.fanout) {
    out.push(
      `| ${f.subscribers} | ${fmt(f.server.slowestP50)} | ${fmt(f.floor.slowestP50)} | ${fmt(f.server.slowestP50 / f.floor.slowestP50, 2)} | ` +
        `${fmt(f.server.medianP50)} | ${fmt(f.floor.medianP50)} | ${fmt(f.server.cpuMsPerEvent, 2)} | ${fmt(f.floor.cpuMsPerEvent, 2)} |`,
    )
  }

  out.push('')
  const line = (ratio: number, target: Target, text: string): void => {
    out.push(`${verdict(ratio, target)} ${text} = ${fmt(ratio, 2)} (target ${target.text})`)
  }
  line(s.listenManyMs / s.listenEmptyMs, atMost(2), `startup: listening(${many} sessions) / listening(empty)`)
  line(s.rssMany / s.rssEmpty, atMost(1.5), `startup RSS: RSS(${many} sessions) / RSS(empty)`)
  line(l.firstPageMs / l.headerFloorMs, atMost(3), `cold list: first GET /api/sessions at ${many} / reading every header`)
  line(l.allPagesMs / l.headerFloorMs, atMost(3), `cold list, all ${l.pages} pages: walk at ${many} / reading every header`)
  for (const state of ['closed', 'open'] as const) {
    const last = page(state, 'last')
    const middle = page(state, 'middle')
    const worst = Math.max(last.ratio, middle.ratio)
    line(worst, atMost(2), `events page, session ${state === 'closed' ? 'not open' : 'open'}: page(${big}) / page(${small}), worse of last page ${fmt(last.ratio, 2)} and ?after= middle ${fmt(middle.ratio, 2)}`)
  }
  const top = r.acks.at(-1)
  if (top !== undefined) {
    line(top.server.perSecond / top.floor.perSecond, atLeast(0.5), `acks at ${top.sessions} sessions: acks/s / append+fsync floor`)
    line(top.server.p99 / top.floor.p99, atMost(5), `ack p99 at ${top.sessions} sessions: p99 / floor p99`)
  }
  const behind = r.acksWhileTurn
  line(
    (behind.busyP50 - behind.idleP50) / behind.turnP50,
    atMost(0.5),
    'ack behind a running turn: (ack p50 while a turn writes − ack p50 when idle) / turn p50',
  )
  const widest = r.fanout.at(-1)
  if (widest !== undefined) {
    line(widest.server.slowestP50 / widest.floor.slowestP50, atMost(2), `SSE ${widest.subscribers} subscribers: slowest subscriber p50 / floor`)
  }

  const w = r.acksWhileTurn
  const freshBig = p.fresh.get(p.big.id) ?? NaN
  const freshSmall = p.fresh.get(p.small.id) ?? NaN
  out.push(
    '',
    `Notes: start-up work after listening (in-process \`host.start()\`: catalog load, resumes, due index) ${fmt(s.startWorkMs, 0)} ms at ${many} sessions with the catalog, ` +
      `${fmt(s.startWorkNoCatalogMs, 0)} ms rebuilding every summary without it; the CLI's CPU went quiet ${fmt(s.quietManyMs, 0)} ms after the spawn (empty: ${fmt(s.quietEmptyMs, 0)} ms). ` +
      `Sessions: ${s.eventsEach} events each, ${s.reps} starts of each kind, alternating. ` +
      `Header floor: list the folder, then open + read the first line + JSON.parse + close of each file, one after another. ` +
      `Cold list without catalog.json (deleted, median of ${l.noCatalogReps}): first page ${fmt(l.noCatalogFirstPageMs, 0)} ms (${fmt(l.noCatalogFirstPageMs / l.headerFloorMs, 2)}× the floor), ` +
      `all pages ${fmt(l.noCatalogAllPagesMs, 0)} ms (${fmt(l.noCatalogAllPagesMs / l.headerFloorMs, 2)}×), while the server rebuilds the summaries in the background.`,
    `Events pages: ${p.limit} events each, ${p.reps} interleaved requests per cell, ${p.big.events} and ${p.small.events} events; opening through \`POST /api/sessions\` took ` +
      `${fmt(p.openMs.get(p.big.id), 0)} ms at ${big} and ${fmt(p.openMs.get(p.small.id), 0)} ms at ${small} (server RSS ${fmt(mb(p.rssClosed), 0)} → ${fmt(mb(p.rssOpen), 0)} MB); ` +
      `the first request of a freshly started server (median of ${p.freshReps}) took ${fmt(freshBig, 1)} ms at ${big} and ${fmt(freshSmall, 1)} ms at ${small} (${fmt(freshBig / freshSmall, 2)}×).`,
    `Acks behind turns (one session, ${w.messages} messages each way): a message POSTed while the previous message's turn is writing is acknowledged in p50 ${fmt(w.busyP50, 2)} ms / p99 ${fmt(w.busyP99)} ms, ` +
      `one POSTed to an idle session in p50 ${fmt(w.idleP50, 2)} ms / p99 ${fmt(w.idleP99)} ms; a turn (POST → turn/end) takes p50 ${fmt(w.turnP50, 2)} ms, ` +
      `so an acknowledgement ${w.busyP50 >= w.idleP50 + w.turnP50 / 2 ? 'waits behind most of a running turn' : 'does not wait for the running turn (at most for the write already in flight)'}. ` +
      'Every queued message runs its own turn (SPEC 3.2 claims one `next-turn` message per turn), so with an instant model the acknowledged rate is bounded by the server CPU per message, turn included.',
  )
  return out.join('\n')
}

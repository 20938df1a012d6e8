import { copyFile, mkdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { BenchClient } from './http-client.ts'
import { readEveryHeader, timeStartWork, writeManyGeneratedSessions } from './many-sessions.ts'
import { median, timed } from './measure.ts'
import { settle, startCli } from './server-process.ts'

/** Medians of the start of the real CLI on an empty data dir and on one with many sessions. */
export type StartupFigures = {
  sessions: number
  reps: number
  eventsEach: number
  listenEmptyMs: number
  listenManyMs: number
  rssEmpty: number
  rssMany: number
  /** Time from the spawn until the process was idle (its start-up work done), null if it never settled. */
  quietEmptyMs: number | null
  quietManyMs: number | null
  /** The host's start-up work in-process (`host.start()`), with the catalog and without it. */
  startWorkMs: number
  startWorkNoCatalogMs: number
  generateMs: number
}

/** Medians of the first `GET /api/sessions` of a fresh server, beside reading every header. */
export type ColdListFigures = {
  sessions: number
  reps: number
  headerFloorMs: number
  firstPageMs: number
  /** Every page in turn at the default limit, the first included. */
  allPagesMs: number
  pages: number
  noCatalogReps: number
  noCatalogFirstPageMs: number
  noCatalogAllPagesMs: number
}

type ListPage = { sessions: { id: string }[]; nextCursor: string | null }

async function startOnce(dataDir: string): Promise<{ listenMs: number; rss: number; quietMs: number | null }> {
  const server = await startCli(dataDir)
  try {
    const quietMs = await settle(server, server.spawnedAt)
    return { listenMs: server.readyMs, rss: server.rss(), quietMs }
  } finally {
    await server.stop()
  }
}

async function listCold(dataDir: string, expected: readonly string[]): Promise<{ firstPageMs: number; allPagesMs: number; pages: number }> {
  const server = await startCli(dataDir)
  const client = new BenchClient(server.url, 1)
  try {
    const start = performance.now()
    let page = await client.json<ListPage>('GET', '/api/sessions', 200)
    const firstPageMs = performance.now() - start
    const listed = page.sessions.map((s) => s.id)
    let pages = 1
    while (page.nextCursor !== null) {
      page = await client.json<ListPage>('GET', `/api/sessions?before=${encodeURIComponent(page.nextCursor)}`, 200)
      listed.push(...page.sessions.map((s) => s.id))
      pages++
    }
    const allPagesMs = performance.now() - start
    const newestFirst = [...expected].reverse()
    if (listed.length !== newestFirst.length || listed.some((id, i) => id !== newestFirst[i])) {
      throw new Error(`the list walk gave ${listed.length} sessions, not the ${expected.length} on disk newest first`)
    }
    return { firstPageMs, allPagesMs, pages }
  } finally {
    client.close()
    await server.stop()
  }
}

function medianOrNull(values: (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null)
  return known.length === values.length ? median(known) : null
}

/**
 * SPEC 12.1 start-up and cold list at `sessions` sessions: generates them, builds their catalog
 * once (a previous run), then starts the real CLI `reps` times on an empty and on the full data
 * dir (alternating) and lists a fresh server `reps` times, beside the time to read every header.
 */
export async function measureStartupAndList(
  root: string,
  sessions: number,
  reps: number,
  seed: number,
  log: (line: string) => void,
): Promise<{ startup: StartupFigures; list: ColdListFigures }> {
  const emptyDir = join(root, 'empty')
  const manyDir = join(root, 'many')
  await mkdir(emptyDir, { recursive: true })
  const { value: many, timing: generated } = await timed(() => writeManyGeneratedSessions(manyDir, sessions, seed))
  log(`generated ${sessions} sessions of ${many.eventsEach} events (${many.bytesEach} bytes each) in ${(generated.wallMs / 1000).toFixed(1)} s`)
  const catalog = join(manyDir, 'catalog.json')
  const startWorkNoCatalogMs = await timeStartWork(manyDir)
  const catalogBytes = (await stat(catalog)).size
  const startWorkMs = await timeStartWork(manyDir)
  log(`start-up work in-process: ${startWorkNoCatalogMs.toFixed(0)} ms building the catalog (${(catalogBytes / 1e6).toFixed(1)} MB), ${startWorkMs.toFixed(0)} ms with it`)

  await startOnce(emptyDir)
  const empty: Awaited<ReturnType<typeof startOnce>>[] = []
  const full: Awaited<ReturnType<typeof startOnce>>[] = []
  for (let r = 0; r < reps; r++) {
    const order = r % 2 === 0 ? [emptyDir, manyDir] : [manyDir, emptyDir]
    for (const dir of order) (dir === emptyDir ? empty : full).push(await startOnce(dir))
  }
  const startup: StartupFigures = {
    sessions,
    reps,
    eventsEach: many.eventsEach,
    listenEmptyMs: median(empty.map((s) => s.listenMs)),
    listenManyMs: median(full.map((s) => s.listenMs)),
    rssEmpty: median(empty.map((s) => s.rss)),
    rssMany: median(full.map((s) => s.rss)),
    quietEmptyMs: medianOrNull(empty.map((s) => s.quietMs)),
    quietManyMs: medianOrNull(full.map((s) => s.quietMs)),
    startWorkMs,
    startWorkNoCatalogMs,
    generateMs: generated.wallMs,
  }
  log(
    `start: listening after ${startup.listenEmptyMs.toFixed(0)} ms empty / ${startup.listenManyMs.toFixed(0)} ms with ${sessions} sessions; ` +
      `RSS ${(startup.rssEmpty / 1e6).toFixed(0)} / ${(startup.rssMany / 1e6).toFixed(0)} MB`,
  )

  const floors: number[] = []
  const first: number[] = []
  const all: number[] = []
  let pages = 0
  for (let r = 0; r < reps; r++) {
    const { value: headers, timing } = await timed(() => readEveryHeader(many.dir))
    if (headers !== sessions) throw new Error(`read ${headers} headers, expected ${sessions}`)
    floors.push(timing.wallMs)
    const cold = await listCold(manyDir, many.ids)
    first.push(cold.firstPageMs)
    all.push(cold.allPagesMs)
    pages = cold.pages
  }
  const saved = join(root, 'catalog.saved.json')
  await copyFile(catalog, saved)
  const noCatalogReps = Math.max(1, Math.floor(reps / 2))
  const bareFirst: number[] = []
  const bareAll: number[] = []
  for (let r = 0; r < noCatalogReps; r++) {
    await rm(catalog)
    const cold = await listCold(manyDir, many.ids)
    bareFirst.push(cold.firstPageMs)
    bareAll.push(cold.allPagesMs)
    await copyFile(saved, catalog)
  }
  const list: ColdListFigures = {
    sessions,
    reps,
    headerFloorMs: median(floors),
    firstPageMs: median(first),
    allPagesMs: median(all),
    pages,
    noCatalogReps,
    noCatalogFirstPageMs: median(bareFirst),
    noCatalogAllPagesMs: median(bareAll),
  }
  log(
    `cold list: first page ${list.firstPageMs.toFixed(0)} ms, all ${pages} pages ${list.allPagesMs.toFixed(0)} ms; ` +
      `reading every header ${list.headerFloorMs.toFixed(0)} ms; without the catalog ${list.noCatalogFirstPageMs.toFixed(0)} / ${list.noCatalogAllPagesMs.toFixed(0)} ms`,
  )
  return { startup, list }
}

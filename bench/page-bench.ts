import { BenchClient } from './http-client.ts'
import { median } from './measure.ts'
import { timeStartWork } from './many-sessions.ts'
import { startCli } from './server-process.ts'

/** A session the page bench reads. */
export type PagedSession = { id: string; events: number; timeZone: string }

/** Which page: the default (the last `limit` events) or the one centred in the log (`?after=`). */
export type PageKind = 'last' | 'middle'

/** Median time of one `GET /events` page per session size, page kind and state of the session. */
export type PageFigures = {
  small: PagedSession
  big: PagedSession
  reps: number
  limit: number
  /** `${state}:${kind}:${id}` → median ms, state `closed` (never opened by this server) or `open`. */
  medians: Map<string, number>
  /** Time of `POST /api/sessions` opening each session (load + folds), by id. */
  openMs: Map<string, number>
  /** Server RSS before and after opening both sessions. */
  rssClosed: number
  rssOpen: number
  /** First request of a freshly started server, by id (median of `freshReps`). */
  fresh: Map<string, number>
  freshReps: number
}

const LIMIT = 500

type Page = { events: unknown[]; firstSeq: number | null; lastSeq: number | null; eventCount: number }

function pathOf(session: PagedSession, kind: PageKind): string {
  if (kind === 'last') return `/api/sessions/${session.id}/events`
  return `/api/sessions/${session.id}/events?after=${Math.floor((session.events - LIMIT) / 2)}`
}

async function timePage(client: BenchClient, session: PagedSession, kind: PageKind): Promise<number> {
  const start = performance.now()
  const page = await client.json<Page>('GET', pathOf(session, kind), 200)
  const ms = performance.now() - start
  const first = kind === 'last' ? session.events - LIMIT : Math.floor((session.events - LIMIT) / 2) + 1
  if (page.eventCount !== session.events || page.events.length !== LIMIT || page.firstSeq !== first || page.lastSeq !== first + LIMIT - 1) {
    throw new Error(`${kind} page of ${session.id}: ${page.events.length} events ${page.firstSeq}..${page.lastSeq} of ${page.eventCount}, expected ${first}..${first + LIMIT - 1} of ${session.events}`)
  }
  return ms
}

const KINDS: readonly PageKind[] = ['last', 'middle']

async function measureState(client: BenchClient, sessions: readonly PagedSession[], reps: number, state: string, into: Map<string, number>): Promise<void> {
  for (const session of sessions) for (const kind of KINDS) for (let i = 0; i < 3; i++) await timePage(client, session, kind)
  const samples = new Map<string, number[]>()
  for (let r = 0; r < reps; r++) {
    const order = r % 2 === 0 ? sessions : [...sessions].reverse()
    for (const session of order) {
      for (const kind of KINDS) {
        const key = `${state}:${kind}:${session.id}`
        const list = samples.get(key) ?? []
        list.push(await timePage(client, session, kind))
        samples.set(key, list)
      }
    }
  }
  for (const [key, list] of samples) into.set(key, median(list))
}

/**
 * SPEC 12.1 `GET /events` (one page) at a big and a small session through the real CLI: each page
 * kind timed `reps` times, interleaved, first while neither session is open (pages read from the
 * file), then once both are open (pages from memory); and the first request of a fresh server.
 */
export async function measurePages(dataDir: string, small: PagedSession, big: PagedSession, reps: number, freshReps: number): Promise<PageFigures> {
  await timeStartWork(dataDir)
  const medians = new Map<string, number>()
  const openMs = new Map<string, number>()
  const server = await startCli(dataDir)
  const client = new BenchClient(server.url, 1)
  let rssClosed: number
  let rssOpen: number
  try {
    await measureState(client, [small, big], reps, 'closed', medians)
    rssClosed = server.rss()
    for (const session of [small, big]) {
      const start = performance.now()
      await client.json('POST', '/api/sessions', 200, { sessionId: session.id, timeZone: session.timeZone })
      openMs.set(session.id, performance.now() - start)
    }
    rssOpen = server.rss()
    await measureState(client, [small, big], reps, 'open', medians)
  } finally {
    client.close()
    await server.stop()
  }
  const freshSamples = new Map<string, number[]>()
  for (let r = 0; r < freshReps; r++) {
    for (const session of r % 2 === 0 ? [big, small] : [small, big]) {
      const fresh = await startCli(dataDir)
      const freshClient = new BenchClient(fresh.url, 1)
      try {
        const list = freshSamples.get(session.id) ?? []
        list.push(await timePage(freshClient, session, 'last'))
        freshSamples.set(session.id, list)
      } finally {
        freshClient.close()
        await fresh.stop()
      }
    }
  }
  const fresh = new Map([...freshSamples].map(([id, list]) => [id, median(list)]))
  return { small, big, reps, limit: LIMIT, medians, openMs, rssClosed, rssOpen, fresh, freshReps }
}

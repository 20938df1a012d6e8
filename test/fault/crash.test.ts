import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { tempDir } from '../support/temp-dir.ts'
import { Rng, runCheckCli, sleep, startServer, type CliProcess } from './support.ts'

/**
 * Fault suite (SPEC 2.5, 3.1, 7.5, 12.2): the real server process on one data dir, conversations in
 * three Sessions, `kill -9` at seeded random points, restart on the same dir. Everything the server
 * acknowledged (a 202 messageId, a 201 session, an event served by `GET /events` or the stream)
 * must survive every kill byte for byte; acknowledged messages run after the restart; every due
 * reminder is delivered at least once; `check` passes on the live data dir after every restart.
 */

const SEED = 0x5c4ed1e
const KILLS = 8
const REQUEST_TIMEOUT_MS = 8_000
const DRAIN_TIMEOUT_MS = 25_000
/** Events per `GET /events` page the suite reads (small, so long sessions are read over several pages). */
const EVENT_PAGE = 200

const INITIAL_SESSIONS: { id: string; timeZone: string; canonical: string }[] = [
  { id: 'east', timeZone: 'US/Eastern', canonical: 'America/New_York' },
  { id: 'asia', timeZone: 'Asia/Shanghai', canonical: 'Asia/Shanghai' },
  { id: 'berlin', timeZone: 'Europe/Berlin', canonical: 'Europe/Berlin' },
]
const CLIENT_ZONES = ['America/New_York', 'Asia/Shanghai', 'Europe/Berlin', 'UTC', 'Asia/Tokyo', 'US/Pacific', 'Asia/Calcutta', 'Etc/UTC']

type Acked = { sessionId: string; text: string; mode: 'queue' | 'steer'; run: number }
type Reminder = { sessionId: string; id: string; scheduledAt: number; prompt: string }

/** Everything the server acknowledged, and what the suite has verified of it. */
class Ledger {
  readonly sessions: string[] = []
  /** Per session: seq → the exact JSON the server served for it. */
  readonly served = new Map<string, Map<number, string>>()
  readonly acked = new Map<string, Acked>()
  readonly failures: string[] = []
  readonly stats = {
    runs: 0,
    kills: 0,
    earlyKills: 0,
    sessionsAcked: 0,
    messagesAcked: 0,
    steersAcked: 0,
    reminderRequestsAcked: 0,
    eventsServedByRoute: 0,
    eventsServedByStream: 0,
    eventsVerified: 0,
    fileLinesVerified: 0,
    checks: 0,
    requestsLostToKill: 0,
  }

  addSession(id: string): void {
    if (!this.sessions.includes(id)) this.sessions.push(id)
    if (!this.served.has(id)) this.served.set(id, new Map())
  }

  /** Records an event as served; a different JSON for a seq served before is a failure. */
  record(sessionId: string, json: string, via: 'route' | 'stream'): void {
    const seq = (JSON.parse(json) as { seq: number }).seq
    const map = this.served.get(sessionId)
    if (!map) return
    const before = map.get(seq)
    if (before === undefined) {
      map.set(seq, json)
      if (via === 'route') this.stats.eventsServedByRoute++
      else this.stats.eventsServedByStream++
    } else if (before !== json) {
      this.failures.push(`session ${sessionId} seq ${seq} served differently via ${via}: ${before} then ${json}`)
    }
  }
}

const children: CliProcess[] = []
afterEach(() => {
  for (const running of children.splice(0)) {
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL')
  }
})

async function getJson(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  return { status: response.status, body: (await response.json()) as unknown }
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** GET /events of a session; records every served event; returns the events. */
/** Every event of a session as `GET /events` serves it, page after page from seq 0 (a default page is only the last one). */
async function allEvents(base: string, id: string): Promise<SessionEvent[]> {
  const events: SessionEvent[] = []
  for (;;) {
    const { status, body } = await getJson(`${base}/api/sessions/${id}/events?after=${events.length - 1}&limit=${EVENT_PAGE}`)
    if (status !== 200) throw new Error(`GET /events of ${id} answered ${status}: ${JSON.stringify(body)}`)
    const page = body as { events: SessionEvent[]; eventCount: number }
    for (const event of page.events) {
      if (event.seq !== events.length) throw new Error(`GET /events of ${id} served seq ${event.seq} where seq ${events.length} was next`)
      events.push(event)
    }
    if (page.events.length === 0 || events.length >= page.eventCount) return events
  }
}

async function fetchEvents(base: string, ledger: Ledger, id: string): Promise<SessionEvent[]> {
  const events = await allEvents(base, id)
  for (const event of events) ledger.record(id, JSON.stringify(event), 'route')
  return events
}

/** Follows a session's SSE stream, recording every complete `session-event` frame, until it fails or is aborted. */
async function watchStream(base: string, ledger: Ledger, id: string, signal: AbortSignal): Promise<void> {
  try {
    const response = await fetch(`${base}/api/sessions/${id}/stream`, { signal })
    if (response.status !== 200 || !response.body) {
      ledger.failures.push(`stream of ${id} answered ${response.status}`)
      return
    }
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let buffer = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buffer += decoder.decode(value, { stream: true })
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        let event = ''
        const data: string[] = []
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim()
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
        }
        if (event === 'session-event') ledger.record(id, data.join('\n'), 'stream')
      }
    }
  } catch {
    // the server was killed or the watcher was stopped: frames read so far stay recorded
  }
}

function userMessages(events: readonly SessionEvent[]): SessionEvent<'user/message'>[] {
  return events.filter((e): e is SessionEvent<'user/message'> => e.type === 'user/message')
}

function remindersOf(sessionId: string, events: readonly SessionEvent[]): Reminder[] {
  const out: Reminder[] = []
  for (const event of events) {
    if (event.type !== 'schedule/change' || event.data.operation !== 'create') continue
    const schedule = event.data.schedule as { id: string; scheduledAt: string; prompt: string }
    out.push({ sessionId, id: schedule.id, scheduledAt: Date.parse(schedule.scheduledAt), prompt: schedule.prompt })
  }
  return out
}

/** How many reminder follow-ups naming this schedule id entered the conversation. */
function deliveries(events: readonly SessionEvent[], scheduleId: string): number {
  const needle = `schedule_id_json: ${JSON.stringify(scheduleId)}`
  return userMessages(events).filter((e) => {
    const source = e.data.source as { kind: string; plugin?: string }
    return source.kind === 'plugin' && source.plugin === 'schedule' && e.data.content.some((b) => b.text.split('\n').includes(needle))
  }).length
}

/** After a restart: every acknowledged session opens and every served event is unchanged, in the API and on disk. */
async function verifyRestart(base: string, dataDir: string, ledger: Ledger): Promise<void> {
  const list = await getJson(`${base}/api/sessions`)
  expect(list.status).toBe(200)
  const listed = (list.body as { sessions: { id: string }[] }).sessions.map((s) => s.id)
  for (const id of ledger.sessions) {
    const one = await getJson(`${base}/api/sessions/${id}`)
    expect({ id, status: one.status }).toEqual({ id, status: 200 })
    expect((one.body as { session: { id: string } }).session.id).toBe(id)
    expect(listed).toContain(id)
    const served = ledger.served.get(id) ?? new Map<number, string>()
    const now = await allEvents(base, id)
    const lines = (await readFile(join(dataDir, 'sessions', `${id}.jsonl`), 'utf8')).split('\n')
    for (const [seq, json] of served) {
      const again = now[seq] === undefined ? '<missing>' : JSON.stringify(now[seq])
      if (again !== json) ledger.failures.push(`session ${id} seq ${seq} lost or changed after restart: ${json} → ${again}`)
      if (lines[seq + 1] !== json) ledger.failures.push(`session ${id} seq ${seq} differs on disk: ${json} → ${lines[seq + 1]}`)
      ledger.stats.eventsVerified++
      ledger.stats.fileLinesVerified++
    }
    for (const event of now) ledger.record(id, JSON.stringify(event), 'route')
  }
  expect(ledger.failures).toEqual([])
}

/**
 * Waits until every acknowledged message entered its session exactly once as a `user/message` and
 * every reminder due by `dueBy` was delivered; returns the latest logs.
 */
async function drain(base: string, ledger: Ledger, dueBy: () => number): Promise<Map<string, SessionEvent[]>> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS
  for (;;) {
    const logs = new Map<string, SessionEvent[]>()
    for (const id of ledger.sessions) logs.set(id, await fetchEvents(base, ledger, id))
    const problems: string[] = []
    const entered = new Map<string, number>()
    for (const [id, events] of logs) {
      for (const e of userMessages(events)) entered.set(`${id}/${e.data.id}`, (entered.get(`${id}/${e.data.id}`) ?? 0) + 1)
    }
    for (const [messageId, acked] of ledger.acked) {
      const count = entered.get(`${acked.sessionId}/${messageId}`) ?? 0
      if (count === 0) problems.push(`acknowledged ${acked.mode} message ${messageId} (${JSON.stringify(acked.text)}, run ${acked.run}) has not entered ${acked.sessionId}`)
      if (count > 1) ledger.failures.push(`message ${messageId} entered ${acked.sessionId} ${count} times`)
    }
    const limit = dueBy()
    for (const [id, events] of logs) {
      for (const reminder of remindersOf(id, events)) {
        if (reminder.scheduledAt <= limit && deliveries(events, reminder.id) === 0) {
          problems.push(`reminder ${id}/${reminder.id} due ${new Date(reminder.scheduledAt).toISOString()} was not delivered`)
        }
      }
    }
    expect(ledger.failures).toEqual([])
    if (problems.length === 0) return logs
    if (Date.now() > deadline) {
      const dropped = [...logs].flatMap(([id, events]) =>
        events.filter((e) => e.type === 'inbox/dropped').map((e) => `${id}: ${JSON.stringify(e.data)}`),
      )
      throw new Error(`not drained within ${DRAIN_TIMEOUT_MS} ms:\n${problems.join('\n')}\ndropped: ${dropped.join('\n')}`)
    }
    await sleep(60)
  }
}

async function sessionFileNames(dataDir: string): Promise<string[]> {
  return (await readdir(join(dataDir, 'sessions'))).filter((n) => n.endsWith('.jsonl')).sort()
}

/** A `check` run over the live data dir, started now, with the session files that existed at its start. */
type PendingCheck = { files: string[]; result: Promise<{ code: number | null; stdout: string; stderr: string }> }

async function launchCheck(dataDir: string): Promise<PendingCheck> {
  return { files: await sessionFileNames(dataDir), result: runCheckCli([dataDir]) }
}

/**
 * Asserts a `check` run exited 0 printing only `ok <path>` lines: one for every session file that
 * existed when it started, plus possibly files created while it ran.
 */
async function expectCheckOk(pending: PendingCheck, dataDir: string): Promise<void> {
  const result = await pending.result
  const now = await sessionFileNames(dataDir)
  const path = (name: string): string => join(dataDir, 'sessions', name)
  expect({ code: result.code, stderr: result.stderr, endsWithNewline: result.stdout.endsWith('\n') }).toEqual({
    code: 0,
    stderr: '',
    endsWithNewline: true,
  })
  const lines = result.stdout.slice(0, -1).split('\n')
  for (const line of lines) expect(now.map((name) => `ok ${path(name)}`)).toContain(line)
  for (const name of pending.files) expect(lines).toContain(`ok ${path(name)}`)
}

type DriveContext = { base: string; ledger: Ledger; run: number; rng: Rng; stopped: () => boolean; onSession: (id: string) => void }

/** One worker of a run: random requests against the live server until it is killed. */
async function worker(ctx: DriveContext, name: string): Promise<void> {
  const { base, ledger, run, rng } = ctx
  let n = 0
  while (!ctx.stopped()) {
    n++
    const sessionId = rng.pick(ledger.sessions)
    const clientTimeZone = rng.pick(CLIENT_ZONES)
    const roll = rng.next()
    try {
      if (roll < 0.42) {
        const text = `note ${run}.${name}.${n} from ${clientTimeZone}`
        const answer = await postJson(`${base}/api/sessions/${sessionId}/messages`, { text, clientTimeZone })
        if (answer.status !== 202) ledger.failures.push(`queue to ${sessionId} answered ${answer.status} ${JSON.stringify(answer.body)}`)
        else {
          ledger.acked.set(String(answer.body.messageId), { sessionId, text, mode: 'queue', run })
          ledger.stats.messagesAcked++
        }
      } else if (roll < 0.62) {
        const text = `steer ${run}.${name}.${n} from ${clientTimeZone}`
        const answer = await postJson(`${base}/api/sessions/${sessionId}/messages`, { text, clientTimeZone, mode: 'steer' })
        if (answer.status !== 202) ledger.failures.push(`steer to ${sessionId} answered ${answer.status} ${JSON.stringify(answer.body)}`)
        else {
          ledger.acked.set(String(answer.body.messageId), { sessionId, text, mode: 'steer', run })
          ledger.stats.messagesAcked++
          ledger.stats.steersAcked++
        }
      } else if (roll < 0.8) {
        const seconds = rng.int(1, 2)
        const text = `remind me in ${seconds} seconds to stretch r${run}${name}${n}`
        const answer = await postJson(`${base}/api/sessions/${sessionId}/messages`, { text, clientTimeZone })
        if (answer.status !== 202) ledger.failures.push(`reminder request to ${sessionId} answered ${answer.status}`)
        else {
          ledger.acked.set(String(answer.body.messageId), { sessionId, text, mode: 'queue', run })
          ledger.stats.messagesAcked++
          ledger.stats.reminderRequestsAcked++
        }
      } else if (roll < 0.92) {
        await fetchEvents(base, ledger, sessionId)
      } else if (roll < 0.96) {
        const answer = await getJson(`${base}/api/sessions/${sessionId}/schedules`)
        if (answer.status !== 200) ledger.failures.push(`schedules of ${sessionId} answered ${answer.status}`)
      } else {
        if (ledger.sessions.length >= INITIAL_SESSIONS.length + 2 || rng.chance(0.6)) continue
        const id = `late-${run}-${name}${n}`
        const timeZone = rng.pick(CLIENT_ZONES)
        const answer = await postJson(`${base}/api/sessions`, { sessionId: id, timeZone })
        if (answer.status !== 201) ledger.failures.push(`create ${id} answered ${answer.status} ${JSON.stringify(answer.body)}`)
        else {
          ledger.stats.sessionsAcked++
          ledger.addSession(id)
          ctx.onSession(id)
        }
      }
    } catch {
      // the request was cut by the kill: nothing was acknowledged
      if (ctx.stopped()) ledger.stats.requestsLostToKill++
      else throw new Error(`request failed while the server was alive (worker ${name}, request ${n})`)
    }
    await sleep(rng.int(0, 45))
  }
}

describe('kill -9 fault suite', () => {
  it('starts beside a session file a kill left empty (created, header not yet written): other sessions open, the id can be created again', async () => {
    const dataDir = await tempDir('sw-fault-empty-')
    await mkdir(join(dataDir, 'sessions'))
    const header = { type: 'session', version: 1, id: 'whole', createdAt: Date.UTC(2026, 6, 15), timeZone: 'Asia/Shanghai' }
    await writeFile(join(dataDir, 'sessions', 'whole.jsonl'), `${JSON.stringify(header)}\n`)
    await writeFile(join(dataDir, 'sessions', 'half.jsonl'), '')
    const server = await startServer(dataDir, ['--model-delay-ms', '20'])
    children.push(server)
    const list = await getJson(`${server.url}/api/sessions`)
    expect({ status: list.status, ids: (list.body as { sessions: { id: string }[] }).sessions.map((x) => x.id) }).toEqual({ status: 200, ids: ['whole'] })
    expect((await getJson(`${server.url}/api/sessions/whole`)).status).toBe(200)
    expect((await getJson(`${server.url}/api/sessions/half`)).status).toBe(404)
    expect(await postJson(`${server.url}/api/sessions`, { timeZone: 'UTC', sessionId: 'half' })).toMatchObject({ status: 201, body: { session: { id: 'half', timeZone: 'UTC' } } })
    server.child.kill('SIGTERM')
    expect(await server.exited).toEqual({ code: 0, signal: null })
  })


  it(
    'keeps every acknowledged message, served event and due reminder across seeded kill -9 restarts; check passes each time',
    async () => {
      const started = Date.now()
      const dataDir = await tempDir('sw-fault-')
      const plan = new Rng(SEED)
      const ledger = new Ledger()
      const deliveredCounts = new Map<string, number>()
      let finalLogs = new Map<string, SessionEvent[]>()
      const runLog: string[] = []
      const stderrs: string[] = []
      let pendingCheck: PendingCheck | null = null
      const settleCheck = async (): Promise<void> => {
        if (pendingCheck === null) return
        const pending: PendingCheck = pendingCheck
        pendingCheck = null
        await expectCheckOk(pending, dataDir)
        ledger.stats.checks++
      }

      for (let run = 0; run <= KILLS; run++) {
        const last = run === KILLS
        const delayMs = plan.int(20, 80)
        const early = !last && run > 0 && plan.chance(0.3)
        const killAfterMs = early ? plan.int(20, 400) : plan.int(150, 900)
        const workerSeed = plan.int(1, 2 ** 31)

        const t0 = Date.now()
        const server = await startServer(dataDir, ['--model-delay-ms', String(delayMs)])
        const tStart = Date.now() - t0
        children.push(server)
        const restartedAt = Date.now()
        ledger.stats.runs++
        const base = server.url

        if (run === 0) {
          for (const s of INITIAL_SESSIONS) {
            expect(await postJson(`${base}/api/sessions`, { timeZone: s.timeZone, sessionId: s.id })).toMatchObject({
              status: 201,
              body: { session: { id: s.id, timeZone: s.canonical, eventCount: 0 } },
            })
            ledger.addSession(s.id)
            ledger.stats.sessionsAcked++
          }
        } else {
          await verifyRestart(base, dataDir, ledger)
        }

        const watchers = new AbortController()
        const streams: Promise<void>[] = []
        const follow = (id: string): void => {
          streams.push(watchStream(base, ledger, id, watchers.signal))
        }
        for (const id of ledger.sessions) follow(id)

        // the previous restart's check ran beside this start; this restart's check runs beside the drive
        await settleCheck()
        if (run > 0) pendingCheck = await launchCheck(dataDir)
        if (!early) finalLogs = await drain(base, ledger, () => (last ? Infinity : restartedAt))
        runLog.push(`${run}:${tStart}/${early ? 'early' : Date.now() - restartedAt}/${last ? '-' : killAfterMs}`)

        if (last) {
          const latest = Math.max(0, ...[...finalLogs].flatMap(([id, events]) => remindersOf(id, events).map((r) => r.scheduledAt)))
          while (Date.now() <= latest + 200) await sleep(50)
          finalLogs = await drain(base, ledger, () => Date.now())
          watchers.abort()
          server.child.kill('SIGTERM')
          expect(await server.exited).toEqual({ code: 0, signal: null })
          stderrs.push(server.stderr())
          await Promise.all(streams)
          await settleCheck()
          break
        }

        let stopped = false
        const rng = new Rng(workerSeed)
        const ctx: DriveContext = { base, ledger, run, rng, stopped: () => stopped, onSession: follow }
        const workers = [worker(ctx, 'a'), worker(ctx, 'b')]
        await sleep(killAfterMs)
        stopped = true
        server.child.kill('SIGKILL')
        expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' })
        stderrs.push(server.stderr())
        ledger.stats.kills++
        if (early) ledger.stats.earlyKills++
        await Promise.all(workers)
        watchers.abort()
        await Promise.all(streams)
        expect(ledger.failures).toEqual([])
      }

      // the final state on disk: every served event is a line of its file, and check passes
      for (const id of ledger.sessions) {
        const lines = (await readFile(join(dataDir, 'sessions', `${id}.jsonl`), 'utf8')).split('\n')
        for (const [seq, json] of ledger.served.get(id) ?? []) {
          if (lines[seq + 1] !== json) ledger.failures.push(`session ${id} seq ${seq} differs on disk at the end`)
          ledger.stats.fileLinesVerified++
        }
      }
      expect(ledger.failures).toEqual([])
      pendingCheck = await launchCheck(dataDir)
      await settleCheck()

      let reminders = 0
      let delivered = 0
      let duplicated = 0
      for (const [id, events] of finalLogs) {
        for (const reminder of remindersOf(id, events)) {
          reminders++
          const count = deliveries(events, reminder.id)
          deliveredCounts.set(`${id}/${reminder.id}`, count)
          expect({ reminder: `${id}/${reminder.id}`, delivered: count > 0 }).toEqual({ reminder: `${id}/${reminder.id}`, delivered: true })
          delivered++
          if (count > 1) duplicated++
        }
      }
      const interrupted = [...finalLogs.values()].flat().filter((e) => e.type === 'turn/end' && e.data.reason === 'error' && /interrupted/.test(e.data.message ?? '')).length
      const tornTails = stderrs.join('').split('\n').filter((line) => line.includes('recovered a torn final line')).length
      // what a kill leaves behind and a start cleans up: a torn final line, the staged file of a creation, a catalog older than the logs
      const expectedAfterKill = [/recovered a torn final line/, /^removed the staged file \S+ of an interrupted session creation$/, /^catalog: \d+ session summaries are stale and will be rebuilt from their logs$/]
      const unexpected = stderrs.join('').split('\n').filter((line) => line !== '' && !expectedAfterKill.some((pattern) => pattern.test(line)))
      expect(unexpected).toEqual([])
      const s = ledger.stats
      expect(s.kills).toBe(KILLS)
      expect(s.messagesAcked).toBeGreaterThan(KILLS)
      expect(reminders).toBeGreaterThan(0)
      console.log(
        [
          `fault suite (seed 0x${SEED.toString(16)}): runs ${s.runs}, kills ${s.kills} (${s.earlyKills} during recovery), sessions ${ledger.sessions.length}`,
          `  messages acknowledged ${s.messagesAcked} (steer ${s.steersAcked}, reminder requests ${s.reminderRequestsAcked}), all entered exactly once`,
          `  events served: route ${s.eventsServedByRoute}, stream ${s.eventsServedByStream}; events verified after restarts ${s.eventsVerified}, file lines verified ${s.fileLinesVerified}`,
          `  turns interrupted by a kill ${interrupted}, torn final lines recovered ${tornTails}`,
          `  reminders created ${reminders}, delivered ${delivered} (exactly once ${delivered - duplicated}, visible duplicates ${duplicated}), lost 0`,
          `  check runs ${s.checks} (all ok); requests cut by a kill ${s.requestsLostToKill}; ${Date.now() - started} ms`,
          `  per run (start ms / drain ms / kill after ms): ${runLog.join(' ')}`,
        ].join('\n'),
      )
    },
    180_000,
  )
})

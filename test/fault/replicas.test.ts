import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SCHEMA } from '../../src/host/index.ts'
import type { SessionEvent } from '../../src/protocol/index.ts'
import { freshDatabase, type TestDatabase } from '../support/postgres.ts'
import { SseReader, type Frame } from '../support/sse-reader.ts'
import { tempDir } from '../support/temp-dir.ts'
import { runCheckCli, startServer, type CliProcess } from './support.ts'

type Replica = CliProcess & { url: string; name: string }

const running: Replica[] = []
const streams: AbortController[] = []

afterEach(async () => {
  for (const controller of streams.splice(0)) controller.abort()
  for (const replica of running.splice(0)) {
    if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill('SIGKILL')
    await replica.exited
  }
})

const LEASE_MS = 1500

/** One replica: the real CLI on the shared database, its own lease owner name, optionally a script model. */
async function replica(db: TestDatabase, name: string, script?: unknown[]): Promise<Replica> {
  const dir = await tempDir(`sw-replica-${name}-`)
  const extra = ['--database-url', db.url, '--replica-id', name, '--lease-ms', String(LEASE_MS)]
  if (script) {
    const path = join(dir, 'script.json')
    await writeFile(path, JSON.stringify(script))
    extra.push('--model', `script:${path}`)
  }
  const server = await startServer(dir, extra)
  const started = { ...server, name }
  running.push(started)
  return started
}

async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** Everything a stream delivers, from its start: events in order, until the test ends. */
function follow(replica: Replica, id: string): { events: SessionEvent[] } {
  const seen: { events: SessionEvent[] } = { events: [] }
  const controller = new AbortController()
  streams.push(controller)
  void (async () => {
    const response = await fetch(`${replica.url}/api/sessions/${id}/stream?after=-1`, { signal: controller.signal })
    const sse = new SseReader((response.body as ReadableStream<Uint8Array>).getReader())
    for (;;) {
      const frame = await sse.next()
      if (frame.event === 'session-event') seen.events.push(JSON.parse(frame.data) as SessionEvent)
    }
  })().catch(() => undefined)
  return seen
}

/** Every frame a stream delivers (status, deltas, events), in order, from where it starts (the end of the log). */
function frames(replica: Replica, id: string): Frame[] {
  const seen: Frame[] = []
  const controller = new AbortController()
  streams.push(controller)
  void (async () => {
    const response = await fetch(`${replica.url}/api/sessions/${id}/stream`, { signal: controller.signal })
    const sse = new SseReader((response.body as ReadableStream<Uint8Array>).getReader())
    for (;;) seen.push(await sse.next())
  })().catch(() => undefined)
  return seen
}

async function logOf(db: TestDatabase, id: string): Promise<SessionEvent[]> {
  const rows = await db.admin(`SELECT event_json FROM ${SCHEMA}.events WHERE session_id = $1 ORDER BY seq`, [id])
  return rows.rows.map((row: { event_json: string }) => JSON.parse(row.event_json) as SessionEvent)
}

async function leaseOwner(db: TestDatabase, id: string): Promise<string | null> {
  const rows = await db.admin(`SELECT owner FROM ${SCHEMA}.leases WHERE session_id = $1 AND expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint`, [id])
  return (rows.rows[0] as { owner: string } | undefined)?.owner ?? null
}

function texts(events: readonly SessionEvent[], kind: 'user' | 'schedule'): string[] {
  return events.flatMap((e) =>
    e.type === 'user/message' && (kind === 'user' ? e.data.source.kind === 'user' : e.data.source.kind === 'plugin' && e.data.source.plugin === 'schedule')
      ? [e.data.content[0].text]
      : [],
  )
}

const WAIT = { timeout: 20_000, interval: 50 }

/** The `dispatch` changes of a log: a reminder delivered. */
function dispatchesIn(events: readonly SessionEvent[]): SessionEvent[] {
  return events.filter((e) => e.type === 'schedule/change' && (e.data as { operation: string }).operation === 'dispatch')
}

describe('replicas on one PostgreSQL (SPEC 14.3)', { timeout: 90_000 }, () => {
  it('runs a message posted to any replica on the one that holds the lease, and every replica streams every event in order', async () => {
    const db = await freshDatabase()
    const [a, b, c] = await Promise.all([replica(db, 'a'), replica(db, 'b'), replica(db, 'c')])
    expect((await post(`${b.url}/api/sessions`, { sessionId: 's', timeZone: 'Asia/Shanghai' })).status).toBe(201)
    expect(await leaseOwner(db, 's')).toMatch(/^b\./)
    const seen = [follow(a, 's'), follow(b, 's'), follow(c, 's')]
    const sent = await post(`${a.url}/api/sessions/s/messages`, { text: 'what time is it?', clientTimeZone: 'Asia/Shanghai' })
    expect(sent.status).toBe(202)
    const second = await post(`${c.url}/api/sessions/s/messages`, { text: 'and in Berlin?', clientTimeZone: 'Europe/Berlin' })
    expect(second.status).toBe(202)
    const log = await vi.waitFor(async () => {
      const events = await logOf(db, 's')
      expect(events.filter((e) => e.type === 'turn/end')).toHaveLength(2)
      return events
    }, WAIT)
    // the loop ran on b, which held the lease all along
    expect(await leaseOwner(db, 's')).toMatch(/^b\./)
    expect(texts(log, 'user')).toEqual(['what time is it?', 'and in Berlin?'])
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i))
    for (const stream of seen) {
      await vi.waitFor(() => expect(stream.events.length).toBe(log.length), WAIT)
      expect(stream.events).toEqual(log)
    }
    // every replica describes the same session from the database
    for (const r of [a, b, c]) {
      const answer = (await (await fetch(`${r.url}/api/sessions/s`)).json()) as { session: { eventCount: number } }
      expect(answer.session.eventCount).toBe(log.length)
    }
  })

  it('streams an answer generated on the lease holder to the readers of another replica as it is written, from its beginning to one who joins mid-answer', async () => {
    const text = 'Good morning! Here is your plan for today: stretch, write, walk, read and rest.'
    const script = [{ text, streamDelayMs: 150 }]
    const db = await freshDatabase()
    const [a, b] = await Promise.all([replica(db, 'a', script), replica(db, 'b', script)])
    expect((await post(`${b.url}/api/sessions`, { sessionId: 'w', timeZone: 'UTC' })).status).toBe(201)
    const early = frames(a, 'w')
    await vi.waitFor(() => expect(early.map((f) => f.event)).toEqual(['status']), WAIT)
    expect((await post(`${a.url}/api/sessions/w/messages`, { text: 'plan my day', clientTimeZone: 'UTC' })).status).toBe(202)
    await vi.waitFor(() => expect(early.filter((f) => f.event === 'assistant-delta').length).toBeGreaterThanOrEqual(3), WAIT)
    const late = frames(a, 'w')
    await vi.waitFor(async () => expect((await logOf(db, 'w')).some((e) => e.type === 'turn/end')).toBe(true), WAIT)
    expect(await leaseOwner(db, 'w')).toMatch(/^b\./)
    const answered = (list: Frame[]) => list.findIndex((f) => f.event === 'session-event' && (JSON.parse(f.data) as SessionEvent).type === 'assistant/message')
    for (const seen of [early, late]) await vi.waitFor(() => expect(answered(seen)).toBeGreaterThan(0), WAIT)
    for (const seen of [early, late]) {
      const deltas = seen.flatMap((f, i) => (f.event === 'assistant-delta' ? [{ at: i, delta: JSON.parse(f.data) as { turn: number; step: number; text: string } }] : []))
      // every piece before the answer itself, all of it, in order
      expect(deltas.every(({ at }) => at < answered(seen))).toBe(true)
      expect(deltas.map(({ delta }) => delta.text).join('')).toBe(text)
      expect(new Set(deltas.map(({ delta }) => `${delta.turn}.${delta.step}`))).toEqual(new Set(['1.1']))
      const message = JSON.parse(seen[answered(seen)].data) as SessionEvent
      expect(message.type === 'assistant/message' && message.data.content).toEqual([{ type: 'text', text }])
    }
    // the reader who joined mid-answer got the text so far at once, right after its status
    expect(late[0].event).toBe('status')
    expect(late[1].event).toBe('assistant-delta')
    expect((JSON.parse(late[1].data) as { text: string }).text.split(' ').length).toBeGreaterThanOrEqual(3)
  })

  it('fails over after kill -9 of the lease holder: the open turn closes as interrupted, queued messages and a reminder due meanwhile run exactly once', async () => {
    const db = await freshDatabase()
    const owner = await replica(db, 'owner', [{ text: 'thinking for a long time', delayMs: 120_000 }])
    const other = await replica(db, 'other')
    expect((await post(`${owner.url}/api/sessions`, { sessionId: 'f', timeZone: 'UTC' })).status).toBe(201)
    expect((await post(`${owner.url}/api/sessions/f/messages`, { text: 'first, slow', clientTimeZone: 'UTC' })).status).toBe(202)
    await vi.waitFor(async () => expect((await logOf(db, 'f')).some((e) => e.type === 'request/header')).toBe(true), WAIT)
    // queued behind the running turn, through the other replica (forwarded to the owner, durable before its 202)
    expect((await post(`${other.url}/api/sessions/f/messages`, { text: 'second, queued', clientTimeZone: 'UTC' })).status).toBe(202)
    expect((await post(`${other.url}/api/sessions/f/schedules`, { prompt: 'stand up', after_seconds: 1 })).status).toBe(201)
    const seen = follow(other, 'f')
    const killedAt = Date.now()
    owner.child.kill('SIGKILL')
    await owner.exited

    const log = await vi.waitFor(async () => {
      const events = await logOf(db, 'f')
      expect(events.filter((e) => e.type === 'turn/end').length).toBeGreaterThanOrEqual(3)
      expect(texts(events, 'schedule')).toHaveLength(1)
      expect(events.at(-1)?.type).toBe('turn/end')
      return events
    }, WAIT)
    const ends = log.flatMap((e) => (e.type === 'turn/end' ? [e] : []))
    expect(ends[0].data).toEqual({ turn: 1, reason: 'error', message: 'interrupted: the host stopped during this turn' })
    // taken over within the lease and a second of the kill
    expect(ends[0].time - killedAt).toBeLessThanOrEqual(LEASE_MS + 1000)
    expect(texts(log, 'user')).toEqual(['first, slow', 'second, queued'])
    expect(texts(log, 'schedule')).toHaveLength(1)
    const dispatches = dispatchesIn(log)
    expect(dispatches).toHaveLength(1)
    expect(await leaseOwner(db, 'f')).toMatch(/^other\./)
    await vi.waitFor(() => expect(seen.events).toEqual(log), WAIT)
    const checked = await runCheckCli(['--database-url', db.url])
    expect(checked).toEqual({ code: 0, stdout: 'ok f\n', stderr: '' })
  })

  it('delivers the reminder of an idle session whose owner died, made on that owner after the other replica started, within about a lease of its time', async () => {
    const db = await freshDatabase()
    const owner = await replica(db, 'owner')
    await replica(db, 'other')
    expect((await post(`${owner.url}/api/sessions`, { sessionId: 'idle', timeZone: 'UTC' })).status).toBe(201)
    const made = await post(`${owner.url}/api/sessions/idle/schedules`, { prompt: 'stretch', after_seconds: 3 })
    expect(made.status).toBe(201)
    const dueAt = Date.parse((made.body.schedule as { scheduledAt: string }).scheduledAt)
    // the owner dies just before the reminder's time: at its time, the owner's lease is still live
    await new Promise((resolve) => setTimeout(resolve, dueAt - Date.now() - 500))
    const killedAt = Date.now()
    owner.child.kill('SIGKILL')
    await owner.exited

    // on the code before, nothing was delivered (no turn or message was waiting, and the other replica never
    // looked at the due index again, nor tried a wake again that the live lease had refused)
    const log = await vi.waitFor(async () => {
      const events = await logOf(db, 'idle')
      expect(events.at(-1)?.type).toBe('turn/end')
      expect(texts(events, 'schedule')).toHaveLength(1)
      return events
    }, WAIT)
    const dispatches = dispatchesIn(log)
    expect(dispatches).toHaveLength(1)
    // within two leases and a second of the owner's death (README): its lease lapses, then a look or a retry comes
    expect(dispatches[0].time - killedAt).toBeLessThanOrEqual(2 * LEASE_MS + 1000)
    expect(await leaseOwner(db, 'idle')).toMatch(/^other\./)
    const checked = await runCheckCli(['--database-url', db.url])
    expect(checked).toEqual({ code: 0, stdout: 'ok idle\n', stderr: '' })
  })

  it('answers 404 to every route of a session that does not exist, on any replica, and writes nothing', async () => {
    const db = await freshDatabase()
    const first = await replica(db, 'first')
    const second = await replica(db, 'second')
    const routes: [string, string, unknown?][] = [
      ['GET', ''],
      ['PATCH', '', { title: 'Renamed' }],
      ['GET', '/events'],
      ['POST', '/messages', { text: 'hi', clientTimeZone: 'UTC' }],
      ['POST', '/cancel'],
      ['GET', '/schedules'],
      ['POST', '/schedules', { prompt: 'stretch', after_seconds: 60 }],
      ['PATCH', '/schedules/schedule-1', { prompt: 'stretch more' }],
      ['POST', '/schedules/schedule-1/snooze', { seconds: 600 }],
      ['DELETE', '/schedules/schedule-1'],
    ]
    const answers: unknown[] = []
    for (const server of [first, second]) {
      for (const [method, suffix, body] of routes) {
        const response = await fetch(`${server.url}/api/sessions/nosuch${suffix}`, {
          method,
          ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        })
        answers.push([method, suffix, response.status, await response.json()])
      }
    }
    // on the code before, the writes answered 503 with the database's foreign-key error, and Retry-After
    const missing = { error: { code: 'session-not-found', message: 'session nosuch does not exist', details: { sessionId: 'nosuch' } } }
    expect(answers).toEqual([...routes, ...routes].map(([method, suffix]) => [method, suffix, 404, missing]))
    expect((await db.admin(`SELECT count(*)::int AS n FROM ${SCHEMA}.events`)).rows).toEqual([{ n: 0 }])
    expect((await db.admin(`SELECT count(*)::int AS n FROM ${SCHEMA}.leases`)).rows).toEqual([{ n: 0 }])
  })

  it('answers a reminder change or a message whose owner died after writing it and before answering once: the rerun finds it instead of making it again', async () => {
    const db = await freshDatabase()
    const first = await replica(db, 'first')
    const second = await replica(db, 'second')
    expect((await post(`${first.url}/api/sessions`, { sessionId: 'r', timeZone: 'UTC' })).status).toBe(201)
    expect((await post(`${first.url}/api/sessions/r/messages`, { text: 'hello', clientTimeZone: 'UTC' })).status).toBe(202)
    await vi.waitFor(async () => expect(await leaseOwner(db, 'r')).toMatch(/^first\./), WAIT)
    // the owner's answer to a forwarded command stalls after the change it made is durable: a trigger on the answer
    // (never in the store's own schema) sleeps while the test's flag row is there
    await db.admin(`CREATE TABLE public.stall_answers (on_purpose boolean)`)
    await db.admin(`GRANT SELECT ON public.stall_answers TO PUBLIC`)
    await db.admin(`CREATE FUNCTION public.stall_answer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.result IS NOT NULL AND EXISTS (SELECT 1 FROM public.stall_answers) THEN PERFORM pg_sleep(60); END IF; RETURN NEW; END $$`)
    await db.admin(`CREATE TRIGGER stall_answer BEFORE UPDATE ON ${SCHEMA}.commands FOR EACH ROW EXECUTE FUNCTION public.stall_answer()`)
    const changes = async (operation: string) => (await logOf(db, 'r')).filter((e) => e.type === 'schedule/change' && (e.data as { operation: string }).operation === operation)
    /** Kills the owner while its answer stalls, as a machine dies: its process, then its database connections. */
    const die = async (owner: Replica) => {
      await vi.waitFor(async () => expect((await db.admin(`SELECT 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'`)).rows).toHaveLength(1), WAIT)
      owner.child.kill('SIGKILL')
      await owner.exited
      await db.admin('DELETE FROM public.stall_answers')
      await db.admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep'`)
    }

    // a create sent to the second replica runs on the first, which dies before it answers; the second takes over
    await db.admin('INSERT INTO public.stall_answers VALUES (true)')
    const created = post(`${second.url}/api/sessions/r/schedules`, { prompt: 'stand up', after_seconds: 3600 })
    await vi.waitFor(async () => expect(await changes('create')).toHaveLength(1), WAIT)
    await die(first)
    const answer = await created
    expect(answer.status).toBe(201)
    expect(answer.body.schedule).toMatchObject({ id: 'schedule-1', kind: 'after', prompt: 'stand up', afterSeconds: 3600 })
    expect(await changes('create')).toHaveLength(1)
    expect(await leaseOwner(db, 'r')).toMatch(/^second\./)

    // a delete sent to a third replica runs on the second, which dies the same way; the third takes over
    const third = await replica(db, 'third')
    await db.admin('INSERT INTO public.stall_answers VALUES (true)')
    const deleted = fetch(`${third.url}/api/sessions/r/schedules/schedule-1`, { method: 'DELETE' })
    await vi.waitFor(async () => expect(await changes('delete')).toHaveLength(1), WAIT)
    await die(second)
    const gone = await deleted
    expect({ status: gone.status, body: await gone.json() }).toEqual({ status: 200, body: { id: 'schedule-1', deleted: true } })
    expect(await changes('delete')).toHaveLength(1)
    expect(await leaseOwner(db, 'r')).toMatch(/^third\./)
    const list = await fetch(`${third.url}/api/sessions/r/schedules`)
    expect(await list.json()).toEqual({ schedules: [] })

    // a message sent to a fourth replica is accepted on the third, which dies the same way: it enters once
    const fourth = await replica(db, 'fourth')
    await db.admin('INSERT INTO public.stall_answers VALUES (true)')
    const sent = post(`${fourth.url}/api/sessions/r/messages`, { text: 'once only', clientTimeZone: 'UTC' })
    const enqueued = async () => (await logOf(db, 'r')).filter((e) => e.type === 'inbox/enqueued' && e.data.message.content[0].text === 'once only')
    await vi.waitFor(async () => expect(await enqueued()).toHaveLength(1), WAIT)
    await die(third)
    const accepted = await sent
    expect(accepted.status).toBe(202)
    const [entered] = await enqueued()
    expect(accepted.body).toEqual({ rpcId: expect.stringMatching(/^rpc-/), messageId: entered.type === 'inbox/enqueued' ? entered.data.message.id : null })
    await vi.waitFor(async () => expect(texts(await logOf(db, 'r'), 'user')).toEqual(['hello', 'once only']), WAIT)
    expect(await enqueued()).toHaveLength(1)
    expect(await leaseOwner(db, 'r')).toMatch(/^fourth\./)
    expect(await runCheckCli(['--database-url', db.url])).toEqual({ code: 0, stdout: 'ok r\n', stderr: '' })
  })

  it('refuses the appends of a replica that lost its lease: a stopped owner that wakes after a takeover writes nothing', async () => {
    const db = await freshDatabase()
    const stale = await replica(db, 'stale', [{ text: 'an answer that comes too late', delayMs: 4000 }])
    const fresh = await replica(db, 'fresh')
    expect((await post(`${stale.url}/api/sessions`, { sessionId: 'z', timeZone: 'UTC' })).status).toBe(201)
    expect((await post(`${stale.url}/api/sessions/z/messages`, { text: 'slow one', clientTimeZone: 'UTC' })).status).toBe(202)
    await vi.waitFor(async () => expect((await logOf(db, 'z')).some((e) => e.type === 'request/header')).toBe(true), WAIT)
    // the owner stops (not dead: its process is frozen), its lease lapses and the other replica takes the session over
    stale.child.kill('SIGSTOP')
    const taken = await vi.waitFor(async () => {
      const events = await logOf(db, 'z')
      expect(events.some((e) => e.type === 'turn/end')).toBe(true)
      return events
    }, WAIT)
    expect(await leaseOwner(db, 'z')).toMatch(/^fresh\./)
    stale.child.kill('SIGCONT')
    // the woken owner's model answers and its loop appends: the fence refuses it, and it stops running the session
    await vi.waitFor(() => expect(stale.stderr()).toMatch(/session z: stopped on this replica: (its lease was not renewed in time|another replica holds it now)\n/), WAIT)
    const after = await logOf(db, 'z')
    expect(after.some((e) => e.type === 'assistant/message' && e.data.content[0].text === 'an answer that comes too late')).toBe(false)
    expect(after.slice(0, taken.length)).toEqual(taken)
    expect((await post(`${stale.url}/api/sessions/z/messages`, { text: 'via the woken one', clientTimeZone: 'UTC' })).status).toBe(202)
    await vi.waitFor(async () => expect(texts(await logOf(db, 'z'), 'user')).toEqual(['slow one', 'via the woken one']), WAIT)
    expect(await leaseOwner(db, 'z')).toMatch(/^fresh\./)
  })
})

import { afterEach, describe, expect, it } from 'vitest'
import { corruptSession, PostgresStore, SCHEMA, type OpenVisitor } from '../../src/host/index.ts'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import { createApp } from '../../src/server/app.ts'
import { compose } from '../../src/server/compose.ts'
import { call } from '../server/app-harness.ts'
import { freshDatabase, type TestDatabase } from '../support/postgres.ts'
import { tempDir } from '../support/temp-dir.ts'
import { event, header } from './fixtures.ts'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function openStore(db: TestDatabase, owner?: string): Promise<PostgresStore> {
  const store = await PostgresStore.open({ url: db.url, ...(owner === undefined ? {} : { replica: { owner, leaseMs: 3000 } }) })
  closers.push(() => store.close())
  return store
}

/** A visitor with the given validators' key that counts what it is shown and refuses events from `refuseAt` on. */
function counting(trustKey: string, refuseAt = Infinity): { visitor: OpenVisitor; seen: () => number } {
  let seen = 0
  const visitor: OpenVisitor = {
    trustKey,
    header: () => undefined,
    event: (e) => {
      seen++
      if (e.seq >= refuseAt) throw corruptSession('x', e.seq, 'refused by its validator')
    },
  }
  return { visitor, seen: () => seen }
}

const summary = (eventCount: number) => ({ title: null, eventCount, lastEventAt: null, openTurn: false, pendingInbox: 0, nextDueAt: null })

async function summaryCount(db: TestDatabase, id: string): Promise<string | null> {
  return ((await db.admin(`SELECT summary_count FROM ${SCHEMA}.sessions WHERE id = $1`, [id])).rows[0] as { summary_count: string | null }).summary_count
}

describe('PostgreSQL store: a log damaged in the database (SPEC 2.5)', () => {
  it('marks the summary of a log an open found corrupt stale, and keeps its verdict while the rows are unchanged, without reading them again', async () => {
    const db = await freshDatabase()
    const store = await openStore(db)
    await store.createSession(header('x', 'UTC'))
    const writer = await store.openSession('x', counting('k1').visitor)
    writer.append([event(0), event(1), event(2), event(3)], summary(4))
    await writer.barrier()
    await writer.close()
    const good = ((await db.admin(`SELECT event_json FROM ${SCHEMA}.events WHERE session_id = 'x' AND seq = 2`)).rows[0] as { event_json: string }).event_json
    await db.admin(`UPDATE ${SCHEMA}.events SET event_json = '{"seq":2,' WHERE session_id = 'x' AND seq = 2`)
    expect(await summaryCount(db, 'x')).toBe('4')
    const verdict = { code: 'corrupt', message: 'session x is corrupt at seq 2: event is not valid JSON', details: { seq: 2, reason: 'event is not valid JSON' } }
    const first = counting('k1')
    await expect(store.openSession('x', first.visitor)).rejects.toMatchObject(verdict)
    expect(first.seen()).toBe(2)
    // on the code before, the summary stayed current: lists, pages and streams never read the log whole, and served it
    expect(await summaryCount(db, 'x')).toBeNull()
    expect((await store.readEntry('x')).summary).toBeNull()
    // the same rows and validators: the same answer, and not one event read again
    const again = counting('k1')
    await expect(store.scanSession('x', again.visitor)).rejects.toMatchObject(verdict)
    await expect(store.openSession('x', again.visitor)).rejects.toMatchObject(verdict)
    expect(again.seen()).toBe(0)
    // other validators read it again
    const other = counting('k2')
    await expect(store.scanSession('x', other.visitor)).rejects.toMatchObject(verdict)
    expect(other.seen()).toBe(2)
    // a store that never met it (another replica, a restart) finds the summary stale and reads the log whole
    const elsewhere = counting('k1')
    await expect((await openStore(db)).scanSession('x', elsewhere.visitor)).rejects.toMatchObject(verdict)
    expect(elsewhere.seen()).toBe(2)
    // a mended row is read again and opens; a check or export (a scan) never writes the mark
    await db.admin(`UPDATE ${SCHEMA}.events SET event_json = $1 WHERE session_id = 'x' AND seq = 2`, [good])
    const mended = counting('k1')
    const reopened = await store.openSession('x', mended.visitor)
    expect(mended.seen()).toBe(4)
    await reopened.close()
    await store.putSummary('x', summary(4))
    const refused = counting('k1', 1)
    await expect(store.scanSession('x', refused.visitor)).rejects.toMatchObject({ code: 'corrupt', details: { seq: 1, reason: 'refused by its validator' } })
    expect(await summaryCount(db, 'x')).toBe('4')
  })

  it('marks the summary stale when an open meets the verdict a scan left, without reading the log again', async () => {
    const db = await freshDatabase()
    const store = await openStore(db)
    await store.createSession(header('y', 'UTC'))
    const writer = await store.openSession('y', counting('k1').visitor)
    writer.append([event(0), event(1), event(2)], summary(3))
    await writer.barrier()
    await writer.close()
    await db.admin(`UPDATE ${SCHEMA}.events SET event_json = '{"seq":2,' WHERE session_id = 'y' AND seq = 2`)
    const verdict = { code: 'corrupt', details: { seq: 2, reason: 'event is not valid JSON' } }
    const scan = counting('k1')
    await expect(store.scanSession('y', scan.visitor)).rejects.toMatchObject(verdict)
    expect(scan.seen()).toBe(2)
    expect(await summaryCount(db, 'y')).toBe('3')
    const opened = counting('k1')
    await expect(store.openSession('y', opened.visitor)).rejects.toMatchObject(verdict)
    expect(opened.seen()).toBe(0)
    // on the code before, the open met the scan's verdict and left the summary current: pages short of the damage were served
    expect(await summaryCount(db, 'y')).toBeNull()
    const again = counting('k1')
    await expect(store.openSession('y', again.visitor)).rejects.toMatchObject(verdict)
    expect(again.seen()).toBe(0)
  })

  it('answers 409 session-corrupt on every route of a session once an open met its damaged row, on every replica', async () => {
    const db = await freshDatabase()
    const replica = async (owner: string) => {
      const { host, schedules } = await compose({ dataDir: await tempDir(`sw-pg-corrupt-${owner}-`), model: new ScriptedModel(), store: await openStore(db, owner), log: () => undefined })
      closers.push(() => host.close())
      return { host, app: createApp({ host, schedules }) }
    }
    const a = await replica('a')
    await call(a.app, 'POST', '/api/sessions', { sessionId: 's', timeZone: 'UTC' })
    await call(a.app, 'POST', '/api/sessions', { sessionId: 'ok', timeZone: 'UTC' })
    for (const title of ['one', 'two', 'three', 'four']) expect((await call(a.app, 'PATCH', '/api/sessions/s', { title })).status).toBe(200)
    await a.host.close()
    await db.admin(`UPDATE ${SCHEMA}.events SET event_json = '{"seq":1,' WHERE session_id = 's' AND seq = 1`)
    const b = await replica('b')
    // a page that does not reach the damaged row, before anything read the log whole, is served
    expect((await call(b.app, 'GET', '/api/sessions/s/events?after=1')).status).toBe(200)
    const details = { seq: 1, reason: 'event is not valid JSON' }
    const refused = async (app: typeof b.app, method: string, path: string, body?: unknown) => {
      const answer = await call(app, method, path, body)
      const error = (answer.body as { error?: { code: string; details: unknown } }).error
      return { path, status: answer.status, code: error?.code, details: error?.details }
    }
    expect(await refused(b.app, 'GET', '/api/sessions/s/schedules')).toEqual({ path: '/api/sessions/s/schedules', status: 409, code: 'session-corrupt', details })
    const routes = [
      ['GET', '/api/sessions/s'],
      ['GET', '/api/sessions/s/events'],
      ['GET', '/api/sessions/s/events?after=1'],
      ['GET', '/api/sessions/s/events?after=2&limit=1'],
      ['GET', '/api/sessions/s/stream'],
      ['GET', '/api/sessions/s/schedules'],
      ['POST', '/api/sessions/s/messages', { text: 'hi', clientTimeZone: 'UTC' }],
      ['POST', '/api/sessions/s/cancel'],
    ] as const
    const c = await replica('c')
    for (const app of [b.app, c.app]) {
      // on the code before, 200 for the session, its pages after the damage and its stream
      for (const [method, path, body] of routes) expect(await refused(app, method, path, body)).toEqual({ path, status: 409, code: 'session-corrupt', details })
      expect((await call(app, 'GET', '/api/sessions')).body).toMatchObject({ sessions: [{ id: 'ok' }] })
      expect(((await call(app, 'GET', '/api/sessions')).body as { sessions: unknown[] }).sessions).toHaveLength(1)
    }
  })
})

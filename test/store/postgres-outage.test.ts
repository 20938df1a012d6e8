import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { PostgresStore, type SessionWriter } from '../../src/host/index.ts'
import { MAX_DUE_WAIT_MS } from '../../src/host/due-watcher.ts'
import type { SessionEvent } from '../../src/protocol/index.ts'
import { EmbeddedDatabase } from '../../src/server/embedded-database.ts'
import { startServer, type CliProcess } from '../fault/support.ts'
import { freshDatabase } from '../support/postgres.ts'
import { event, header } from './fixtures.ts'

/** A server of this file's own: these tests stop and kill it, which the shared one must never see. */
let db: EmbeddedDatabase
let dataDir: string
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sw-pg-outage-'))
  db = await EmbeddedDatabase.start({ dataDir, port: 0, ephemeral: true })
}, 60_000)
afterAll(async () => {
  await db.stop()
  await rm(dataDir, { recursive: true, force: true })
})
afterEach(async () => {
  await db.restart()
})

async function openLog(store: PostgresStore, id: string): Promise<{ events: SessionEvent[]; writer: SessionWriter }> {
  const events: SessionEvent[] = []
  const writer = await store.openSession(id, { header: () => undefined, event: (e) => events.push(e) })
  return { events, writer }
}

describe('PostgreSQL going away', () => {
  it('delivers a reminder of a Session not open anywhere that came due while the database was stopped, once it is back, without a restart', async () => {
    const database = await freshDatabase(db)
    const servers: (CliProcess & { url: string })[] = []
    const serve = async () => {
      const server = await startServer('/unused', ['--database-url', database.url, '--lease-ms', '1000'])
      servers.push(server)
      return server
    }
    try {
      const first = await serve()
      const json = { 'content-type': 'application/json' }
      expect((await fetch(`${first.url}/api/sessions`, { method: 'POST', headers: json, body: JSON.stringify({ sessionId: 'due', timeZone: 'UTC' }) })).status).toBe(201)
      const made = await fetch(`${first.url}/api/sessions/due/schedules`, { method: 'POST', headers: json, body: JSON.stringify({ prompt: 'stretch', after_seconds: 6 }) })
      expect(made.status).toBe(201)
      // the Session is open nowhere: only the due index of the server started next can deliver it
      first.child.kill('SIGTERM')
      await first.exited
      const second = await serve()
      await db.stop()
      // down past the reminder's time: every look at the due index fails (on the code before, the first failure left
      // the watcher with no timer, and the reminder waited for a restart of the server)
      await new Promise((resolve) => setTimeout(resolve, 8_000))
      await db.restart()
      const dispatched = await vi.waitFor(
        async () => {
          const answer = await fetch(`${second.url}/api/sessions/due/events`)
          if (answer.status !== 200) throw new Error(`answered ${answer.status}`)
          const { events } = (await answer.json()) as { events: SessionEvent[] }
          const changes = events.flatMap((e) => (e.type === 'schedule/change' ? [(e.data as { operation: string }).operation] : []))
          if (!changes.includes('dispatch')) throw new Error(`not delivered yet: ${changes.join(', ')}`)
          return changes
        },
        // the looks that failed while it was down wait twice as long each time, up to the longest wait between two looks:
        // on a loaded machine the one after the restart may come that late
        { timeout: MAX_DUE_WAIT_MS + 15_000, interval: 200 },
      )
      expect(dispatched).toEqual(['create', 'dispatch'])
    } catch (error) {
      // what the servers logged (the due watcher's looks and wakes) goes with a failure
      throw new Error(`${String(error)}\n${servers.map((server) => `${server.url} stderr:\n${server.stderr()}`).join('\n')}`, { cause: error })
    } finally {
      for (const server of servers) {
        server.child.kill('SIGKILL')
        await server.exited
      }
    }
  }, 90_000)

  it('answers unavailable on every call while the server is down and heals by itself once it is back', async () => {
    const database = await freshDatabase(db)
    const lines: string[] = []
    const store = await PostgresStore.open({ url: database.url, log: (line) => lines.push(line) })
    try {
      await store.createSession(header('s'))
      const { writer } = await openLog(store, 's')
      writer.append([event(0)])
      await writer.barrier()

      await db.kill()
      const down = { name: 'StoreError', code: 'unavailable' }
      await expect(store.probe()).rejects.toMatchObject(down)
      await expect(store.listSessions()).rejects.toMatchObject(down)
      await expect(store.readHeader('s')).rejects.toMatchObject(down)
      await expect(store.createSession(header('t'))).rejects.toMatchObject(down)
      await expect(openLog(store, 's')).rejects.toMatchObject(down)
      writer.append([event(1)])
      await expect(writer.barrier()).rejects.toMatchObject(down)
      expect(writer.durableCount).toBe(1)

      await db.restart()
      await store.probe()
      await writer.repair()
      expect((await store.listSessions()).map((entry) => entry.id)).toEqual(['s'])
      const reopened = await openLog(store, 's')
      expect(reopened.events).toEqual([event(0)])
      reopened.writer.append([event(1)])
      await reopened.writer.barrier()
      await reopened.writer.close()
      expect(lines.filter((line) => line.includes('idle connection failed')).length).toBeLessThanOrEqual(1)
    } finally {
      await store.close()
    }
  })

  it('makes the real server answer 503 storage-unavailable while the database is stopped and return to service without a restart', async () => {
    const database = await freshDatabase(db)
    let server: (CliProcess & { url: string }) | null = null
    try {
      server = await startServer('/unused', ['--database-url', database.url])
      const api = `${server.url}/api/sessions/out`
      const post = (text: string): Promise<Response> =>
        fetch(`${api}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, clientTimeZone: 'UTC' }) })
      const events = async (): Promise<SessionEvent[]> => ((await (await fetch(`${api}/events`)).json()) as { events: SessionEvent[] }).events
      const created = await fetch(`${server.url}/api/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: 'out', timeZone: 'UTC' }),
      })
      expect(created.status).toBe(201)
      expect((await post('before')).status).toBe(202)
      const before = await vi.waitFor(async () => {
        const seen = await events()
        if (!seen.some((e) => e.type === 'turn/end')) throw new Error('turn still open')
        return seen
      })

      await db.stop()
      const refused = await post('while down')
      expect(refused.status).toBe(503)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(await refused.json()).toEqual({ error: { code: 'storage-unavailable', message: expect.any(String), details: { retryAfterSeconds: expect.any(Number) } } })
      const again = await post('still down')
      expect(again.status).toBe(503)

      await db.restart()
      const accepted = await vi.waitFor(
        async () => {
          const response = await post('after')
          if (response.status !== 202) throw new Error(`answered ${response.status}`)
          return (await response.json()) as { messageId: string }
        },
        { timeout: 15_000, interval: 100 },
      )
      const after = await vi.waitFor(async () => {
        const seen = await events()
        if (seen.filter((e) => e.type === 'turn/end').length < 2) throw new Error('second turn still open')
        return seen
      })
      expect(after.slice(0, before.length).map((e) => JSON.stringify(e))).toEqual(before.map((e) => JSON.stringify(e)))
      const texts = after.flatMap((e) => (e.type === 'inbox/enqueued' ? [e.data.message.content[0].text] : []))
      expect(texts).toEqual(['before', 'after'])
      expect(after.some((e) => e.type === 'inbox/enqueued' && e.data.message.id === accepted.messageId)).toBe(true)
      const log = server.stderr().split('\n')
      expect(log.filter((line) => line.startsWith('session out: storage unavailable')).length).toBe(1)
      expect(log.filter((line) => line === 'session out: storage available again').length).toBe(1)
    } finally {
      server?.child.kill('SIGKILL')
      await server?.exited
    }
  })
})

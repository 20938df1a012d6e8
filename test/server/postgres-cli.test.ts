import { execFile } from 'node:child_process'
import { chmod, readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SCHEMA } from '../../src/host/index.ts'
import type { SessionEvent } from '../../src/protocol/index.ts'
import { cli, ROOT, startServer, type CliProcess } from '../fault/support.ts'
import { freshDatabase, type TestDatabase } from '../support/postgres.ts'
import { tempDir } from '../support/temp-dir.ts'

/** What the JSONL store may say on stderr when it opens a folder that `export` wrote: summaries it will rebuild. */
const JSONL_NOTES = /^(catalog: \d+ session summaries are stale and will be rebuilt from their logs\n)?$/

const running: CliProcess[] = []
afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL')
    await child.exited
  }
})

async function serveOn(url: string, extra: string[] = []): Promise<CliProcess & { url: string }> {
  const server = await startServer('/nonexistent-data-dir-unused', ['--database-url', url, ...extra])
  running.push(server)
  return server
}

async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = cli(args, env)
  running.push(child)
  const { code } = await child.exited
  return { code, stdout: child.stdout(), stderr: child.stderr() }
}

async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

async function served(base: string, id: string): Promise<SessionEvent[]> {
  return ((await (await fetch(`${base}/api/sessions/${id}/events`)).json()) as { events: SessionEvent[] }).events
}

async function untilEvents(base: string, id: string, done: (events: SessionEvent[]) => boolean): Promise<SessionEvent[]> {
  return vi.waitFor(
    async () => {
      const events = await served(base, id)
      if (!done(events)) throw new Error(`not yet: ${events.map((e) => e.type).join(' ')}`)
      return events
    },
    { timeout: 15_000, interval: 25 },
  )
}

const turnsEnded = (n: number) => (events: SessionEvent[]) => events.filter((e) => e.type === 'turn/end').length >= n

/** Every session row and event row of a database, exactly as stored. */
async function contents(db: TestDatabase): Promise<{ sessions: unknown[]; events: unknown[] }> {
  const sessions = await db.admin(`SELECT id, header_json, event_count FROM ${SCHEMA}.sessions ORDER BY id`)
  const events = await db.admin(`SELECT session_id, seq, time, type, event_json FROM ${SCHEMA}.events ORDER BY session_id, seq`)
  return { sessions: sessions.rows, events: events.rows }
}

/** Two sessions with turns, readings, a reminder set and one delivered, written by the real server on the database. */
async function populate(db: TestDatabase): Promise<void> {
  const server = await serveOn(db.url)
  const api = `${server.url}/api/sessions`
  expect((await post(api, { sessionId: 'alpha', timeZone: 'Asia/Shanghai' })).status).toBe(201)
  expect((await post(api, { sessionId: 'beta', timeZone: 'Europe/Berlin' })).status).toBe(201)
  expect((await post(`${api}/alpha/messages`, { text: 'hello', clientTimeZone: 'America/New_York' })).status).toBe(202)
  expect((await post(`${api}/alpha/schedules`, { prompt: 'stretch', after_seconds: 1 })).status).toBe(201)
  expect((await post(`${api}/beta/schedules`, { prompt: 'water the plants', after_seconds: 86_400 })).status).toBe(201)
  expect((await post(`${api}/beta/messages`, { text: 'what is on?', clientTimeZone: 'Europe/Berlin' })).status).toBe(202)
  await untilEvents(server.url, 'alpha', turnsEnded(2))
  await untilEvents(server.url, 'beta', turnsEnded(1))
  server.child.kill('SIGTERM')
  await server.exited
}

describe('CLI on PostgreSQL', () => {
  it('keeps every acknowledged message and served event across kill -9 of the server, byte for byte', async () => {
    const db = await freshDatabase()
    const first = await serveOn(db.url, ['--model-delay-ms', '300'])
    const api = `${first.url}/api/sessions`
    expect(await post(api, { sessionId: 'crash', timeZone: 'Asia/Shanghai' })).toEqual({
      status: 201,
      body: { session: { id: 'crash', createdAt: expect.any(Number), timeZone: 'Asia/Shanghai', status: 'idle', eventCount: 0 } },
    })
    expect((await post(`${api}/crash/messages`, { text: 'one', clientTimeZone: 'UTC' })).status).toBe(202)
    await untilEvents(first.url, 'crash', turnsEnded(1))
    const second = await post(`${api}/crash/messages`, { text: 'two', clientTimeZone: 'UTC' })
    expect(second.status).toBe(202)
    const before = await served(first.url, 'crash')
    first.child.kill('SIGKILL')
    await first.exited
    expect(before.some((e) => e.type === 'inbox/enqueued' && e.data.message.id === second.body.messageId)).toBe(true)

    const again = await serveOn(db.url)
    const after = await untilEvents(again.url, 'crash', turnsEnded(2))
    expect(after.slice(0, before.length).map((e) => JSON.stringify(e))).toEqual(before.map((e) => JSON.stringify(e)))
    const rows = (await contents(db)).events as { event_json: string }[]
    expect(rows.slice(0, after.length).map((row) => row.event_json)).toEqual(after.map((e) => JSON.stringify(e)))
  })

  it('refuses to start with one line on a bad or unreachable database URL and on a schema newer than the code', async () => {
    const db = await freshDatabase()
    const wrong = new URL(db.url)
    wrong.password = 'wrong'
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [['--database-url', 'mysql://root:pw@localhost/x'], {}, 'the database URL must start with postgres:// or postgresql://, got mysql://'],
      [['--database-url', 'postgres://u:secret@127.0.0.1:1/x'], {}, 'cannot connect to the database postgres://u:***@127.0.0.1:1/x: connect ECONNREFUSED 127.0.0.1:1'],
      [
        [],
        { DATABASE_URL: wrong.href },
        `cannot connect to the database postgres://schedule_web:***@127.0.0.1:${wrong.port}/${db.name}: password authentication failed for user "schedule_web"`,
      ],
    ]
    for (const [args, env, line] of cases) {
      expect(await run(['serve', '--port', '0', '--no-build', ...args], env)).toEqual({ code: 2, stdout: '', stderr: `${line}\n` })
    }
    const server = await serveOn(db.url)
    server.child.kill('SIGTERM')
    await server.exited
    await db.admin(`INSERT INTO ${SCHEMA}.schema_migrations (version, name) VALUES (4, 'newer')`)
    expect(await run(['serve', '--port', '0', '--no-build', '--database-url', db.url])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'the database schema is at version 4, newer than version 3 of this Schedule Web: run a newer Schedule Web (a schema is never migrated down)\n',
    })
  })

  it('checks sessions in a database exactly as the server opens them', async () => {
    const db = await freshDatabase()
    await populate(db)
    expect(await run(['check', '--database-url', db.url])).toEqual({ code: 0, stdout: 'ok alpha\nok beta\n', stderr: '' })
    expect(await run(['check', '--database-url', db.url, 'beta', 'nope'])).toEqual({
      code: 1,
      stdout: 'ok beta\nFAIL nope seq -1: session nope does not exist\n',
      stderr: '',
    })
    const row = (await db.admin(`SELECT event_json FROM ${SCHEMA}.events WHERE session_id = 'beta' AND type = 'turn/end'`)).rows[0] as { event_json: string }
    const turnEnd = JSON.parse(row.event_json) as SessionEvent
    await db.admin(`UPDATE ${SCHEMA}.events SET event_json = $1 WHERE session_id = 'beta' AND seq = $2`, [
      JSON.stringify({ ...turnEnd, data: { turn: 1, reason: 'finished' } }),
      turnEnd.seq,
    ])
    expect(await run(['check', '--database-url', db.url])).toEqual({
      code: 1,
      stdout: `ok alpha\nFAIL beta seq ${turnEnd.seq}: turn/end data: unknown turn end reason\n`,
      stderr: '',
    })
  })

  it('moves sessions losslessly: export to files, check them, import them into another database, byte for byte', async () => {
    const source = await freshDatabase()
    await populate(source)
    const original = await contents(source)
    const dir = await tempDir()

    expect(await run(['export', '--database-url', source.url, '--data-dir', dir])).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^copied alpha: \d+ events\ncopied beta: \d+ events\nexported 2 sessions \(\d+ events\); 0 already up to date; 0 failed\n$/),
      stderr: '',
    })
    expect((await readdir(join(dir, 'sessions'))).sort()).toEqual(['alpha.jsonl', 'beta.jsonl'])
    for (const session of original.sessions as { id: string; header_json: string }[]) {
      const lines = (await readFile(join(dir, 'sessions', `${session.id}.jsonl`), 'utf8')).split('\n')
      const rows = (original.events as { session_id: string; event_json: string }[]).filter((row) => row.session_id === session.id)
      expect(lines).toEqual([session.header_json, ...rows.map((row) => row.event_json), ''])
    }
    expect(await run(['check', join(dir, 'sessions')])).toEqual({
      code: 0,
      stdout: `ok ${join(dir, 'sessions/alpha.jsonl')}\nok ${join(dir, 'sessions/beta.jsonl')}\n`,
      stderr: '',
    })

    const target = await freshDatabase()
    const imported = await run(['import', '--data-dir', dir], { DATABASE_URL: target.url })
    expect(imported.code).toBe(0)
    expect(imported.stdout).toMatch(/^copied alpha: \d+ events\ncopied beta: \d+ events\nimported 2 sessions \(\d+ events\); 0 already up to date; 0 failed\n$/)
    expect(await contents(target)).toEqual(original)
    expect(await run(['check', '--database-url', target.url])).toEqual({ code: 0, stdout: 'ok alpha\nok beta\n', stderr: '' })
    expect(await run(['import', '--database-url', target.url, '--data-dir', dir])).toEqual({
      code: 0,
      stdout: 'up to date alpha\nup to date beta\nimported 0 sessions (0 events); 2 already up to date; 0 failed\n',
      stderr: expect.stringMatching(JSONL_NOTES),
    })
    expect(await contents(target)).toEqual(original)
  })

  it('moves a session with no events yet, both ways (on the code before, it was called up to date and left behind)', async () => {
    const source = await freshDatabase()
    const server = await serveOn(source.url)
    expect((await post(`${server.url}/api/sessions`, { sessionId: 'fresh', timeZone: 'Asia/Kolkata' })).status).toBe(201)
    server.child.kill('SIGTERM')
    await server.exited
    const original = await contents(source)
    expect(original.events).toEqual([])
    const dir = await tempDir()
    expect(await run(['export', '--database-url', source.url, '--data-dir', dir])).toEqual({
      code: 0,
      stdout: 'copied fresh: 0 events\nexported 1 session (0 events); 0 already up to date; 0 failed\n',
      stderr: '',
    })
    const [header] = original.sessions as { header_json: string }[]
    expect(await readFile(join(dir, 'sessions', 'fresh.jsonl'), 'utf8')).toBe(`${header.header_json}\n`)
    const target = await freshDatabase()
    const imported = await run(['import', '--database-url', target.url, '--data-dir', dir])
    expect({ code: imported.code, stdout: imported.stdout }).toEqual({
      code: 0,
      stdout: 'copied fresh: 0 events\nimported 1 session (0 events); 0 already up to date; 0 failed\n',
    })
    expect(await contents(target)).toEqual(original)
    expect(await run(['check', '--database-url', target.url])).toEqual({ code: 0, stdout: 'ok fresh\n', stderr: '' })
    expect(await run(['import', '--database-url', target.url, '--data-dir', dir])).toEqual({
      code: 0,
      stdout: 'up to date fresh\nimported 0 sessions (0 events); 1 already up to date; 0 failed\n',
      stderr: expect.stringMatching(JSONL_NOTES),
    })
  })

  it('resumes a partial copy and never overwrites a session the destination holds differently', async () => {
    const source = await freshDatabase()
    await populate(source)
    const dir = await tempDir()
    expect((await run(['export', '--database-url', source.url, '--data-dir', dir, 'alpha'])).code).toBe(0)
    const alphaPath = join(dir, 'sessions/alpha.jsonl')
    const full = (await readFile(alphaPath, 'utf8')).split('\n')
    const target = await freshDatabase()
    expect((await run(['import', '--database-url', target.url, '--data-dir', dir])).code).toBe(0)
    const alphaEvents = full.length - 2
    await target.admin(`DELETE FROM ${SCHEMA}.events WHERE session_id = 'alpha' AND seq >= 3`)
    await target.admin(`UPDATE ${SCHEMA}.sessions SET event_count = 3 WHERE id = 'alpha'`)
    expect(await run(['import', '--database-url', target.url, '--data-dir', dir])).toEqual({
      code: 0,
      stdout: `copied alpha: ${alphaEvents - 3} events\nimported 1 session (${alphaEvents - 3} events); 0 already up to date; 0 failed\n`,
      stderr: expect.stringMatching(JSONL_NOTES),
    })
    await target.admin(`UPDATE ${SCHEMA}.events SET event_json = replace(event_json, 'hello', 'HELLO') WHERE session_id = 'alpha'`)
    expect(await run(['export', '--database-url', target.url, '--data-dir', dir])).toEqual({
      code: 1,
      stdout: `FAIL alpha seq -1: the destination holds session alpha with other events (${alphaEvents} of them)\nexported 0 sessions (0 events); 0 already up to date; 1 failed\n`,
      stderr: expect.stringMatching(JSONL_NOTES),
    })
    expect((await readFile(alphaPath, 'utf8')).split('\n')).toEqual(full)
  })

  it('shows progress on a terminal and nothing of it when the output is not one', async () => {
    const source = await freshDatabase()
    await populate(source)
    const dir = await tempDir()
    const command = `node --import tsx src/server/cli.ts export --database-url '${source.url}' --data-dir '${dir}'`
    const { stdout } = await promisify(execFile)('script', ['-qec', command, '/dev/null'], { cwd: ROOT })
    expect(stdout).toContain('\r\x1b[2Kexport: 1/2 sessions, ')
    expect(stdout).toMatch(/export: 1\/2 sessions, [\d,]+ events, [\d,]+ events\/s, ETA \d+:\d\d/)
    expect(stdout.endsWith('exported 2 sessions')).toBe(false)
    expect(stdout).toMatch(/exported 2 sessions \(\d+ events\); 0 already up to date; 0 failed\r?\n$/)
    const piped = await run(['export', '--database-url', source.url, '--data-dir', await tempDir()])
    expect(piped.stdout + piped.stderr).not.toContain('\r')
    expect(piped.stderr).toBe('')
  })

  it('npm run db starts a real PostgreSQL, prints its URL, keeps its data across restarts and stops on SIGINT', async () => {
    const dir = await tempDir()
    await chmod(dir, 0o755)
    const dataDir = join(dir, 'pg')
    const start = async (): Promise<{ child: CliProcess; url: string }> => {
      const child = cli(['db', '--data-dir', dataDir, '--port', '0'])
      running.push(child)
      const url = await vi.waitFor(
        () => {
          const match = /^database listening on (postgres:\/\/schedule_web:[^@]+@127\.0\.0\.1:\d+\/schedule_web)\n$/.exec(child.stdout())
          if (!match) throw new Error(`no URL yet: ${child.stdout()} ${child.stderr()}`)
          return match[1]
        },
        { timeout: 30_000, interval: 25 },
      )
      return { child, url }
    }
    const first = await start()
    const server = await serveOn(first.url)
    expect((await post(`${server.url}/api/sessions`, { sessionId: 'kept', timeZone: 'UTC' })).status).toBe(201)
    server.child.kill('SIGTERM')
    await server.exited
    first.child.child.kill('SIGINT')
    expect(await first.child.exited).toEqual({ code: 0, signal: null })
    const gone = new pg.Client({ connectionString: first.url, connectionTimeoutMillis: 2000 })
    await expect(gone.connect()).rejects.toThrow(/ECONNREFUSED/)

    const second = await start()
    expect(new URL(second.url).password).toBe(new URL(first.url).password)
    expect(await run(['check', '--database-url', second.url])).toEqual({ code: 0, stdout: 'ok kept\n', stderr: '' })
    second.child.child.kill('SIGTERM')
    expect(await second.child.exited).toEqual({ code: 0, signal: null })
  })
})

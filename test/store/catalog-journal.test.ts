import { appendFile, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { JsonlStore, type StoredSummary } from '../../src/host/index.ts'
import { Catalog } from '../../src/host/store/jsonl/catalog.ts'
import { nodeFiles } from '../../src/host/store/jsonl/file-layer.ts'
import { FailingFiles } from '../support/failing-files.ts'
import { tempDir } from '../support/temp-dir.ts'
import { event, header } from './fixtures.ts'

/**
 * The JSONL store's catalog writes back only what changed (SPEC 12.1 scale): a journal line per
 * changed session, the whole `catalog.json` only once the journal outgrew it.
 */

const noop = { header: () => undefined, event: () => undefined }

function summary(eventCount: number, title: string | null = null): StoredSummary {
  return { title, eventCount, lastEventAt: eventCount === 0 ? null : event(eventCount - 1).time, openTurn: false, pendingInbox: 0, nextDueAt: null }
}

/** Appends `count` events to a session with the summary after them, and waits for them. */
async function appendTo(store: JsonlStore, id: string, from: number, count: number, title: string): Promise<void> {
  const writer = await store.openSession(id, noop)
  writer.append(
    Array.from({ length: count }, (_, i) => event(from + i)),
    summary(from + count, title),
  )
  await writer.barrier()
  await writer.close()
}

async function summaryOf(dir: string, id: string): Promise<StoredSummary | null> {
  const store = await JsonlStore.open({ dataDir: dir, log: () => undefined })
  try {
    return (await store.readEntry(id)).summary
  } finally {
    await store.close()
  }
}

async function filesOf(dir: string): Promise<{ catalog: string; journal: string[] }> {
  const journal = (await readFile(join(dir, 'catalog.journal'), 'utf8')).split('\n')
  expect(journal.pop()).toBe('')
  return { catalog: await readFile(join(dir, 'catalog.json'), 'utf8'), journal }
}

/** Three sessions with one event each, written back whole when the store closed. */
async function threeSessions(): Promise<{ dir: string; catalog: string; generation: string }> {
  const dir = await tempDir()
  const store = await JsonlStore.open({ dataDir: dir, log: () => undefined })
  for (const id of ['a', 'b', 'c']) {
    await store.createSession(header(id, 'UTC'))
    await appendTo(store, id, 0, 1, `first ${id}`)
  }
  await store.close()
  const { catalog, journal } = await filesOf(dir)
  const { generation } = JSON.parse(catalog) as { generation: string }
  expect(journal).toEqual([JSON.stringify({ generation })])
  return { dir, catalog, generation }
}

describe('catalog journal', () => {
  it('writes back a change to one session as one journal line, leaves catalog.json as it was, and reads it back', async () => {
    const { dir, catalog, generation } = await threeSessions()
    const store = await JsonlStore.open({ dataDir: dir, log: () => undefined })
    await appendTo(store, 'b', 1, 2, 'renamed b')
    await store.close()
    const after = await filesOf(dir)
    expect(after.catalog).toBe(catalog)
    const info = await stat(join(dir, 'sessions', 'b.jsonl'))
    const [first, line, ...rest] = after.journal
    expect({ first, rest }).toEqual({ first: JSON.stringify({ generation }), rest: [] })
    expect(JSON.parse(line as string)).toMatchObject([
      'b',
      { header: header('b', 'UTC'), summary: summary(3, 'renamed b'), file: { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs } },
    ])
    expect({ a: await summaryOf(dir, 'a'), b: await summaryOf(dir, 'b'), c: await summaryOf(dir, 'c') }).toEqual({
      a: summary(1, 'first a'),
      b: summary(3, 'renamed b'),
      c: summary(1, 'first c'),
    })
  })

  it('drops a torn last line, keeps the lines before it, and makes the next write back whole', async () => {
    const { dir, generation } = await threeSessions()
    let store = await JsonlStore.open({ dataDir: dir, log: () => undefined })
    await appendTo(store, 'a', 1, 1, 'second a')
    await store.close()
    await appendFile(join(dir, 'catalog.journal'), '["c",{"header":')
    expect(await summaryOf(dir, 'a')).toEqual(summary(2, 'second a'))
    store = await JsonlStore.open({ dataDir: dir, log: () => undefined })
    await appendTo(store, 'c', 1, 1, 'second c')
    await store.close()
    const { catalog, journal } = await filesOf(dir)
    const rewritten = JSON.parse(catalog) as { generation: string; sessions: [string, { summary: StoredSummary }][] }
    expect(rewritten.generation).not.toBe(generation)
    expect(journal).toEqual([JSON.stringify({ generation: rewritten.generation })])
    expect(rewritten.sessions.map(([id, entry]) => [id, entry.summary])).toEqual([
      ['a', summary(2, 'second a')],
      ['b', summary(1, 'first b')],
      ['c', summary(2, 'second c')],
    ])
  })

  it('never reads a journal over a catalog of another generation (or none)', async () => {
    const { dir, catalog } = await threeSessions()
    const store = await JsonlStore.open({ dataDir: dir, log: () => undefined })
    await appendTo(store, 'b', 1, 1, 'second b')
    await store.close()
    // the journal continues the catalog; a catalog of another generation (restored from a copy) or none at all does not
    const other = catalog.replace(/"generation":"[^"]+"/, '"generation":"another"')
    await rm(join(dir, 'catalog.json'))
    await appendFile(join(dir, 'catalog.json'), other)
    expect(await summaryOf(dir, 'b')).toBeNull()
  })

  it('rewrites the whole catalog once the journal has outgrown it', async () => {
    const dir = await tempDir()
    const catalog = new Catalog(nodeFiles, join(dir, 'sessions'), join(dir, 'catalog.json'), () => undefined, 60_000)
    catalog.add(header('a', 'UTC'))
    await catalog.flush()
    const file = { ino: 1, size: 1, mtimeMs: 1 }
    const lineCounts: number[] = []
    const generations = new Set<string>()
    for (let i = 1; i <= 400; i++) {
      catalog.setSummary('a', summary(100 + i, 'x'.repeat(200)), file)
      await catalog.flush()
      const { catalog: text, journal } = await filesOf(dir)
      generations.add((JSON.parse(text) as { generation: string }).generation)
      lineCounts.push(journal.length - 1)
    }
    // the catalog is far smaller than 64 KiB: a change is one line until the journal would pass that, then the whole is rewritten
    const generationLine = Buffer.byteLength(`${JSON.stringify({ generation: [...generations][0] })}\n`)
    const line = Buffer.byteLength(`${JSON.stringify(['a', { header: header('a', 'UTC'), summary: summary(101, 'x'.repeat(200)), file }])}\n`)
    const most = Math.floor((64 * 1024 - generationLine) / line)
    expect(lineCounts).toEqual(Array.from({ length: 400 }, (_, i) => (i + 1) % (most + 1)))
    expect(generations.size).toBe(1 + Math.floor(400 / (most + 1)))
  })

  it('writes the whole catalog after a journal append failed, so no change is lost to it', async () => {
    const dir = await tempDir()
    const files = new FailingFiles()
    const catalog = new Catalog(files, join(dir, 'sessions'), join(dir, 'catalog.json'), () => undefined, 60_000)
    const file = { ino: 1, size: 1, mtimeMs: 1 }
    catalog.add(header('a', 'UTC'))
    catalog.add(header('b', 'UTC'))
    await catalog.flush()
    const before = await filesOf(dir)
    files.inject({ op: 'write', code: 'ENOSPC', path: /catalog\.journal$/, times: 1 })
    catalog.setSummary('a', summary(1, 'lost append'), file)
    await catalog.flush()
    expect(await filesOf(dir)).toEqual(before)
    catalog.setSummary('b', summary(2, 'next change'), file)
    await catalog.flush()
    const { catalog: text, journal } = await filesOf(dir)
    const after = JSON.parse(text) as { generation: string; sessions: [string, { summary: StoredSummary | null }][] }
    expect({ journal, sessions: after.sessions.map(([id, entry]) => [id, entry.summary]) }).toEqual({
      journal: [JSON.stringify({ generation: after.generation })],
      sessions: [
        ['a', summary(1, 'lost append')],
        ['b', summary(2, 'next change')],
      ],
    })
  })
})

import { describe, expect, it } from 'vitest'
import type { SessionEvent, SessionHeader } from '../../src/protocol/events.ts'
import type { SessionWriter, Store } from '../../src/host/index.ts'
import { event, header, T0 } from './fixtures.ts'

/** One store under test, with a way to break it the way its medium fails and to restart it. */
export type StoreHarness = {
  store: Store
  /** Makes the store's writes (`write`) or durability barriers (`barrier`) fail until `heal()`. */
  fail(where: 'write' | 'barrier'): void | Promise<void>
  heal(): void | Promise<void>
  /** Replaces what the store holds for one event (seq -1: the header) with `text`, as damage on the medium would. */
  damage(id: string, seq: number, text: string): Promise<void>
  /** A new store instance on the same data (a process restart). */
  reopen(): Promise<Store>
  /** Releases everything the harness made. */
  dispose(): Promise<void>
}

/** Opens a session and collects what the store hands back. */
async function open(store: Store, id: string): Promise<{ header: SessionHeader | null; events: SessionEvent[]; writer: SessionWriter }> {
  let seen: SessionHeader | null = null
  const events: SessionEvent[] = []
  const writer = await store.openSession(id, { header: (h) => (seen = h), event: (e) => events.push(e) })
  return { header: seen, events, writer }
}

/**
 * The contract every store passes (SPEC 14.1): the same tests run against the JSONL store and the
 * PostgreSQL store. `make` builds a fresh, empty store for each test.
 */
export function storeContract(name: string, make: () => Promise<StoreHarness>): void {
  describe(`${name} store contract`, () => {
    const withStore = (test: (h: StoreHarness) => Promise<void>) => async () => {
      const h = await make()
      try {
        await test(h)
      } finally {
        await h.dispose()
      }
    }

    it(
      'writes a header once and reports an existing id with its stored header',
      withStore(async ({ store }) => {
        expect(await store.createSession(header('a', 'Asia/Shanghai'))).toEqual({ created: true })
        expect(await store.createSession({ ...header('a', 'UTC'), createdAt: T0 + 5 })).toEqual({
          created: false,
          header: header('a', 'Asia/Shanghai'),
        })
        expect(await store.readHeader('a')).toEqual(header('a', 'Asia/Shanghai'))
        expect(await store.createSession(header('b'))).toEqual({ created: true })
        expect(await store.readHeader('b')).toEqual(header('b'))
      }),
    )

    it(
      'answers not-found for an unknown id on read and open',
      withStore(async ({ store }) => {
        await expect(store.readHeader('nope')).rejects.toMatchObject({ name: 'StoreError', code: 'not-found' })
        await expect(open(store, 'nope')).rejects.toMatchObject({ name: 'StoreError', code: 'not-found' })
      }),
    )

    it(
      'lists every session with its header and never its log',
      withStore(async ({ store }) => {
        await store.createSession(header('one', 'UTC'))
        await store.createSession(header('two', 'Europe/Berlin'))
        const listed = (await store.listSessions()).sort((x, y) => (x.id < y.id ? -1 : 1))
        expect(listed).toEqual([
          { id: 'one', header: header('one', 'UTC'), summary: null },
          { id: 'two', header: header('two', 'Europe/Berlin'), summary: null },
        ])
      }),
    )

    it(
      'makes queued appends durable together at a barrier and hands them back on reopen, exactly',
      withStore(async (h) => {
        await h.store.createSession(header('s', 'UTC'))
        const { header: seen, events, writer } = await open(h.store, 's')
        expect({ seen, events, durable: writer.durableCount }).toEqual({ seen: header('s', 'UTC'), events: [], durable: 0 })
        const counts: number[] = []
        writer.onDurable((n) => counts.push(n))
        const written = [
          event(0, 'plain'),
          event(1, 'ünïcödé ✓ "quoted" \\ back\nslash, nul \u0000, lone \ud800 surrogate, 😀, </script>'),
          event(2, 'x'.repeat(300_000)),
        ]
        // appended in one go: nothing is durable yet, and both appends go out in one batch with one barrier
        writer.append([written[0]])
        writer.append([written[1], written[2]])
        expect(writer.durableCount).toBe(0)
        await writer.barrier()
        expect(writer.durableCount).toBe(3)
        expect(counts).toEqual([3])
        await writer.barrier()
        await writer.close()
        const again = await h.reopen()
        const reopened = await open(again, 's')
        expect(reopened.events).toEqual(written)
        expect(reopened.events.map((e) => JSON.stringify(e))).toEqual(written.map((e) => JSON.stringify(e)))
        expect(reopened.writer.durableCount).toBe(3)
        reopened.writer.append([event(3)])
        await reopened.writer.barrier()
        await reopened.writer.close()
        await again.close()
      }),
    )

    it(
      'resolves a barrier with nothing queued at once',
      withStore(async ({ store }) => {
        await store.createSession(header('e'))
        const { writer } = await open(store, 'e')
        await writer.barrier()
        expect({ durable: writer.durableCount, failure: writer.failure }).toEqual({ durable: 0, failure: null })
        await writer.close()
      }),
    )

    it(
      'passes a throw from the visitor out of the open',
      withStore(async ({ store }) => {
        await store.createSession(header('v'))
        const { writer } = await open(store, 'v')
        writer.append([event(0)])
        await writer.barrier()
        await writer.close()
        const refusal = new Error('fold refused seq 0')
        await expect(store.openSession('v', { header: () => undefined, event: () => { throw refusal } })).rejects.toBe(refusal)
      }),
    )

    it(
      'keeps the summary written with durable appends, lists pages newest first and indexes due reminders',
      withStore(async (h) => {
        for (let i = 0; i < 5; i++) await h.store.createSession({ ...header(`p${i}`, 'UTC'), createdAt: T0 + (i % 3) * 1000 })
        const writers: SessionWriter[] = []
        for (let i = 0; i < 5; i++) {
          const { writer } = await open(h.store, `p${i}`)
          writer.append([event(0, `hello ${i}`)], {
            title: `hello ${i}`,
            eventCount: 1,
            lastEventAt: T0,
            openTurn: false,
            pendingInbox: 0,
            nextDueAt: i === 1 ? T0 + 500 : i === 3 ? T0 + 100 : null,
          })
          await writer.barrier()
          writers.push(writer)
        }
        expect(await h.store.readEntry('p1')).toEqual({
          id: 'p1',
          header: { ...header('p1', 'UTC'), createdAt: T0 + 1000 },
          summary: { title: 'hello 1', eventCount: 1, lastEventAt: T0, openTurn: false, pendingInbox: 0, nextDueAt: T0 + 500 },
        })
        const first = await h.store.listPage({ limit: 2 })
        expect(first.entries.map((e) => e.id)).toEqual(['p2', 'p1'])
        expect(first.nextCursor).toBe(`${T0 + 1000}:p1`)
        const second = await h.store.listPage({ limit: 2, before: first.nextCursor as string })
        expect(second.entries.map((e) => e.id)).toEqual(['p4', 'p0'])
        const third = await h.store.listPage({ limit: 2, before: second.nextCursor as string })
        expect({ ids: third.entries.map((e) => e.id), next: third.nextCursor }).toEqual({ ids: ['p3'], next: null })
        expect(third.entries[0].summary?.title).toBe('hello 3')
        expect(await h.store.dueSessions(T0 + 1000, 10)).toEqual([
          { id: 'p3', nextDueAt: T0 + 100 },
          { id: 'p1', nextDueAt: T0 + 500 },
        ])
        expect(await h.store.dueSessions(T0 + 200, 10)).toEqual([{ id: 'p3', nextDueAt: T0 + 100 }])
        for (const writer of writers) await writer.close()
        await h.store.close()
        const again = await h.reopen()
        expect((await again.readEntry('p3')).summary?.nextDueAt).toBe(T0 + 100)
        await again.close()
      }),
    )

    it(
      'reads pages of a session that is not open, by seq, with the event count',
      withStore(async (h) => {
        await h.store.createSession(header('g', 'UTC'))
        const { writer } = await open(h.store, 'g')
        const all = Array.from({ length: 250 }, (_, i) => event(i, i % 7 === 0 ? 'y'.repeat(70_000) : `m${i}`))
        for (let i = 0; i < all.length; i += 50) writer.append(all.slice(i, i + 50))
        await writer.barrier()
        await writer.close()
        expect(await h.store.readEvents('g', { limit: 20 })).toEqual({ events: all.slice(230), eventCount: 250 })
        expect(await h.store.readEvents('g', { limit: 20, after: 99 })).toEqual({ events: all.slice(100, 120), eventCount: 250 })
        expect(await h.store.readEvents('g', { limit: 20, after: -1 })).toEqual({ events: all.slice(0, 20), eventCount: 250 })
        expect(await h.store.readEvents('g', { limit: 20, before: 5 })).toEqual({ events: all.slice(0, 5), eventCount: 250 })
        expect(await h.store.readEvents('g', { limit: 20, before: 143 })).toEqual({ events: all.slice(123, 143), eventCount: 250 })
        expect(await h.store.readEvents('g', { limit: 20, after: 249 })).toEqual({ events: [], eventCount: 250 })
        expect(await h.store.readEvents('g', { limit: 500 })).toEqual({ events: all, eventCount: 250 })
        await expect(h.store.readEvents('nope', { limit: 5 })).rejects.toMatchObject({ code: 'not-found' })
      }),
    )

    it(
      'scans a whole log without opening it and keeps a summary rebuilt from that scan',
      withStore(async (h) => {
        await h.store.createSession(header('r', 'UTC'))
        const { writer } = await open(h.store, 'r')
        writer.append([event(0), event(1)])
        await writer.barrier()
        await writer.close()
        const seen: SessionEvent[] = []
        await h.store.scanSession('r', { header: () => undefined, event: (e) => seen.push(e) })
        expect(seen).toEqual([event(0), event(1)])
        const rebuilt = { title: 'message 0', eventCount: 2, lastEventAt: T0 + 1, openTurn: false, pendingInbox: 0, nextDueAt: null }
        await h.store.putSummary('r', rebuilt)
        expect((await h.store.readEntry('r')).summary).toEqual(rebuilt)
      }),
    )

    it(
      'lists nothing for an empty store',
      withStore(async ({ store }) => {
        expect(await store.listSessions()).toEqual([])
      }),
    )

    it(
      'makes appends queued before close durable by the time close resolves, then refuses appends',
      withStore(async (h) => {
        await h.store.createSession(header('c'))
        const { writer } = await open(h.store, 'c')
        writer.append([event(0)])
        writer.append([event(1), event(2)])
        await writer.close()
        expect(() => writer.append([event(3)])).toThrow(expect.objectContaining({ name: 'StoreError', code: 'unavailable' }))
        const again = await open(await h.reopen(), 'c')
        expect(again.events).toEqual([event(0), event(1), event(2)])
        await again.writer.close()
      }),
    )

    it(
      'keeps sessions apart when many append at once: each log holds exactly its own events in order',
      withStore(async (h) => {
        const ids = Array.from({ length: 12 }, (_, i) => `many-${i}`)
        const writers = await Promise.all(
          ids.map(async (id) => {
            await h.store.createSession(header(id))
            return (await open(h.store, id)).writer
          }),
        )
        const barriers: Promise<void>[] = []
        for (let round = 0; round < 5; round++) {
          for (const [i, writer] of writers.entries()) {
            writer.append([event(round * 2, `${ids[i]} ${round}a`), event(round * 2 + 1, `${ids[i]} ${round}b`)])
            barriers.push(writer.barrier())
          }
        }
        await Promise.all(barriers)
        expect(writers.map((w) => w.durableCount)).toEqual(ids.map(() => 10))
        for (const writer of writers) await writer.close()
        const again = await h.reopen()
        for (const id of ids) {
          const { events, writer } = await open(again, id)
          expect(events.map((e) => (e.data as { content: { text: string }[] }).content[0].text)).toEqual(
            [0, 1, 2, 3, 4].flatMap((round) => [`${id} ${round}a`, `${id} ${round}b`]),
          )
          await writer.close()
        }
      }),
    )

    it(
      'refuses a damaged event or header as corrupt, naming the seq and the shared decoder reason',
      withStore(async (h) => {
        await h.store.createSession(header('d', 'UTC'))
        const { writer } = await open(h.store, 'd')
        writer.append([event(0), event(1), event(2)])
        await writer.barrier()
        await writer.close()
        const bad = JSON.stringify({ ...event(1), data: { ...event(1).data, id: '' } })
        await h.damage('d', 1, bad)
        const seen: number[] = []
        await expect(h.store.openSession('d', { header: () => undefined, event: (e) => seen.push(e.seq) })).rejects.toMatchObject({
          name: 'StoreError',
          code: 'corrupt',
          details: { seq: 1, reason: 'user/message data: message id must be a non-empty string' },
        })
        expect(seen).toEqual([0])
        await h.damage('d', 1, '{"seq":1,')
        await expect(open(h.store, 'd')).rejects.toMatchObject({ code: 'corrupt', details: { seq: 1 } })
        await h.damage('d', -1, JSON.stringify({ ...header('d', 'UTC'), version: 2 }))
        const problem = { name: 'StoreError', code: 'corrupt', details: { seq: -1, reason: 'not a version 1 session header' } }
        await expect(h.store.readHeader('d')).rejects.toMatchObject(problem)
        await expect(open(h.store, 'd')).rejects.toMatchObject(problem)
        const restarted = await h.reopen()
        expect(await restarted.listSessions()).toEqual([{ id: 'd', problem: expect.objectContaining(problem) }])
        await restarted.close()
      }),
    )

    for (const where of ['write', 'barrier'] as const) {
      it(
        `fails closed when a ${where} fails: nothing undurable is counted, then a repaired reopen sees only durable events and reuses the free seq`,
        withStore(async (h) => {
          await h.store.createSession(header('f', 'UTC'))
          const { writer } = await open(h.store, 'f')
          writer.append([event(0)])
          await writer.barrier()
          const failures: string[] = []
          writer.onFailure((error) => failures.push(error.code))
          await h.fail(where)
          writer.append([event(1, 'never durable')])
          await expect(writer.barrier()).rejects.toMatchObject({ name: 'StoreError', code: 'unavailable' })
          expect(writer.durableCount).toBe(1)
          expect(() => writer.append([event(2)])).toThrow(expect.objectContaining({ code: 'unavailable' }))
          await expect(writer.barrier()).rejects.toMatchObject({ code: 'unavailable' })
          expect(failures).toEqual(['unavailable'])
          await expect(h.store.probe()).rejects.toMatchObject({ name: 'StoreError', code: 'unavailable' })
          await h.heal()
          await h.store.probe()
          await writer.repair()
          const reopened = await open(h.store, 'f')
          expect(reopened.events).toEqual([event(0)])
          reopened.writer.append([event(1, 'the free seq')])
          await reopened.writer.barrier()
          await reopened.writer.close()
          const again = await open(await h.reopen(), 'f')
          expect(again.events).toEqual([event(0), event(1, 'the free seq')])
          await again.writer.close()
        }),
      )
    }
  })
}

import { describe, expect, it } from 'vitest'
import type { SessionEvent, SessionHeader } from '../../src/protocol/events.ts'
import type { SessionWriter, Store } from '../../src/host/index.ts'

/** One store under test, with a way to break it the way its medium fails and to restart it. */
export type StoreHarness = {
  store: Store
  /** Makes the store's writes (`write`) or durability barriers (`barrier`) fail until `heal()`. */
  fail(where: 'write' | 'barrier'): void
  heal(): void
  /** A new store instance on the same data (a process restart). */
  reopen(): Promise<Store>
  /** Releases everything the harness made. */
  dispose(): Promise<void>
}

const T0 = Date.UTC(2026, 6, 15, 1, 1, 1)

function header(id: string, timeZone?: string): SessionHeader {
  return { type: 'session', version: 1, id, createdAt: T0, ...(timeZone === undefined ? {} : { timeZone }) }
}

function event(seq: number, text = `message ${seq}`): SessionEvent {
  return {
    seq,
    time: T0 + seq,
    type: 'user/message',
    data: { id: `m${seq}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } },
    surfaceOp: 'append',
  }
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
          { id: 'one', header: header('one', 'UTC') },
          { id: 'two', header: header('two', 'Europe/Berlin') },
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
        const written = [event(0, 'plain'), event(1, 'ünïcödé ✓ "quoted" \\ back\nslash'), event(2, 'x'.repeat(300_000))]
        writer.append([written[0]])
        writer.append([written[1], written[2]])
        expect(writer.durableCount).toBeLessThanOrEqual(3)
        await writer.barrier()
        expect(writer.durableCount).toBe(3)
        expect(counts.at(-1)).toBe(3)
        expect(counts).toEqual([...counts].sort((a, b) => a - b))
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
          h.fail(where)
          writer.append([event(1, 'never durable')])
          await expect(writer.barrier()).rejects.toMatchObject({ name: 'StoreError', code: 'unavailable' })
          expect(writer.durableCount).toBe(1)
          expect(() => writer.append([event(2)])).toThrow(expect.objectContaining({ code: 'unavailable' }))
          await expect(writer.barrier()).rejects.toMatchObject({ code: 'unavailable' })
          expect(failures).toEqual(['unavailable'])
          await expect(h.store.probe()).rejects.toMatchObject({ name: 'StoreError', code: 'unavailable' })
          h.heal()
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

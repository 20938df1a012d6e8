import { describe, expect, it } from 'vitest'
import { DueWatcher, FIRST_RETRY_MS, MAX_DUE_WAIT_MS, MAX_RETRY_MS } from '../../src/host/due-watcher.ts'
import type { DueEntry } from '../../src/host/store/index.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { ManualTimers } from '../support/manual-timers.ts'

/** A due index the test writes to, sessions that open when woken unless refused, and every wake asked for. */
function watcher(pollMs?: number) {
  const clock = new FakeClock()
  const timers = new ManualTimers()
  const index: DueEntry[] = []
  const open = new Set<string>()
  const refusing = new Set<string>()
  const wakes: Array<[string, number]> = []
  const failing = { reads: 0 }
  const due = new DueWatcher({
    clock,
    timers,
    due: async (limit) => {
      if (failing.reads > 0) {
        failing.reads--
        throw new Error('storage for the due index is unavailable')
      }
      return [...index].sort((a, b) => a.nextDueAt - b.nextDueAt).slice(0, limit)
    },
    isOpen: (id) => open.has(id),
    wake: async (id) => {
      wakes.push([id, clock.now() - start])
      if (!refusing.has(id)) open.add(id)
    },
    lookahead: 10,
    ...(pollMs === undefined ? {} : { pollMs }),
  })
  const start = clock.now()
  /** Lets the look in flight finish; answers the one timer it armed (its delay). */
  const looked = async (): Promise<number> => {
    for (let i = 0; i < 10; i++) await Promise.resolve()
    const pending = [...timers.pending.values()]
    expect(pending).toHaveLength(1)
    return pending[0].ms
  }
  /** Moves the clock to the armed timer's time and fires it. */
  const fire = async (): Promise<void> => {
    clock.advance(await looked())
    timers.fireAll()
  }
  /** The waits of the next `n` looks, each fired in turn. */
  const waits = async (n: number): Promise<number[]> => {
    const out: number[] = []
    for (let i = 0; i < n; i++) {
      out.push(await looked())
      await fire()
    }
    return out
  }
  return { clock, timers, index, open, refusing, wakes, failing, due, start, looked, fire, waits }
}

/** A watcher whose one entry is due now and whose session refuses to open; its first look is under way. */
function refusedNow() {
  const w = watcher()
  w.index.push({ id: 'a', nextDueAt: w.start })
  w.refusing.add('a')
  w.due.refresh()
  return w
}

describe('due watcher (SPEC 12.1)', () => {
  it('looks at the index again after its longest wait when nothing is due, so an entry made meanwhile is woken when due', async () => {
    const w = watcher()
    w.due.refresh()
    // on the code before, no timer at all: an entry another replica made was never looked for
    expect(await w.looked()).toBe(MAX_DUE_WAIT_MS)
    w.index.push({ id: 'a', nextDueAt: w.start + MAX_DUE_WAIT_MS + 5_000 })
    await w.fire()
    expect(await w.looked()).toBe(5_000)
    await w.fire()
    expect(w.wakes).toEqual([['a', MAX_DUE_WAIT_MS + 5_000]])
    w.due.stop()
  })

  it('looks again after a look that failed, after 1 s and twice as long each time, and wakes what came due once it can read', async () => {
    const w = watcher()
    w.index.push({ id: 'a', nextDueAt: w.start + 500 })
    w.failing.reads = 7
    w.due.refresh()
    // on the code before, no timer after a failed read: reminders of sessions not open here waited for a restart
    expect(await w.waits(7)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, MAX_DUE_WAIT_MS, MAX_DUE_WAIT_MS])
    expect(w.wakes).toEqual([['a', 91_000]])
    // read again: the longest wait, and a failure after that backs off from 1 s again
    expect(await w.looked()).toBe(MAX_DUE_WAIT_MS)
    w.failing.reads = 1
    await w.fire()
    expect(await w.looked()).toBe(1_000)
    w.due.stop()
  })

  it('with a poll (a lease, with replicas), looks again after a failed look at least that often', async () => {
    const w = watcher(1_500)
    w.failing.reads = 3
    w.due.refresh()
    expect(await w.waits(4)).toEqual([1_000, 1_500, 1_500, 1_500])
    w.due.stop()
  })

  it('with a poll (a lease, with replicas), tries a refused wake again at least that often', async () => {
    const w = watcher(1_500)
    w.index.push({ id: 'a', nextDueAt: w.start })
    w.refusing.add('a')
    w.due.refresh()
    expect(await w.waits(4)).toEqual([1_000, 1_500, 1_500, 1_500])
    w.due.stop()
  })

  it('looks as often as its poll asks (a lease, with replicas)', async () => {
    const w = watcher(1_500)
    w.due.refresh()
    expect(await w.looked()).toBe(1_500)
    w.index.push({ id: 'a', nextDueAt: w.start + 1_000 })
    await w.fire()
    expect(w.wakes).toEqual([['a', 1_500]])
    w.due.stop()
  })

  it('tries a refused wake again after 1 s, then after twice as long each time, until the session opens', async () => {
    const w = refusedNow()
    const waits: number[] = []
    for (let i = 0; i < 4; i++) {
      waits.push(await w.looked())
      await w.fire()
    }
    expect(waits).toEqual([FIRST_RETRY_MS, 2 * FIRST_RETRY_MS, 4 * FIRST_RETRY_MS, 8 * FIRST_RETRY_MS])
    w.refusing.delete('a')
    waits.push(await w.looked())
    await w.fire()
    // on the code before, one try: the reminder waited until its session was opened for another reason
    expect(w.wakes).toEqual([['a', 0], ['a', 1_000], ['a', 3_000], ['a', 7_000], ['a', 15_000], ['a', 31_000]])
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000])
    // open now: it is not woken again, and the watcher waits its longest
    expect(await w.looked()).toBe(MAX_DUE_WAIT_MS)
    w.due.stop()
  })

  it('waits at most 5 min between tries, looking at the index every 30 s meanwhile, and tries a moved entry at once', async () => {
    const w = refusedNow()
    // the wait doubles to 256 s, then stays at 300 s; the timer never waits longer than 30 s
    let tries = 0
    for (let looks = 0; looks < 200 && tries < 12; looks++) {
      expect(await w.looked()).toBeLessThanOrEqual(MAX_DUE_WAIT_MS)
      const before = w.wakes.length
      await w.fire()
      tries += w.wakes.length - before
    }
    const at = w.wakes.map(([, ms]) => ms)
    const gaps = at.slice(1).map((ms, i) => ms - at[i])
    expect(gaps.slice(0, 11)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300].map((s) => s * 1_000).map((ms) => Math.min(ms, MAX_RETRY_MS)))
    // the entry moves (its next occurrence): tried at its time, as a new one
    const last = w.clock.now()
    w.index[0] = { id: 'a', nextDueAt: last + 10_000 }
    w.refusing.delete('a')
    w.due.refresh()
    expect(await w.looked()).toBe(10_000)
    await w.fire()
    expect(w.wakes.at(-1)).toEqual(['a', last + 10_000 - w.start])
    expect(w.open.has('a')).toBe(true)
    w.due.stop()
  })
})

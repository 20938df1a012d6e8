import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Plugin, SessionFold } from '../../src/host/index.ts'
import { createInvariantPlugin } from '../../src/invariant/index.ts'
import { createTimeContextPlugin } from '../../src/plugin/index.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { makeHost, settle } from '../support/host-harness.ts'
import { tempDir } from '../support/temp-dir.ts'

/** A validating fold that counts the events it validates. */
function countingPlugin(): { plugin: Plugin; validated: () => number } {
  let count = 0
  const fold: SessionFold<null> = {
    name: 'test/counting',
    init: () => null,
    apply: (state) => state,
    validate: () => {
      count++
    },
  }
  return { plugin: { name: 'counting', install: (ctx) => ctx.registerFold(fold) }, validated: () => count }
}

const T0 = Date.parse('2026-07-15T07:00:00.000Z')

async function hostWith(dir: string, counting: Plugin) {
  return makeHost(dir, { clock: new FakeClock(T0), plugins: [createTimeContextPlugin({}), createInvariantPlugin(), counting] })
}

describe('the validated prefix of a session file (SPEC 12.1 open)', () => {
  it('is not validated again on the next open while its bytes are unchanged, and is validated whole once they change', async () => {
    const dir = await tempDir()
    const first = countingPlugin()
    const a = await hostWith(dir, first.plugin)
    const { session } = await a.host.createSession({ id: 'p', timeZone: 'Asia/Shanghai' })
    a.model.push({ text: 'one' }, { text: 'two' })
    await session.enqueue({ id: 'm1', role: 'user', content: [{ type: 'text', text: 'hi' }], source: { kind: 'user', rpcId: 'r1', clientTimeZone: 'Asia/Shanghai' } }, 'next-turn')
    await settle(session)
    await session.enqueue({ id: 'm2', role: 'user', content: [{ type: 'text', text: 'again' }], source: { kind: 'user', rpcId: 'r2', clientTimeZone: 'Asia/Shanghai' } }, 'next-turn')
    await settle(session)
    const events = session.length
    expect(first.validated()).toBe(events)
    await a.host.close()

    // reopened with its bytes unchanged: the prefix is trusted, nothing is validated again
    const second = countingPlugin()
    const b = await hostWith(dir, second.plugin)
    expect((await b.host.openSession('p')).length).toBe(events)
    expect(second.validated()).toBe(0)
    expect(b.logs).toEqual([])
    await b.host.close()

    // one character of the first reading changed, the length kept: the whole file is validated and refused
    const path = join(dir, 'sessions/p.jsonl')
    const original = await readFile(path, 'utf8')
    const tampered = original.replace('Client time zone for this request: Asia/Shanghai.', 'Client time zone for this request: Asia/Shanghae.')
    expect(tampered.length).toBe(original.length)
    expect(tampered).not.toBe(original)
    await writeFile(path, tampered)
    const third = countingPlugin()
    const c = await hostWith(dir, third.plugin)
    await expect(c.host.openSession('p')).rejects.toMatchObject({
      code: 'corrupt',
      details: { reason: 'invariant violated by "time-context": time-context source must carry only the exact snapshot text' },
    })
    expect(c.logs).toEqual([
      'catalog: 1 session summaries are stale and will be rebuilt from their logs',
      'session p: its file changed since it was last validated; validating it whole',
    ])
    await c.host.close()
  })

  it('is validated again when the validators change', async () => {
    const dir = await tempDir()
    const a = await makeHost(dir, { clock: new FakeClock(T0), plugins: [createTimeContextPlugin({}), createInvariantPlugin()] })
    const { session } = await a.host.createSession({ id: 'v', timeZone: 'UTC' })
    await session.append([{ type: 'inbox/dropped', data: { ids: [], reason: 'x' } }])
    await session.flush()
    await a.host.close()
    const counting = countingPlugin()
    const b = await hostWith(dir, counting.plugin)
    await b.host.openSession('v')
    expect(counting.validated()).toBe(1)
    await b.host.close()
  })

  it('after a crash, only what was made durable since the last checkpoint (at most 256 KiB) is validated again', async () => {
    const dir = await tempDir()
    const a = await hostWith(dir, countingPlugin().plugin)
    const { session } = await a.host.createSession({ id: 'c', timeZone: 'UTC' })
    const reason = 'x'.repeat(1000)
    // 1,000 appends of ~1.1 KB, each its own barrier: a checkpoint is taken about every 230 of them
    for (let i = 0; i < 1000; i++) {
      await session.append([{ type: 'inbox/dropped', data: { ids: [], reason } }])
      await session.flush()
    }
    const bytes = (await readFile(join(dir, 'sessions/c.jsonl'))).length
    expect(bytes).toBeGreaterThan(3 * 256 * 1024)
    // the catalog writes back within a second; the first host is never closed (as after kill -9)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const counting = countingPlugin()
    const b = await hostWith(dir, counting.plugin)
    expect((await b.host.openSession('c')).length).toBe(1000)
    const perEvent = bytes / 1000
    expect(counting.validated()).toBeGreaterThan(0)
    expect(counting.validated()).toBeLessThanOrEqual(Math.ceil((256 * 1024) / perEvent))
    await b.host.close()
    await a.host.close()
  })
})

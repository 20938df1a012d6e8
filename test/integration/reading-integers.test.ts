import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Plugin } from '../../src/host/index.ts'
import { createInvariantPlugin } from '../../src/invariant/index.ts'
import { createTimeContextPlugin } from '../../src/plugin/index.ts'
import type { SessionEvent, UserMessage } from '../../src/protocol/index.ts'
import { runCheck } from '../../src/server/check.ts'
import { checkFolds } from '../../src/server/compose.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { forgingPlugin } from '../support/forging-plugin.ts'
import { makeHost, settle, types } from '../support/host-harness.ts'
import { tempDir } from '../support/temp-dir.ts'

const T0 = Date.UTC(2026, 6, 15, 1, 1, 1)
const CHECK_3 = 'invariant violated by "time-context": time-context turn and step must be positive safe integers'
const LINE_1 = 'Time sampled while preparing turn 1, step 1:'

const rpc: UserMessage = {
  id: 'm1',
  role: 'user',
  content: [{ type: 'text', text: 'hello' }],
  source: { kind: 'user', rpcId: 'rpc-m1', clientTimeZone: 'UTC' },
}

function plugins(extra: Plugin[] = []): Plugin[] {
  return [createTimeContextPlugin({}, { systemTimeZone: () => 'UTC' }), createInvariantPlugin(), ...extra]
}

const cases = [
  ['turn 9007199254740993', 'Time sampled while preparing turn 9007199254740993, step 1:'],
  ['turn 99999999999999999', 'Time sampled while preparing turn 99999999999999999, step 1:'],
  ['turn 01', 'Time sampled while preparing turn 01, step 1:'],
  ['step 01', 'Time sampled while preparing turn 1, step 01:'],
  ['turn 0', 'Time sampled while preparing turn 0, step 1:'],
] as const

describe('turn and step digits that are not positive safe integers (SPEC 6 check 3)', () => {
  it.each(cases)('rejects %s on append: nothing of the reading is written', async (_name, line1) => {
    const dir = await tempDir()
    const { host } = await makeHost(dir, { clock: new FakeClock(T0), plugins: plugins([forgingPlugin((text) => text.replace(LINE_1, line1))]) })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    await session.enqueue(rpc, 'next-turn')
    await settle(session)
    expect(types(session.events())).toEqual(['inbox/enqueued', 'turn/start', 'inbox/dropped', 'turn/end'])
    expect(session.events().at(-1)?.data).toEqual({ turn: 1, reason: 'error', message: CHECK_3 })
    await host.close()
    expect(await readFile(join(dir, 'sessions/s.jsonl'), 'utf8')).not.toContain(line1)
  })

  it.each(cases)('refuses to open a log whose reading names %s, and check reports it at that seq', async (_name, line1) => {
    const dir = await tempDir()
    const good = await makeHost(dir, { clock: new FakeClock(T0), plugins: plugins() })
    good.model.push({ text: 'ok' })
    const { session } = await good.host.createSession({ id: 'g', timeZone: 'UTC' })
    await session.enqueue(rpc, 'next-turn')
    await settle(session)
    const seq = (session.events().find((e) => e.type === 'user/message' && e.data.id === 'time-context-1-1') as SessionEvent).seq
    await good.host.close()

    const path = join(dir, 'sessions/g.jsonl')
    const original = await readFile(path, 'utf8')
    expect(await runCheck([path], await checkFolds(), () => undefined)).toBe(true)
    const tampered = original.replaceAll(LINE_1, line1)
    expect(tampered.split(line1)).toHaveLength(3)
    await writeFile(path, tampered)

    const reopened = await makeHost(dir, { clock: new FakeClock(T0), plugins: plugins() })
    await expect(reopened.host.openSession('g')).rejects.toThrow(CHECK_3)
    await reopened.host.close()
    expect(await readFile(path, 'utf8')).toBe(tampered)

    const printed: string[] = []
    expect(await runCheck([path], await checkFolds(), (line) => printed.push(line))).toBe(false)
    expect(printed).toEqual([`FAIL ${path} seq ${seq}: ${CHECK_3}`])
  })
})

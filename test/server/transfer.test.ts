import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { JsonlStore } from '../../src/host/index.ts'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { checkFolds } from '../../src/server/compose.ts'
import { transferSessions } from '../../src/server/transfer.ts'
import { tempDir } from '../support/temp-dir.ts'

const HEADER = { type: 'session', version: 1, id: 'one', createdAt: 5, timeZone: 'UTC' } as const
const EVENT: SessionEvent = { seq: 0, time: 10, type: 'session/title', data: { title: 'one event' } } as SessionEvent

describe('transferSessions between two stores', () => {
  it('says what it copied in words that count: one session, one event', async () => {
    const source = await JsonlStore.open({ dataDir: await tempDir() })
    await source.createSession(HEADER)
    const writer = await source.openSession('one', { header: () => undefined, event: () => undefined })
    writer.append([EVENT])
    await writer.barrier()
    await writer.close()
    const targetDir = await tempDir()
    const target = await JsonlStore.open({ dataDir: targetDir })
    const lines: string[] = []
    const summary = await transferSessions({ from: source, to: target, sessionIds: [], folds: await checkFolds(), label: 'export', print: (line) => lines.push(line) })
    expect(summary).toEqual({ copied: 1, upToDate: 0, failed: 0, events: 1 })
    // the summary line said "exported 1 sessions (1 events)" before
    expect(lines).toEqual(['copied one: 1 event', 'exported 1 session (1 event); 0 already up to date; 0 failed'])
    expect(await readFile(join(targetDir, 'sessions', 'one.jsonl'), 'utf8')).toBe(`${JSON.stringify(HEADER)}\n${JSON.stringify(EVENT)}\n`)
  })
})

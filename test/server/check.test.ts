import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCheck } from '../../src/server/check.ts'
import { checkFolds } from '../../src/server/compose.ts'
import { tempDir } from '../support/temp-dir.ts'
import { apiError, call, makeApp } from './app-harness.ts'

describe('check on an empty session file (SPEC 2.5, 11)', () => {
  it('passes an empty file as the server answers it, a Session not made yet, and still fails a missing path or a stray name', async () => {
    const dir = await tempDir()
    const sessions = join(dir, 'sessions')
    await mkdir(sessions)
    await writeFile(join(sessions, 'e.jsonl'), '')
    await writeFile(join(sessions, 'g.jsonl'), `${JSON.stringify({ type: 'session', version: 1, id: 'g', createdAt: 5, timeZone: 'UTC' })}\n`)
    await writeFile(join(sessions, 'bad name.jsonl'), '')
    const { app, host } = await makeApp(dir)
    expect(await call(app, 'GET', '/api/sessions/e')).toEqual({ status: 404, body: apiError('session-not-found', 'session e does not exist', { sessionId: 'e' }) })
    expect(((await call(app, 'GET', '/api/sessions')).body as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toEqual(['g'])
    await host.close()
    const lines: string[] = []
    const missing = join(sessions, 'gone.jsonl')
    // on the code before, FAIL <path> seq -1: session file <path> is empty (its creation never completed), and exit 1
    expect(await runCheck([join(sessions, 'e.jsonl')], await checkFolds(), (line) => lines.push(line))).toBe(true)
    expect(await runCheck([sessions, missing], await checkFolds(), (line) => lines.push(line))).toBe(false)
    expect(lines).toEqual([
      `ok ${join(sessions, 'e.jsonl')}`,
      `FAIL ${join(sessions, 'bad name.jsonl')} seq -1: the file name is not <session id>.jsonl (letters, digits, - and _, at most 64), so the server does not read it`,
      `ok ${join(sessions, 'e.jsonl')}`,
      `ok ${join(sessions, 'g.jsonl')}`,
      `FAIL ${missing} seq -1: session file '${missing}' does not exist`,
    ])
    // an empty file named as no session's is not a creation the server completes: it fails (on the code before, ok)
    const notes = join(dir, 'notes.txt')
    await writeFile(notes, '')
    lines.length = 0
    expect(await runCheck([notes], await checkFolds(), (line) => lines.push(line))).toBe(false)
    expect(lines).toEqual([`FAIL ${notes} seq -1: the file is empty and its name is not <session id>.jsonl, so it holds no session`])
  })
})

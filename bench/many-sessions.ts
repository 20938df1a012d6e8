import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { open, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { checkFile } from '../src/server/check.ts'
import { checkFolds, compose } from '../src/server/compose.ts'
import { BENCH_START_MS, generateSession } from './generate.ts'

/** What `writeManyGeneratedSessions` wrote. */
export type ManySessions = { dir: string; ids: string[]; eventsEach: number; bytesEach: number }

const ZONE = 'Asia/Shanghai'

/**
 * Writes `count` small realistic sessions (one generated conversation of a few turns, checked
 * once, copied under `count` headers created one second apart, the newest last) into
 * `<dataDir>/sessions`: fast enough for 10,000 files.
 */
export async function writeManyGeneratedSessions(dataDir: string, count: number, seed: number): Promise<ManySessions> {
  const dir = join(dataDir, 'sessions')
  mkdirSync(dir, { recursive: true })
  const template = join(dataDir, 'template.jsonl')
  const generated = generateSession({ path: template, id: 'template', targetEvents: 24, seed, sessionZone: ZONE })
  const verdict = await checkFile(template, await checkFolds())
  if (!verdict.ok) throw new Error(`the many-sessions template is not valid: ${verdict.line}`)
  const text = readFileSync(template, 'utf8')
  rmSync(template)
  const body = text.slice(text.indexOf('\n') + 1)
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const id = `many-${String(i).padStart(5, '0')}`
    const header = { type: 'session', version: 1, id, createdAt: BENCH_START_MS - (count - i) * 1000, timeZone: ZONE }
    writeFileSync(join(dir, `${id}.jsonl`), `${JSON.stringify(header)}\n${body}`)
    ids.push(id)
  }
  const copy = await checkFile(join(dir, `${ids[0]}.jsonl`), await checkFolds())
  if (!copy.ok) throw new Error(`a copied session is not valid: ${copy.line}`)
  return { dir, ids, eventsEach: generated.events, bytesEach: Buffer.byteLength(text) }
}

/**
 * The host's start-up work run in-process (store summaries loaded, missing ones rebuilt from the
 * logs, resumes, due index): resolves with its duration once done and the host closed (which
 * writes the catalog it built).
 */
export async function timeStartWork(dataDir: string): Promise<number> {
  const { host } = await compose({ dataDir, model: 'offline', log: () => undefined })
  try {
    const start = performance.now()
    await host.start()
    return performance.now() - start
  } finally {
    await host.close()
  }
}

/**
 * The list floor: read every session's header — list the folder, then open, read the first line,
 * `JSON.parse` it and close, one file after another. Resolves with the headers read.
 */
export async function readEveryHeader(dir: string): Promise<number> {
  const buffer = Buffer.allocUnsafe(4096)
  let headers = 0
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.jsonl')) continue
    const handle = await open(join(dir, name), 'r')
    try {
      let length = 0
      let newline = -1
      while (newline === -1 && length < buffer.length) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length)
        if (bytesRead === 0) break
        newline = buffer.subarray(0, length + bytesRead).indexOf(0x0a, length)
        length += bytesRead
      }
      const header = JSON.parse(buffer.toString('utf8', 0, newline === -1 ? length : newline)) as { id?: unknown }
      if (typeof header.id !== 'string') throw new Error(`${name} has no header`)
      headers++
    } finally {
      await handle.close()
    }
  }
  return headers
}

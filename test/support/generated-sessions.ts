import { mkdir, open, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

const T0 = Date.UTC(2026, 6, 15, 1, 1, 1)

function header(id: string, createdAt: number): string {
  return JSON.stringify({ type: 'session', version: 1, id, createdAt, timeZone: 'UTC' })
}

function filler(seq: number): string {
  return JSON.stringify({ seq, time: T0 + seq, type: 'inbox/dropped', data: { ids: [], reason: `filler ${seq}` } })
}

/** Writes a valid session file of `events` small events to `<dataDir>/sessions/<id>.jsonl`, streaming in large chunks. */
export async function writeLongSession(dataDir: string, id: string, events: number): Promise<string> {
  await mkdir(join(dataDir, 'sessions'), { recursive: true })
  const path = join(dataDir, 'sessions', `${id}.jsonl`)
  const handle = await open(path, 'w')
  try {
    await handle.write(`${header(id, T0)}\n`)
    const CHUNK = 20_000
    for (let start = 0; start < events; start += CHUNK) {
      const lines: string[] = []
      for (let seq = start; seq < Math.min(events, start + CHUNK); seq++) lines.push(filler(seq))
      await handle.write(`${lines.join('\n')}\n`)
    }
  } finally {
    await handle.close()
  }
  return path
}

/** Writes `count` small session files (a header and two events each), created one second apart. */
export async function writeManySessions(dataDir: string, count: number, prefix = 's'): Promise<string[]> {
  await mkdir(join(dataDir, 'sessions'), { recursive: true })
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const id = `${prefix}${String(i).padStart(5, '0')}`
    ids.push(id)
    await writeFile(join(dataDir, 'sessions', `${id}.jsonl`), `${header(id, T0 + i * 1000)}\n${filler(0)}\n${filler(1)}\n`)
  }
  return ids
}

import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { SessionEvent, SessionHeader } from '../protocol/events.ts'
import { loadSessionFile } from '../host/session-file.ts'
import { HostError } from '../host/errors.ts'
import { checkSessionLog } from '../invariant/index.ts'
import { foldSchedule } from '../schedule/index.ts'

/** Extra whole-log checks run after the invariant (e.g. the Schedule fold). */
export type LogCheck = (
  header: SessionHeader,
  events: readonly SessionEvent[],
) => { ok: true } | { ok: false; seq: number; message: string }

/** Session files named by the paths: files as given, directories searched for *.jsonl (recursively). */
export async function sessionFiles(paths: string[]): Promise<string[]> {
  const out: string[] = []
  const walk = async (path: string): Promise<void> => {
    const info = await stat(path)
    if (info.isDirectory()) {
      const names = (await readdir(path)).sort()
      for (const name of names) {
        const child = join(path, name)
        const childInfo = await stat(child)
        if (childInfo.isDirectory()) await walk(child)
        else if (name.endsWith('.jsonl')) out.push(child)
      }
    } else out.push(path)
  }
  for (const path of paths) {
    try {
      await walk(path)
    } catch {
      out.push(path)
    }
  }
  return out
}

/** Checks one session file; returns the line to print. */
export async function checkFile(path: string, extra: LogCheck[] = []): Promise<{ ok: boolean; line: string }> {
  let loaded
  try {
    loaded = await loadSessionFile(path)
  } catch (error) {
    const line = error instanceof HostError && typeof error.details?.line === 'number' ? error.details.line : 1
    const message = error instanceof Error ? error.message : String(error)
    return { ok: false, line: `FAIL ${path} seq ${Math.max(-1, line - 2)}: ${message}` }
  }
  for (const check of [
    (h: SessionHeader, e: readonly SessionEvent[]) => checkSessionLog(h, e),
    ...extra,
  ]) {
    const result = check(loaded.header, loaded.events)
    if (!result.ok) return { ok: false, line: `FAIL ${path} seq ${result.seq}: ${result.message}` }
  }
  return { ok: true, line: `ok ${path}` }
}

/** Runs `check` over paths, printing one line per file; resolves true iff all pass. */
export async function runCheck(paths: string[], extra: LogCheck[] = [], print: (line: string) => void = console.log): Promise<boolean> {
  let allOk = true
  const files = await sessionFiles(paths)
  for (const file of files) {
    const result = await checkFile(file, extra)
    print(result.line)
    allOk &&= result.ok
  }
  return allOk
}

/** The Schedule fold as a whole-log check (SPEC 11). */
export const scheduleCheck: LogCheck = (_header, events) => {
  const result = foldSchedule(events)
  if (result.ok) return { ok: true }
  const details = result.error.details
  const seq = 'seq' in details ? details.seq : -1
  return { ok: false, seq, message: result.error.message }
}

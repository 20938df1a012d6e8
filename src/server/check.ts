import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { SessionEvent, SessionHeader } from '../protocol/events.ts'
import { scanSessionBytes } from '../host/session-file.ts'
import { HostError } from '../host/errors.ts'
import { startInvariantCheck } from '../invariant/index.ts'
import { applyScheduleEvent, emptyScheduleState } from '../schedule/index.ts'

/** A streaming whole-log check: started with the header, fed each event once, answers a failure or null. */
export type EventCheck = (header: SessionHeader) => (event: SessionEvent) => { seq: number; message: string } | null

/** The invariant companion as an event check (SPEC 6). */
export const invariantCheck: EventCheck = startInvariantCheck

/** The Schedule fold as an event check (SPEC 7.6, 11). */
export const scheduleCheck: EventCheck = () => {
  let state = emptyScheduleState
  return (event) => {
    if (event.type !== 'schedule/change') return null
    const next = applyScheduleEvent(state, event)
    if (!next.ok) return { seq: event.seq, message: next.error.message }
    state = next.value
    return null
  }
}

/** What `check` runs over every file: the invariant, then the Schedule fold, in one pass. */
export const defaultChecks: readonly EventCheck[] = [invariantCheck, scheduleCheck]

class CheckFailure extends Error {
  constructor(readonly seq: number, message: string) {
    super(message)
  }
}

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

/** Checks one session file in a single streaming pass (no event is kept); returns the line to print. */
export async function checkFile(path: string, checks: readonly EventCheck[] = defaultChecks): Promise<{ ok: boolean; line: string }> {
  try {
    const buf = await readFile(path)
    let running: ((event: SessionEvent) => { seq: number; message: string } | null)[] = []
    scanSessionBytes(buf, path, (event) => {
      for (const step of running) {
        const failure = step(event)
        if (failure) throw new CheckFailure(failure.seq, failure.message)
      }
    }, (header) => {
      running = checks.map((check) => check(header))
    })
  } catch (error) {
    if (error instanceof CheckFailure) return { ok: false, line: `FAIL ${path} seq ${error.seq}: ${error.message}` }
    const line = error instanceof HostError && typeof error.details?.line === 'number' ? error.details.line : 1
    const message = error instanceof Error ? error.message : String(error)
    return { ok: false, line: `FAIL ${path} seq ${Math.max(-1, line - 2)}: ${message}` }
  }
  return { ok: true, line: `ok ${path}` }
}

/** Runs `check` over paths, printing one line per file; resolves true iff all pass. */
export async function runCheck(paths: string[], print: (line: string) => void = console.log): Promise<boolean> {
  let allOk = true
  const files = await sessionFiles(paths)
  for (const file of files) {
    const result = await checkFile(file)
    print(result.line)
    allOk &&= result.ok
  }
  return allOk
}

import { lstat, readdir, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import {
  FoldingVisitor,
  isStoreError,
  nodeFiles,
  openForReading,
  scanSessionFile,
  type OpenVisitor,
  type SessionFold,
  type Store,
} from '../host/index.ts'
import { errorMessage, SESSION_ID_PATTERN } from '../protocol/index.ts'
import { eachWithProgress, Progress } from './progress.ts'

/**
 * Session files named by the paths: files as given, directories searched for `*.jsonl` entries of any kind
 * (recursively, never through a symlink); `stray` marks one found in a directory whose name is not a session's
 * (`<id>.jsonl`), which the server does not read.
 */
export async function sessionFiles(paths: string[]): Promise<{ path: string; stray: boolean }[]> {
  const out: { path: string; stray: boolean }[] = []
  const walk = async (path: string): Promise<void> => {
    const info = await stat(path)
    if (info.isDirectory()) {
      const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      for (const entry of entries) {
        const child = join(path, entry.name)
        if (entry.name.endsWith('.jsonl')) out.push({ path: child, stray: expectedId(child) === null })
        else if (entry.isDirectory()) await walk(child)
      }
    } else out.push({ path, stray: false })
  }
  for (const path of paths) {
    try {
      await walk(path)
    } catch {
      out.push({ path, stray: false })
    }
  }
  return out
}

/** What `check` says of a file in a directory whose name is not a session's: the server skips it, so it is no session. */
const STRAY_REASON = 'the file name is not <session id>.jsonl (letters, digits, - and _, at most 64), so the server does not read it'

/** What `check` says of an empty file named as no session's: no header, and not a creation the server would complete. */
const EMPTY_STRAY_REASON = 'the file is empty and its name is not <session id>.jsonl, so it holds no session'

function expectedId(path: string): string | null {
  const name = basename(path)
  if (!name.endsWith('.jsonl')) return null
  const id = name.slice(0, -'.jsonl'.length)
  return SESSION_ID_PATTERN.test(id) ? id : null
}

/** The line for a check that threw: the seq and reason the store or a fold named, else seq -1. */
export function failLine(name: string, error: unknown): string {
  if (isStoreError(error) && typeof error.details?.seq === 'number') {
    const reason = typeof error.details.reason === 'string' ? error.details.reason : error.message
    return `FAIL ${name} seq ${error.details.seq}: ${reason}`
  }
  return `FAIL ${name} seq -1: ${errorMessage(error)}`
}

/**
 * True for an empty regular file: a creation that never wrote its header, which the server holds to be no Session
 * yet (404, and a create makes it over the file), not a corrupt one.
 */
async function isEmptyFile(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => null)
  return info !== null && info.isFile() && info.size === 0
}

/** Counts visited events for the progress line in steps (not once per event). */
function counting(visitor: OpenVisitor, progress: Progress | undefined): OpenVisitor & { flush(): void } {
  let pending = 0
  const flush = (): void => {
    progress?.addEvents(pending)
    pending = 0
  }
  return {
    header: (header) => visitor.header(header),
    event: (event) => {
      visitor.event(event)
      if (++pending === 4096) flush()
    },
    flush,
  }
}

/**
 * Checks one session file exactly as a host opens it (SPEC 11, 2.5): the same reader and event
 * decoders, and every fold that can reject an event (the invariant companion, the Schedule fold),
 * in one streaming pass that keeps no events. Returns the line to print.
 */
export async function checkFile(
  path: string,
  folds: readonly SessionFold<unknown>[],
  progress?: Progress,
): Promise<{ ok: boolean; line: string }> {
  const id = expectedId(path)
  if (await isEmptyFile(path)) {
    // only a file named as a Session's is a creation not completed; any other empty file holds nothing to check
    return id !== null ? { ok: true, line: `ok ${path}` } : { ok: false, line: `FAIL ${path} seq -1: ${EMPTY_STRAY_REASON}` }
  }
  const validating = folds.filter((fold) => fold.validate !== undefined)
  const visitor = counting(new FoldingVisitor(id ?? '(file)', validating, false), progress)
  try {
    const { handle } = await openForReading(nodeFiles, path)
    try {
      await scanSessionFile(
        handle,
        path,
        (event) => visitor.event(event),
        (header) => {
          if (id !== null && header.id !== id) throw new Error(`the header names session ${header.id}`)
          visitor.header(header)
        },
      )
    } finally {
      await handle.close()
      visitor.flush()
    }
  } catch (error) {
    return { ok: false, line: failLine(path, error) }
  }
  return { ok: true, line: `ok ${path}` }
}

/** Checks one session of a store exactly as a host opens it: the store's own reader and decoders, then every validating fold (never opened for writing). */
export async function checkStoredSession(
  store: Store,
  id: string,
  folds: readonly SessionFold<unknown>[],
  progress?: Progress,
): Promise<{ ok: boolean; line: string }> {
  const visitor = counting(
    new FoldingVisitor(
      id,
      folds.filter((fold) => fold.validate !== undefined),
      false,
    ),
    progress,
  )
  try {
    await store.scanSession(id, visitor)
  } catch (error) {
    return { ok: false, line: failLine(id, error) }
  } finally {
    visitor.flush()
  }
  return { ok: true, line: `ok ${id}` }
}

/** Runs `check` over paths, printing one line per file (progress on a TTY); resolves true iff all pass. */
export async function runCheck(
  paths: string[],
  folds: readonly SessionFold<unknown>[],
  print: (line: string) => void = console.log,
): Promise<boolean> {
  const files = await sessionFiles(paths)
  const progress = new Progress('check', files.length, 'files')
  return eachWithProgress(
    progress,
    files,
    async (file) => (file.stray ? { ok: false, line: `FAIL ${file.path} seq -1: ${STRAY_REASON}` } : checkFile(file.path, folds, progress)),
    print,
  )
}

/** The sessions a store command visits: the ids given, else every entry the store lists (damaged ones with their problem). */
export async function sessionsToVisit(store: Store, ids: readonly string[]): Promise<{ id: string; problem: unknown }[]> {
  if (ids.length > 0) return ids.map((id) => ({ id, problem: null }))
  return (await store.listSessions()).map((entry) => ({ id: entry.id, problem: 'problem' in entry ? entry.problem : null }))
}

/**
 * Runs `check` over sessions of a store (every listed session when `ids` is empty), printing
 * `ok <id>` or `FAIL <id> seq <n>: <reason>` per session; resolves true iff all pass.
 */
export async function runStoreCheck(
  store: Store,
  ids: readonly string[],
  folds: readonly SessionFold<unknown>[],
  print: (line: string) => void = console.log,
): Promise<boolean> {
  const entries = await sessionsToVisit(store, ids)
  const progress = new Progress('check', entries.length, 'sessions')
  return eachWithProgress(
    progress,
    entries,
    async (entry) => (entry.problem === null ? checkStoredSession(store, entry.id, folds, progress) : { ok: false, line: failLine(entry.id, entry.problem) }),
    print,
  )
}

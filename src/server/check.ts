import { readdir, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import {
  FoldingVisitor,
  isStoreError,
  nodeFiles,
  openForReading,
  scanSessionFile,
  type SessionFold,
} from '../host/index.ts'
import { errorMessage, SESSION_ID_PATTERN } from '../protocol/index.ts'

/** Session files named by the paths: files as given, directories searched for `*.jsonl` entries of any kind (recursively, never through a symlink). */
export async function sessionFiles(paths: string[]): Promise<string[]> {
  const out: string[] = []
  const walk = async (path: string): Promise<void> => {
    const info = await stat(path)
    if (info.isDirectory()) {
      const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      for (const entry of entries) {
        const child = join(path, entry.name)
        if (entry.name.endsWith('.jsonl')) out.push(child)
        else if (entry.isDirectory()) await walk(child)
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

function expectedId(path: string): string | null {
  const name = basename(path)
  if (!name.endsWith('.jsonl')) return null
  const id = name.slice(0, -'.jsonl'.length)
  return SESSION_ID_PATTERN.test(id) ? id : null
}

/**
 * Checks one session file exactly as a host opens it (SPEC 11, 2.5): the same reader and event
 * decoders, and every fold that can reject an event (the invariant companion, the Schedule fold),
 * in one streaming pass that keeps no events. Returns the line to print.
 */
export async function checkFile(path: string, folds: readonly SessionFold<unknown>[]): Promise<{ ok: boolean; line: string }> {
  const id = expectedId(path)
  const validating = folds.filter((fold) => fold.validate !== undefined)
  try {
    const { handle } = await openForReading(nodeFiles, path)
    try {
      const visitor = new FoldingVisitor(id ?? '(file)', validating, false)
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
    }
  } catch (error) {
    if (isStoreError(error) && typeof error.details?.seq === 'number') {
      const reason = typeof error.details.reason === 'string' ? error.details.reason : error.message
      return { ok: false, line: `FAIL ${path} seq ${error.details.seq}: ${reason}` }
    }
    return { ok: false, line: `FAIL ${path} seq -1: ${errorMessage(error)}` }
  }
  return { ok: true, line: `ok ${path}` }
}

/** Runs `check` over paths, printing one line per file; resolves true iff all pass. */
export async function runCheck(
  paths: string[],
  folds: readonly SessionFold<unknown>[],
  print: (line: string) => void = console.log,
): Promise<boolean> {
  let allOk = true
  for (const file of await sessionFiles(paths)) {
    const result = await checkFile(file, folds)
    print(result.line)
    allOk &&= result.ok
  }
  return allOk
}

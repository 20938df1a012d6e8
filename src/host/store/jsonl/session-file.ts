import { createHash, type Hash } from 'node:crypto'
import { constants, type Stats } from 'node:fs'
import type { SessionEvent, SessionHeader } from '../../../protocol/index.ts'
import { eventProblem, headerProblem } from '../../../protocol/index.ts'
import { StoreError } from '../store-error.ts'
import type { FileHandleLike, FileLayer } from './file-layer.ts'

/** Flags for reading a session file: never follow a symlink, never block on a FIFO. */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

const CHUNK_BYTES = 1 << 20

/** A corrupt-file error: `seq` is -1 for the header, else the seq of the line that does not decode. */
export function corruptFile(path: string, seq: number, reason: string): StoreError {
  return new StoreError('corrupt', `session file '${path}' is corrupt at seq ${seq}: ${reason}`, { seq, reason })
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory'
  if (info.isSymbolicLink()) return 'a symbolic link'
  if (info.isFIFO()) return 'a FIFO'
  if (info.isSocket()) return 'a socket'
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device'
  return 'not a regular file'
}

/** Why a directory entry's stats are not a session file (regular files only), or null. */
export function specialFileReason(info: Stats): string | null {
  return info.isFile() ? null : `not a regular file (${kindOf(info)})`
}

/**
 * Opens a session file for reading: regular files only (a symlink is never followed, a FIFO or
 * device never read). Throws `not-found` or `corrupt`.
 */
export async function openForReading(files: FileLayer, path: string): Promise<{ handle: FileHandleLike; info: Stats }> {
  let handle: FileHandleLike
  try {
    handle = await files.open(path, READ_FLAGS)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new StoreError('not-found', `session file '${path}' does not exist`)
    }
    if (code === 'ELOOP') throw corruptFile(path, -1, 'not a regular file (a symbolic link)')
    if (code === 'ENXIO') throw corruptFile(path, -1, 'not a regular file (a socket)')
    throw new StoreError('unavailable', `session file '${path}' cannot be read: ${(error as Error).message}`, undefined, {
      cause: error,
    })
  }
  const info = await handle.stat()
  const special = specialFileReason(info)
  if (special !== null) {
    await handle.close()
    throw corruptFile(path, -1, special)
  }
  if (info.size === 0) {
    await handle.close()
    throw new StoreError('not-found', `session file '${path}' is empty (its creation never completed)`)
  }
  return { handle, info }
}

/** A validated prefix of a session file: its first `bytes` bytes, holding `events` events, hash to `sha256` (hex). */
export type Checkpoint = { bytes: number; events: number; sha256: string }

/** How to scan: trusting a validated prefix, and keeping a running hash of what was read. */
export type ScanOptions = {
  /** Events of this prefix were validated before: they are not decoded again if the prefix's bytes are unchanged. */
  trust?: Checkpoint
  /** Keep a running SHA-256 of the bytes read (the writer continues it into the next checkpoint). */
  hash?: boolean
}

/** Thrown when a trusted prefix's bytes changed: the scan must start over without trust. */
export class PrefixChanged extends Error {
  constructor(path: string) {
    super(`the validated prefix of ${path} changed`)
    this.name = 'PrefixChanged'
  }
}

/** What scanning a session file found besides its events. */
export type ScannedFile = {
  header: SessionHeader
  eventCount: number
  /** Bytes of a torn final line (not visited), 0 when the file was whole. */
  tornBytes: number
  /** Length in bytes of the file without its torn final line. */
  validBytes: number
  /** True when the last complete line lacks its newline (the next append writes one first). */
  missingFinalNewline: boolean
  /** SHA-256 of every byte read (with `hash`); it covers a torn tail too, so it is null when there was one. */
  hash: Hash | null
}

function parseLine(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch {
    return { ok: false }
  }
}

/**
 * Streams a session file line by line in bounded chunks (no whole-file buffer, so any size works):
 * the header first, then each event decoded exactly (SPEC 2.2) and handed to `visit` in seq order.
 * A torn final line is reported, not visited; any other damage throws `corrupt` naming the seq.
 */
export async function scanSessionFile(
  handle: FileHandleLike,
  path: string,
  visit: (event: SessionEvent, trusted: boolean) => void,
  onHeader?: (header: SessionHeader) => void,
  options: ScanOptions = {},
): Promise<ScannedFile> {
  let header: SessionHeader | undefined
  let eventCount = 0
  let position = 0
  let carry: Buffer | null = null
  const trust = options.trust
  const hash = options.hash || trust ? createHash('sha256') : null
  const take = (text: string): void => {
    if (header !== undefined && trust !== undefined && eventCount < trust.events) {
      // a validated prefix whose bytes hash as before (checked once the scan passes its end): parse only
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        throw new PrefixChanged(path)
      }
      visit(value as SessionEvent, true)
      eventCount++
      return
    }
    const parsed = parseLine(text)
    if (header === undefined) {
      if (!parsed.ok) throw corruptFile(path, -1, 'header line is not valid JSON')
      const problem = headerProblem(parsed.value)
      if (problem !== null) throw corruptFile(path, -1, problem)
      header = parsed.value as SessionHeader
      onHeader?.(header)
      return
    }
    if (!parsed.ok) throw corruptFile(path, eventCount, 'line is not valid JSON')
    const problem = eventProblem(parsed.value, eventCount)
    if (problem !== null) throw corruptFile(path, eventCount, problem)
    eventCount++
    visit(parsed.value as SessionEvent, false)
  }
  const digest = (bytes: Buffer, at: number): void => {
    if (hash === null) return
    if (trust !== undefined && at < trust.bytes && at + bytes.length >= trust.bytes) {
      const cut = trust.bytes - at
      hash.update(bytes.subarray(0, cut))
      if (hash.copy().digest('hex') !== trust.sha256) throw new PrefixChanged(path)
      hash.update(bytes.subarray(cut))
    } else hash.update(bytes)
  }
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position)
    if (bytesRead === 0) break
    digest(chunk.subarray(0, bytesRead), position)
    position += bytesRead
    let start = 0
    for (;;) {
      const nl = chunk.indexOf(0x0a, start)
      if (nl === -1 || nl >= bytesRead) break
      // decoded straight from the chunk (no Buffer per line); a line split across chunks is joined first
      take(carry === null ? chunk.toString('utf8', start, nl) : Buffer.concat([carry, chunk.subarray(start, nl)]).toString('utf8'))
      carry = null
      start = nl + 1
    }
    if (start < bytesRead) {
      const rest = Buffer.from(chunk.subarray(start, bytesRead))
      carry = carry === null ? rest : Buffer.concat([carry, rest])
    }
  }
  let tornBytes = 0
  let missingFinalNewline = false
  if (carry !== null) {
    const last = carry.toString('utf8')
    const parsed = parseLine(last)
    if (parsed.ok) {
      take(last)
      missingFinalNewline = true
    } else if (header === undefined) {
      throw corruptFile(path, -1, 'header line is incomplete')
    } else {
      tornBytes = carry.length
    }
  }
  if (header === undefined) throw corruptFile(path, -1, 'file has no header')
  if (trust !== undefined && position < trust.bytes) throw new PrefixChanged(path)
  return { header, eventCount, tornBytes, validBytes: position - tornBytes, missingFinalNewline, hash: tornBytes > 0 ? null : hash }
}

/** SHA-256 of a file's first `bytes` bytes (after a torn tail was cut, the scan's running hash covered too much). */
export async function hashPrefix(handle: FileHandleLike, bytes: number): Promise<Hash> {
  const hash = createHash('sha256')
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
  let position = 0
  while (position < bytes) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(CHUNK_BYTES, bytes - position), position)
    if (bytesRead === 0) break
    hash.update(chunk.subarray(0, bytesRead))
    position += bytesRead
  }
  return hash
}

/** Reads only the header line of a session file (never its events); throws `not-found` or `corrupt`. */
export async function readHeaderFile(files: FileLayer, path: string): Promise<SessionHeader> {
  const { handle } = await openForReading(files, path)
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    if (bytesRead === 0) throw corruptFile(path, -1, 'file has no header')
    const nl = buffer.subarray(0, bytesRead).indexOf(0x0a)
    const line = buffer.subarray(0, nl === -1 ? bytesRead : nl).toString('utf8')
    const parsed = parseLine(line)
    if (!parsed.ok) throw corruptFile(path, -1, nl === -1 ? 'header line is incomplete' : 'header line is not valid JSON')
    const problem = headerProblem(parsed.value)
    if (problem !== null) throw corruptFile(path, -1, problem)
    return parsed.value as SessionHeader
  } finally {
    await handle.close()
  }
}

/** Reads a whole session file into memory (tools, tests and the bench; the host streams instead). */
export async function loadSessionFile(path: string, files: FileLayer): Promise<{ header: SessionHeader; events: SessionEvent[] }> {
  const { handle } = await openForReading(files, path)
  try {
    const events: SessionEvent[] = []
    const { header } = await scanSessionFile(handle, path, (event) => events.push(event))
    return { header, events }
  } finally {
    await handle.close()
  }
}

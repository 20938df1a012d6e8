import { randomBytes } from 'node:crypto'
import { link, open, readFile, rename, rm, stat, truncate, type FileHandle } from 'node:fs/promises'
import type { EventType, SessionEvent, SessionHeader } from '../protocol/events.ts'
import { canonicalTimeZone } from '../protocol/time-zone.ts'
import { SESSION_ID_PATTERN } from '../protocol/wire.ts'
import { HostError } from './errors.ts'

const EVENT_TYPES: ReadonlySet<string> = new Set<EventType>([
  'turn/start',
  'step/start',
  'user/message',
  'request/header',
  'assistant/message',
  'tool/call',
  'tool/result',
  'step/end',
  'turn/end',
  'compact/summary',
  'schedule/change',
  'inbox/enqueued',
  'inbox/dropped',
])

/** What loading a session file found. */
export type LoadedSessionFile = {
  header: SessionHeader
  events: SessionEvent[]
  /** Bytes of a torn final line that were cut away, 0 when the file was whole. */
  tornBytes: number
  /** Length in bytes of the file without its torn final line. */
  validBytes: number
  /** True when the last complete line lacks its newline (the next append writes one first). */
  missingFinalNewline: boolean
}

function corrupt(path: string, line: number, what: string): HostError {
  return new HostError('session-corrupt', `session file ${path} is corrupt at line ${line}: ${what}`, {
    path,
    line,
  })
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Decodes and checks a header line; throws a session-corrupt error when it is not one. */
export function decodeHeader(value: unknown, path: string): SessionHeader {
  if (!isRecord(value)) throw corrupt(path, 1, 'header is not an object')
  const keys = Object.keys(value)
  const allowed = new Set(['type', 'version', 'id', 'createdAt', 'timeZone'])
  if (keys.some((k) => !allowed.has(k))) throw corrupt(path, 1, 'header has unknown keys')
  if (value.type !== 'session' || value.version !== 1) throw corrupt(path, 1, 'not a version 1 session header')
  if (typeof value.id !== 'string' || !SESSION_ID_PATTERN.test(value.id)) throw corrupt(path, 1, 'bad session id')
  if (typeof value.createdAt !== 'number' || !Number.isSafeInteger(value.createdAt)) {
    throw corrupt(path, 1, 'bad createdAt')
  }
  if ('timeZone' in value && canonicalTimeZone(value.timeZone) === null) throw corrupt(path, 1, 'bad timeZone')
  return value as SessionHeader
}

function decodeEvent(value: unknown, expectedSeq: number, path: string, line: number): SessionEvent {
  if (!isRecord(value)) throw corrupt(path, line, 'event is not an object')
  if (value.seq !== expectedSeq) throw corrupt(path, line, `expected seq ${expectedSeq}, found ${String(value.seq)}`)
  if (typeof value.time !== 'number' || !Number.isFinite(value.time)) throw corrupt(path, line, 'bad time')
  if (typeof value.type !== 'string' || !EVENT_TYPES.has(value.type)) throw corrupt(path, line, 'unknown event type')
  if (!isRecord(value.data)) throw corrupt(path, line, 'event data is not an object')
  return value as unknown as SessionEvent
}

/** What scanning a session file's bytes found besides its events. */
export type ScannedSessionFile = Omit<LoadedSessionFile, 'events'> & { eventCount: number }

/**
 * Walks a session file's bytes line by line (decoding one line at a time, so no size cap and no
 * whole-file string): the header first, then each event with contiguous seq handed to `visit`.
 * A torn final line is reported, not visited; any other damage throws a session-corrupt error.
 */
export function scanSessionBytes(
  buf: Buffer,
  path: string,
  visit: (event: SessionEvent) => void,
  onHeader?: (header: SessionHeader) => void,
): ScannedSessionFile {
  if (buf.length === 0) {
    throw Object.assign(new Error(`session file ${path} is empty (its creation never completed)`), { code: 'ENOENT' })
  }
  let end = buf.length
  let tornBytes = 0
  let missingFinalNewline = false
  const lastNl = buf.lastIndexOf(0x0a)
  if (lastNl !== buf.length - 1) {
    let parsed: boolean
    try {
      JSON.parse(buf.toString('utf8', lastNl + 1))
      parsed = true
    } catch {
      parsed = false
    }
    if (lastNl < 0 && !parsed) throw corrupt(path, 1, 'header line is incomplete')
    if (parsed) missingFinalNewline = true
    else {
      tornBytes = buf.length - (lastNl + 1)
      end = lastNl + 1
    }
  }
  let pos = 0
  let lineNo = 0
  let header: SessionHeader | undefined
  let eventCount = 0
  while (pos < end) {
    let nl = buf.indexOf(0x0a, pos)
    if (nl === -1 || nl > end) nl = end
    const line = buf.toString('utf8', pos, nl)
    pos = nl + 1
    lineNo++
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      throw corrupt(path, lineNo, 'line is not valid JSON')
    }
    if (header === undefined) {
      header = decodeHeader(value, path)
      onHeader?.(header)
    } else visit(decodeEvent(value, eventCount++, path, lineNo))
  }
  if (header === undefined) throw corrupt(path, 1, 'file has no header')
  return { header, eventCount, tornBytes, validBytes: end, missingFinalNewline }
}

/** Reads a session file: torn final line tolerated, any other damage refused (never rewritten here). */
export async function loadSessionFile(path: string): Promise<LoadedSessionFile> {
  const events: SessionEvent[] = []
  const { header, tornBytes, validBytes, missingFinalNewline } = scanSessionBytes(await readFile(path), path, (event) => {
    events.push(event)
  })
  return { header, events, tornBytes, validBytes, missingFinalNewline }
}

/**
 * Reads only the header of an existing session file (never opens the session); null when the file
 * is missing, empty, or its first line is not a complete valid header (the full load reports those).
 */
export async function peekSessionHeader(path: string): Promise<SessionHeader | null> {
  let handle: FileHandle
  try {
    handle = await open(path, 'r')
  } catch {
    return null
  }
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8192), 0, 8192, 0)
    const nl = buffer.subarray(0, bytesRead).indexOf(0x0a)
    if (nl === -1) return null
    return decodeHeader(JSON.parse(buffer.subarray(0, nl).toString('utf8')) as unknown, path)
  } catch {
    return null
  } finally {
    await handle.close()
  }
}

/** Cuts a torn final line away so that later appends start on a fresh line. */
export async function cutTornTail(path: string, keepBytes: number): Promise<void> {
  await truncate(path, keepBytes)
}

/** Append-only writer of one session file; writes are ordered and `sync()` is an fsync barrier. */
export class SessionFileWriter {
  private constructor(
    private readonly handle: FileHandle,
    private needsNewline: boolean,
  ) {}

  /** Opens a session file for appending. */
  static async open(path: string, needsNewline = false): Promise<SessionFileWriter> {
    return new SessionFileWriter(await open(path, 'a'), needsNewline)
  }

  /** Creates a session file holding only the header, atomically (staged, then linked into place); fails when it exists. */
  static async create(path: string, header: SessionHeader): Promise<SessionFileWriter> {
    const staging = `${path}.${randomBytes(6).toString('hex')}.tmp`
    const draft = await open(staging, 'wx')
    try {
      await draft.appendFile(`${JSON.stringify(header)}\n`)
      await draft.sync()
    } finally {
      await draft.close()
    }
    try {
      await link(staging, path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || (await stat(path)).size !== 0) throw error
      await rename(staging, path)
    } finally {
      await rm(staging, { force: true })
    }
    return SessionFileWriter.open(path)
  }

  /** Writes the lines (each without its newline) in one write call. */
  async writeLines(lines: string[]): Promise<void> {
    const prefix = this.needsNewline ? '\n' : ''
    this.needsNewline = false
    await this.handle.appendFile(`${prefix}${lines.join('\n')}\n`)
  }

  /** fsync: everything written before is on disk when it resolves. */
  async sync(): Promise<void> {
    await this.handle.sync()
  }

  /** Closes the file. */
  async close(): Promise<void> {
    await this.handle.close()
  }
}

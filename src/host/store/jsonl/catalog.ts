import { randomBytes } from 'node:crypto'
import { constants, type Stats } from 'node:fs'
import { join } from 'node:path'
import type { SessionHeader } from '../../../protocol/index.ts'
import { corruptFile, readHeaderFile, specialFileReason, type Checkpoint } from './session-file.ts'
import type { FileHandleLike, FileLayer } from './file-layer.ts'
import { StoreError } from '../store-error.ts'
import type { DueEntry, SessionEntry, SessionListing, SessionPage, StoredSummary } from '../store.ts'

/** What identifies the bytes a summary was derived from: the file's inode, size and modification time. */
export type FileIdentity = { ino: number; size: number; mtimeMs: number }

/** A validated prefix of a file as the catalog keeps it: the prefix, the file's inode and the validators' key. */
export type StoredCheckpoint = Checkpoint & { ino: number; key: string }

type Entry = { header: SessionHeader; summary: StoredSummary | null; file: FileIdentity | null; checkpoint?: StoredCheckpoint | null }

/** `catalog.json`: every entry, and the generation of the journal that continues it. */
type Persisted = { version: 1; generation?: string; sessions: [string, Entry][] }

/** A line of `catalog.journal` after its `{"generation": …}` line: an entry as it now is, or null once it is gone. */
type JournalLine = [string, Entry | null]

/** The journal is folded into a whole rewrite once it outgrows the catalog (and never below this). */
const MIN_JOURNAL_BYTES = 64 * 1024

const SESSION_NAME = /^([A-Za-z0-9_-]{1,64})\.jsonl$/
const CURSOR = /^(\d{1,16}):([A-Za-z0-9_-]{1,64})$/

/** The identity of a file's current bytes. */
export function identityOf(info: Stats): FileIdentity {
  return { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs }
}

/** True when a file has the inode, length and modification time it had before. */
export function sameIdentity(a: FileIdentity | null, b: FileIdentity): boolean {
  return a !== null && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs
}

type Key = { id: string; createdAt: number }

function newestFirst(a: Key, b: Key): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/**
 * The JSONL store's list of sessions with their summaries (SPEC 14.1): one file,
 * `<dataDir>/catalog.json`, loaded once and checked against the folder (a log whose inode, size or
 * modification time differs from what its summary was derived from gets no summary until the
 * host rebuilds it), updated after every durable append, written back shortly after changes.
 * It is derived data: deleting it loses nothing.
 *
 * Writing back appends only the entries that changed, one line each, to `catalog.journal`; the
 * whole catalog is rewritten (a new generation, the journal emptied) only once the journal has
 * grown past it. With 10,000 sessions a whole rewrite is ~5 MB of JSON; a second of a busy session's
 * appends is one ~400-byte line. A journal whose generation is not the catalog's is not read, and a
 * torn last line is dropped (the next write back is then a whole rewrite).
 */
export class Catalog {
  private readonly entries = new Map<string, Entry>()
  private readonly problems = new Map<string, StoreError>()
  private sorted: Key[] | null = null
  private ready: Promise<void> | null = null
  private isReady = false
  private flushTimer: NodeJS.Timeout | null = null
  private writing: Promise<void> = Promise.resolve()
  private dirty = false
  /** Ids whose entry changed since the last write back. */
  private readonly changed = new Set<string>()
  /** The generation of `catalog.json` on disk, which the journal continues; null: none yet. */
  private generation: string | null = null
  /** True when the next write back must rewrite the whole catalog. */
  private wholeNeeded = true
  private baseBytes = 0
  private journalBytes = 0
  private readonly journalPath: string

  constructor(
    private readonly files: FileLayer,
    private readonly sessionsDir: string,
    private readonly path: string,
    private readonly log: (line: string) => void,
    private readonly flushDelayMs = 1000,
  ) {
    this.journalPath = path.replace(/(\.json)?$/, '.journal')
  }

  /** True once loading started (there is something to write back). */
  get loaded(): boolean {
    return this.ready !== null
  }

  /** True once the catalog is loaded and checked. */
  get usable(): boolean {
    return this.isReady
  }

  /** Loads the catalog and checks it against the folder, once. */
  ensure(): Promise<void> {
    this.ready ??= this.load().catch((error: unknown) => {
      this.ready = null
      throw error
    })
    return this.ready
  }

  private async load(): Promise<void> {
    const saved = await this.readSaved()
    let names
    try {
      names = await this.files.readdir(this.sessionsDir)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.isReady = true
        return
      }
      throw new StoreError('unavailable', `the sessions folder cannot be read: ${(error as Error).message}`, undefined, { cause: error })
    }
    let stale = 0
    let changed = saved.size
    for (const dirent of names) {
      const match = SESSION_NAME.exec(dirent.name)
      if (match === null) continue
      const id = match[1]
      const path = join(this.sessionsDir, dirent.name)
      let info: Stats
      try {
        info = await this.files.lstat(path)
      } catch {
        continue
      }
      const special = specialFileReason(info)
      if (special !== null) {
        this.problems.set(id, corruptFile(path, -1, special))
        continue
      }
      if (info.size === 0) continue
      const known = saved.get(id)
      if (known && sameIdentity(known.file, identityOf(info))) {
        this.entries.set(id, known)
        changed--
        continue
      }
      try {
        const header = await readHeaderFile(this.files, path)
        if (header.id !== id) throw corruptFile(path, -1, `the header names session ${header.id}`)
        // the summary is stale, but a validated prefix stays usable: opening checks its bytes' hash
        this.entries.set(id, { header, summary: null, file: null, checkpoint: known?.checkpoint ?? null })
        if (known) stale++
      } catch (error) {
        if (error instanceof StoreError && error.code === 'not-found') continue
        if (error instanceof StoreError) this.problems.set(id, error)
        else throw error
      }
    }
    this.sorted = null
    this.isReady = true
    if (stale > 0) this.log(`catalog: ${stale} session summaries are stale and will be rebuilt from their logs`)
    if (changed !== 0 || this.entries.size !== saved.size) this.markDirty()
  }

  private async readSaved(): Promise<Map<string, Entry>> {
    const out = new Map<string, Entry>()
    const text = await this.readText(this.path)
    if (text === null) return out
    try {
      const parsed = JSON.parse(text) as Persisted
      if (parsed.version !== 1 || !Array.isArray(parsed.sessions)) return out
      for (const [id, entry] of parsed.sessions) out.set(id, entry)
      this.baseBytes = Buffer.byteLength(text)
      if (typeof parsed.generation === 'string') await this.replayJournal(parsed.generation, out)
    } catch {
      this.log('catalog: the saved catalog is unreadable; every summary will be rebuilt from its log')
    }
    return out
  }

  /**
   * Applies the journal that continues the catalog of `generation`: every complete line, in order.
   * Anything else (another generation, a torn or unreadable line) stops the replay there and makes
   * the next write back a whole rewrite.
   */
  private async replayJournal(generation: string, out: Map<string, Entry>): Promise<void> {
    const text = await this.readText(this.journalPath)
    if (text === null) return
    let start = 0
    let lineNo = 0
    for (let end = text.indexOf('\n'); end !== -1; start = end + 1, end = text.indexOf('\n', start), lineNo++) {
      let parsed: unknown
      try {
        parsed = JSON.parse(text.slice(start, end))
      } catch {
        return
      }
      if (lineNo === 0) {
        if ((parsed as { generation?: unknown } | null)?.generation !== generation) return
        continue
      }
      if (!Array.isArray(parsed) || typeof parsed[0] !== 'string') return
      const [id, entry] = parsed as JournalLine
      if (entry === null) out.delete(id)
      else out.set(id, entry)
    }
    if (start !== text.length || lineNo === 0) return
    this.generation = generation
    this.journalBytes = Buffer.byteLength(text)
    this.wholeNeeded = false
  }

  /** A file's text, or null when it cannot be read. */
  private async readText(path: string): Promise<string | null> {
    try {
      const handle = await this.files.open(path, constants.O_RDONLY | constants.O_NOFOLLOW)
      try {
        const info = await handle.stat()
        const buffer = Buffer.allocUnsafe(info.size)
        let read = 0
        while (read < info.size) {
          const { bytesRead } = await handle.read(buffer, read, info.size - read, read)
          if (bytesRead === 0) break
          read += bytesRead
        }
        return buffer.toString('utf8', 0, read)
      } finally {
        await handle.close()
      }
    } catch {
      return null
    }
  }

  /** Every entry and every damaged one. */
  listing(): SessionListing[] {
    const out: SessionListing[] = []
    for (const [id, entry] of this.entries) out.push({ id, header: entry.header, summary: entry.summary })
    for (const [id, problem] of this.problems) out.push({ id, problem })
    return out
  }

  /** One page, newest first, after the cursor. */
  page(limit: number, before?: string): SessionPage {
    const sorted = this.sortedKeys()
    let start = 0
    if (before !== undefined) {
      const match = CURSOR.exec(before)
      if (match === null) throw new StoreError('corrupt', `malformed session cursor ${JSON.stringify(before)}`, { seq: -1, reason: 'malformed cursor' })
      const probe: Key = { id: match[2], createdAt: Number(match[1]) }
      let lo = 0
      let hi = sorted.length
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (newestFirst(sorted[mid], probe) <= 0) lo = mid + 1
        else hi = mid
      }
      start = lo
    }
    const keys = sorted.slice(start, start + limit)
    const entries = keys.map((key) => this.get(key.id) as SessionEntry)
    const last = keys.at(-1)
    return { entries, nextCursor: last !== undefined && start + limit < sorted.length ? `${last.createdAt}:${last.id}` : null }
  }

  private sortedKeys(): Key[] {
    if (this.sorted === null) {
      this.sorted = [...this.entries].map(([id, entry]) => ({ id, createdAt: entry.header.createdAt })).sort(newestFirst)
    }
    return this.sorted
  }

  /** One entry, or undefined when the catalog does not know the id. */
  get(id: string): SessionEntry | undefined {
    const entry = this.entries.get(id)
    return entry === undefined ? undefined : { id, header: entry.header, summary: entry.summary }
  }

  /** Records a session (a creation, a first read of a file the catalog did not know). */
  add(header: SessionHeader): void {
    if (this.entries.has(header.id)) return
    this.problems.delete(header.id)
    this.entries.set(header.id, { header, summary: null, file: null })
    this.sorted = null
    this.markDirty(header.id)
  }

  /** Records the summary derived from the bytes with this identity (and, from a writer, the validated prefix). */
  setSummary(id: string, summary: StoredSummary, file: FileIdentity, checkpoint?: StoredCheckpoint): void {
    const entry = this.entries.get(id)
    if (entry === undefined) return
    entry.summary = summary
    entry.file = file
    if (checkpoint !== undefined) entry.checkpoint = checkpoint
    this.markDirty(id)
  }

  /** The validated prefix recorded for a file with this inode, if any. */
  checkpointOf(id: string, ino: number): StoredCheckpoint | null {
    const checkpoint = this.entries.get(id)?.checkpoint ?? null
    return checkpoint !== null && checkpoint.ino === ino ? checkpoint : null
  }

  /** Forgets a session whose file is gone. */
  remove(id: string): void {
    if (this.entries.delete(id)) {
      this.sorted = null
      this.markDirty(id)
    }
  }

  /** Sessions with a reminder due before `time`, earliest first. */
  due(time: number, limit: number): DueEntry[] {
    const out: DueEntry[] = []
    for (const [id, entry] of this.entries) {
      const at = entry.summary?.nextDueAt
      if (typeof at === 'number' && at <= time) out.push({ id, nextDueAt: at })
    }
    return out.sort((a, b) => a.nextDueAt - b.nextDueAt || (a.id < b.id ? -1 : 1)).slice(0, limit)
  }

  /** Schedules a write back; `id` names the entry that changed (none: the next one is whole). */
  private markDirty(id?: string): void {
    if (id === undefined) this.wholeNeeded = true
    else this.changed.add(id)
    this.dirty = true
    if (this.flushTimer !== null) return
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null
      void this.flush()
    }, this.flushDelayMs)
    this.flushTimer.unref()
  }

  /** Writes back what changed now: the changed entries appended to the journal, or the whole catalog. */
  flush(): Promise<void> {
    if (this.flushTimer !== null) {
      clearTimeout(this.flushTimer)
      this.flushTimer = null
    }
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return
      this.dirty = false
      const ids = [...this.changed]
      this.changed.clear()
      try {
        if (this.wholeNeeded || this.generation === null) return await this.writeWhole()
        let text = ''
        for (const id of ids) text += `${JSON.stringify([id, this.entries.get(id) ?? null] satisfies JournalLine)}\n`
        const bytes = Buffer.from(text)
        if (this.journalBytes + bytes.length > Math.max(this.baseBytes, MIN_JOURNAL_BYTES)) return await this.writeWhole()
        const handle = await this.files.open(this.journalPath, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW)
        try {
          await writeAll(handle, bytes)
        } finally {
          await handle.close()
        }
        this.journalBytes += bytes.length
      } catch {
        // derived data: what could not be written goes out whole with the next change, or is rebuilt from the logs
        this.dirty = true
        this.wholeNeeded = true
      }
    })
    return this.writing
  }

  /**
   * Rewrites the whole catalog under a new generation (a staged file renamed over the old one), then
   * starts its journal empty the same way. Until the journal is renamed, the one on disk names the
   * old generation, so it is never read over the new catalog.
   */
  private async writeWhole(): Promise<void> {
    this.wholeNeeded = true
    const generation = randomBytes(9).toString('base64url')
    const body: Persisted = { version: 1, generation, sessions: [...this.entries] }
    const base = Buffer.from(JSON.stringify(body))
    await this.replace(this.path, base)
    this.generation = null
    const journal = Buffer.from(`${JSON.stringify({ generation })}\n`)
    await this.replace(this.journalPath, journal)
    this.generation = generation
    this.baseBytes = base.length
    this.journalBytes = journal.length
    this.wholeNeeded = false
  }

  /** Writes `bytes` to a staged file and renames it over `path`; the staged file is removed on failure. */
  private async replace(path: string, bytes: Buffer): Promise<void> {
    const staged = `${path}.${process.pid}.tmp`
    try {
      const handle = await this.files.open(staged, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644)
      try {
        await writeAll(handle, bytes)
      } finally {
        await handle.close()
      }
      await this.files.rename(staged, path)
    } catch (error) {
      await this.files.unlink(staged).catch(() => undefined)
      throw error
    }
  }
}

async function writeAll(handle: FileHandleLike, bytes: Buffer): Promise<void> {
  let offset = 0
  while (offset < bytes.length) offset += (await handle.write(bytes, offset, bytes.length - offset, null)).bytesWritten
}

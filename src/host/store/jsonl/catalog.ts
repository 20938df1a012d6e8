import { constants, type Stats } from 'node:fs'
import { join } from 'node:path'
import type { SessionHeader } from '../../../protocol/index.ts'
import { corruptFile, readHeaderFile, specialFileReason, type Checkpoint } from './session-file.ts'
import type { FileLayer } from './file-layer.ts'
import { StoreError } from '../store-error.ts'
import type { DueEntry, SessionEntry, SessionListing, SessionPage, StoredSummary } from '../store.ts'

/** What identifies the bytes a summary was derived from: the file's inode, size and modification time. */
export type FileIdentity = { ino: number; size: number; mtimeMs: number }

/** A validated prefix of a file as the catalog keeps it: the prefix, the file's inode and the validators' key. */
export type StoredCheckpoint = Checkpoint & { ino: number; key: string }

type Entry = { header: SessionHeader; summary: StoredSummary | null; file: FileIdentity | null; checkpoint?: StoredCheckpoint | null }

type Persisted = { version: 1; sessions: [string, Entry][] }

const SESSION_NAME = /^([A-Za-z0-9_-]{1,64})\.jsonl$/
const CURSOR = /^(\d{1,16}):([A-Za-z0-9_-]{1,64})$/

/** The identity of a file's current bytes. */
export function identityOf(info: Stats): FileIdentity {
  return { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs }
}

function sameIdentity(a: FileIdentity | null, b: FileIdentity): boolean {
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

  constructor(
    private readonly files: FileLayer,
    private readonly sessionsDir: string,
    private readonly path: string,
    private readonly log: (line: string) => void,
    private readonly flushDelayMs = 1000,
  ) {}

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
    let text: string
    try {
      const handle = await this.files.open(this.path, constants.O_RDONLY | constants.O_NOFOLLOW)
      try {
        const info = await handle.stat()
        const buffer = Buffer.allocUnsafe(info.size)
        let read = 0
        while (read < info.size) {
          const { bytesRead } = await handle.read(buffer, read, info.size - read, read)
          if (bytesRead === 0) break
          read += bytesRead
        }
        text = buffer.toString('utf8', 0, read)
      } finally {
        await handle.close()
      }
    } catch {
      return out
    }
    try {
      const parsed = JSON.parse(text) as Persisted
      if (parsed.version !== 1 || !Array.isArray(parsed.sessions)) return out
      for (const [id, entry] of parsed.sessions) out.set(id, entry)
    } catch {
      this.log('catalog: the saved catalog is unreadable; every summary will be rebuilt from its log')
    }
    return out
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
    this.markDirty()
  }

  /** Records the summary derived from the bytes with this identity (and, from a writer, the validated prefix). */
  setSummary(id: string, summary: StoredSummary, file: FileIdentity, checkpoint?: StoredCheckpoint): void {
    const entry = this.entries.get(id)
    if (entry === undefined) return
    entry.summary = summary
    entry.file = file
    if (checkpoint !== undefined) entry.checkpoint = checkpoint
    this.markDirty()
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
      this.markDirty()
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

  private markDirty(): void {
    this.dirty = true
    if (this.flushTimer !== null) return
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null
      void this.flush()
    }, this.flushDelayMs)
    this.flushTimer.unref()
  }

  /** Writes the catalog now (atomically: a staged file renamed over the old one). */
  flush(): Promise<void> {
    if (this.flushTimer !== null) {
      clearTimeout(this.flushTimer)
      this.flushTimer = null
    }
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return
      this.dirty = false
      const body: Persisted = { version: 1, sessions: [...this.entries] }
      const staged = `${this.path}.${process.pid}.tmp`
      try {
        const handle = await this.files.open(staged, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644)
        try {
          const bytes = Buffer.from(JSON.stringify(body))
          let offset = 0
          while (offset < bytes.length) offset += (await handle.write(bytes, offset, bytes.length - offset, null)).bytesWritten
        } finally {
          await handle.close()
        }
        await this.files.rename(staged, this.path)
      } catch {
        // derived data: a catalog that could not be written is rebuilt from the logs next time
        this.dirty = true
        await this.files.unlink(staged).catch(() => undefined)
      }
    })
    return this.writing
  }
}

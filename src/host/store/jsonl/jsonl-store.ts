import { randomBytes } from 'node:crypto'
import { constants, type Stats } from 'node:fs'
import { join, resolve } from 'node:path'
import type { SessionHeader } from '../../../protocol/index.ts'
import { SESSION_ID_PATTERN } from '../../../protocol/index.ts'
import { isStoreError, StoreError, storageUnavailable } from '../store-error.ts'
import type {
  CreateResult,
  DueEntry,
  EventPage,
  EventRange,
  OpenVisitor,
  SessionEntry,
  SessionListing,
  SessionPage,
  SessionWriter,
  Store,
  StoredSummary,
} from '../store.ts'
import { Catalog, identityOf, sameIdentity, type FileIdentity } from './catalog.ts'
import { readEventPage } from './event-pages.ts'
import { nodeFiles, type FileHandleLike, type FileLayer } from './file-layer.ts'
import {
  corruptFile,
  hashPrefix,
  openForReading,
  PrefixChanged,
  readHeaderFile,
  scanSessionFile,
  specialFileReason,
  type ScanOptions,
  type ScannedFile,
} from './session-file.ts'
import { JsonlSessionWriter } from './session-writer.ts'

const WRITE_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW
const STAGE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
const STAGED_NAME = /^[A-Za-z0-9_-]{1,64}\.jsonl\.[0-9a-f]{12}\.tmp$/
const SESSION_NAME = /^([A-Za-z0-9_-]{1,64})\.jsonl$/

/** How to build the JSONL store. */
export type JsonlStoreOptions = {
  dataDir: string
  /** The file system calls (tests inject failures here). */
  files?: FileLayer
  log?: (line: string) => void
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code
}

/**
 * The default store (SPEC 2.5, 14.1): one JSON Lines file per session in `<dataDir>/sessions`,
 * created atomically, appended in order with group commit, read only from regular files.
 */
export class JsonlStore implements Store {
  readonly sessionsDir: string
  private readonly files: FileLayer
  private readonly log: (line: string) => void
  private readonly catalog: Catalog
  /** Identity of each file at the start of its last read-only scan (a summary rebuilt from it is kept only if the file is unchanged). */
  private readonly scanned = new Map<string, FileIdentity>()
  /**
   * The corrupt verdict of each file's last whole read, with the file's identity then and the
   * validators' key: a file unchanged since is not read again to be refused again (a long log
   * corrupt near its end costs seconds a read, and every route and list asks).
   */
  private readonly verdicts = new Map<string, { file: FileIdentity; key: string; error: StoreError }>()

  private constructor(options: JsonlStoreOptions) {
    // absolute, so that every path a message names is one the server leaves out of its answers (SPEC 8)
    const dataDir = resolve(options.dataDir)
    this.sessionsDir = join(dataDir, 'sessions')
    this.files = options.files ?? nodeFiles
    this.log = options.log ?? (() => undefined)
    this.catalog = new Catalog(this.files, this.sessionsDir, join(dataDir, 'catalog.json'), this.log)
  }

  /** Opens the store: creates the sessions folder and removes staged files of interrupted creations. */
  static async open(options: JsonlStoreOptions): Promise<JsonlStore> {
    const store = new JsonlStore(options)
    await store.files.mkdir(store.sessionsDir)
    for (const entry of await store.files.readdir(store.sessionsDir)) {
      if (entry.isFile() && (STAGED_NAME.test(entry.name) || entry.name.startsWith('.probe-'))) {
        await store.files.unlink(join(store.sessionsDir, entry.name)).catch(() => undefined)
        store.log(`removed the staged file ${entry.name} of an interrupted session creation`)
      }
    }
    return store
  }

  /** Path of a session's file. */
  pathOf(id: string): string {
    return join(this.sessionsDir, `${id}.jsonl`)
  }

  async listSessions(): Promise<SessionListing[]> {
    await this.catalog.ensure()
    let entries
    try {
      entries = await this.files.readdir(this.sessionsDir)
    } catch (error) {
      if (errno(error) === 'ENOENT') return []
      throw storageUnavailable('(all)', error)
    }
    const out: SessionListing[] = []
    const present = new Set<string>()
    for (const entry of entries) {
      const match = SESSION_NAME.exec(entry.name)
      if (match === null) continue
      const id = match[1]
      present.add(id)
      const path = join(this.sessionsDir, entry.name)
      if (!entry.isFile()) {
        let reason = 'not a regular file'
        try {
          reason = specialFileReason(await this.files.lstat(path)) ?? reason
        } catch {
          reason = 'not a regular file (gone)'
        }
        this.catalog.remove(id)
        out.push({ id, problem: corruptFile(path, -1, reason) })
        continue
      }
      try {
        out.push(await this.readEntry(id))
      } catch (error) {
        if (error instanceof StoreError) {
          if (error.code !== 'not-found') out.push({ id, problem: error })
        } else throw error
      }
    }
    for (const listed of this.catalog.listing()) if (!present.has(listed.id)) this.catalog.remove(listed.id)
    return out
  }

  async listPage(options: { limit: number; before?: string }): Promise<SessionPage> {
    await this.catalog.ensure()
    return this.catalog.page(options.limit, options.before)
  }

  async readEntry(id: string): Promise<SessionEntry> {
    await this.catalog.ensure()
    const known = this.catalog.get(id)
    if (known) return known
    const header = await this.readHeader(id)
    this.catalog.add(header)
    return { id, header, summary: null }
  }

  async putSummary(id: string, summary: StoredSummary): Promise<void> {
    await this.catalog.ensure()
    const scanned = this.scanned.get(id)
    this.scanned.delete(id)
    if (scanned === undefined) return
    let info
    try {
      info = await this.files.lstat(this.pathOf(id))
    } catch {
      return
    }
    const now = identityOf(info)
    if (sameIdentity(scanned, now)) this.catalog.setSummary(id, summary, now)
  }

  async readEvents(id: string, range: EventRange): Promise<EventPage> {
    if (!SESSION_ID_PATTERN.test(id)) throw new StoreError('not-found', `session ${id} does not exist`)
    const path = this.pathOf(id)
    const { handle, info } = await openForReading(this.files, path)
    try {
      return await readEventPage(handle, path, info.size, range)
    } finally {
      await handle.close()
    }
  }

  async scanSession(id: string, visit: OpenVisitor): Promise<void> {
    if (!SESSION_ID_PATTERN.test(id)) throw new StoreError('not-found', `session ${id} does not exist`)
    const path = this.pathOf(id)
    const { handle, info } = await openForReading(this.files, path)
    try {
      this.knownCorrupt(id, info, visit)
      this.scanned.set(id, identityOf(info))
      await scanSessionFile(
        handle,
        path,
        (event) => visit.event(event),
        (header) => {
          if (header.id !== id) throw corruptFile(path, -1, `the header names session ${header.id}`)
          visit.header(header)
        },
      ).catch((error: unknown) => this.remember(id, info, visit, error))
    } finally {
      await handle.close()
    }
  }

  /** Throws the verdict of the file's last read when it was corrupt and neither the file nor the validators changed since. */
  private knownCorrupt(id: string, info: Stats, visit: OpenVisitor): void {
    const verdict = this.verdicts.get(id)
    if (verdict === undefined) return
    if (verdict.key === (visit.trustKey ?? '') && sameIdentity(verdict.file, identityOf(info))) throw verdict.error
    this.verdicts.delete(id)
  }

  /** Keeps a corrupt verdict of a read of the file as it was at `info`, and rethrows what the read threw. */
  private remember(id: string, info: Stats, visit: OpenVisitor, error: unknown): never {
    if (isStoreError(error) && error.code === 'corrupt') {
      this.verdicts.set(id, { file: identityOf(info), key: visit.trustKey ?? '', error })
    }
    throw error
  }

  async dueSessions(time: number, limit: number): Promise<DueEntry[]> {
    await this.catalog.ensure()
    return this.catalog.due(time, limit)
  }

  async readHeader(id: string): Promise<SessionHeader> {
    const path = this.pathOf(id)
    const header = await readHeaderFile(this.files, path)
    if (header.id !== id) throw corruptFile(path, -1, `the header names session ${header.id}`)
    return header
  }

  async createSession(header: SessionHeader): Promise<CreateResult> {
    const path = this.pathOf(header.id)
    const staged = `${path}.${randomBytes(6).toString('hex')}.tmp`
    try {
      const draft = await this.files.open(staged, STAGE_FLAGS, 0o644)
      try {
        const bytes = Buffer.from(`${JSON.stringify(header)}\n`)
        await draft.write(bytes, 0, bytes.length, null)
        await draft.datasync()
      } finally {
        await draft.close()
      }
      try {
        await this.files.link(staged, path)
      } catch (error) {
        if (errno(error) !== 'EEXIST') throw error
        const existing = await this.emptyOrHeader(header.id)
        if (existing !== null) return { created: false, header: existing }
        await this.files.rename(staged, path)
      }
      await this.syncDir()
      await this.catalog.ensure()
      this.catalog.add(header)
      return { created: true }
    } catch (error) {
      if (error instanceof StoreError) throw error
      throw storageUnavailable(header.id, error)
    } finally {
      await this.files.unlink(staged).catch(() => undefined)
    }
  }

  /** The header of an existing session, or null when the file is an empty regular file (a v1 creation never completed). */
  private async emptyOrHeader(id: string): Promise<SessionHeader | null> {
    const info = await this.files.lstat(this.pathOf(id))
    if (info.isFile() && info.size === 0) return null
    return this.readHeader(id)
  }

  private async syncDir(): Promise<void> {
    const dir = await this.files.open(this.sessionsDir, constants.O_RDONLY | constants.O_DIRECTORY)
    try {
      await dir.datasync()
    } finally {
      await dir.close()
    }
  }

  async openSession(id: string, visit: OpenVisitor): Promise<SessionWriter> {
    if (!SESSION_ID_PATTERN.test(id)) throw new StoreError('not-found', `session ${id} does not exist`)
    const path = this.pathOf(id)
    const { handle: reader, info } = await openForReading(this.files, path).catch((error: unknown) => {
      if (error instanceof StoreError && error.code === 'not-found') this.catalog.remove(id)
      throw error
    })
    let writer: FileHandleLike | null = null
    try {
      this.knownCorrupt(id, info, visit)
      await this.catalog.ensure().catch(() => undefined)
      const stored = visit.trustKey === undefined || !this.catalog.usable ? null : this.catalog.checkpointOf(id, info.ino)
      const trust = stored !== null && stored.key === visit.trustKey ? stored : undefined
      const scan = (options: ScanOptions): Promise<ScannedFile> =>
        scanSessionFile(
          reader,
          path,
          (event, trusted) => visit.event(event, trusted),
          (header) => {
            if (header.id !== id) throw corruptFile(path, -1, `the header names session ${header.id}`)
            visit.header(header)
          },
          options,
        )
      let scanned: ScannedFile
      try {
        scanned = await scan({ hash: true, ...(trust ? { trust } : {}) })
      } catch (error) {
        if (!(error instanceof PrefixChanged)) this.remember(id, info, visit, error)
        this.log(`session ${id}: its file changed since it was last validated; validating it whole`)
        scanned = await scan({ hash: true }).catch((again: unknown) => this.remember(id, info, visit, again))
      }
      const hash = scanned.hash ?? (await hashPrefix(reader, scanned.validBytes))
      try {
        writer = await this.files.open(path, WRITE_FLAGS)
      } catch (error) {
        throw storageUnavailable(id, error)
      }
      const opened = await writer.stat()
      if (opened.dev !== info.dev || opened.ino !== info.ino) {
        throw storageUnavailable(id, new Error(`session file '${path}' was replaced while it was opened`))
      }
      if (scanned.tornBytes > 0) {
        try {
          await writer.truncate(scanned.validBytes)
          await writer.datasync()
        } catch (error) {
          throw storageUnavailable(id, error)
        }
        this.log(`session ${id}: recovered a torn final line (${scanned.tornBytes} bytes cut)`)
      }
      const start = {
        header: scanned.header,
        path,
        handle: writer,
        dev: opened.dev,
        ino: opened.ino,
        durableCount: scanned.eventCount,
        durableBytes: scanned.validBytes,
        needsNewline: scanned.missingFinalNewline,
        hash,
        trustKey: visit.trustKey,
      }
      writer = null
      return new JsonlSessionWriter(this.files, start, (summary, file, checkpoint) => {
        if (this.catalog.usable) this.catalog.setSummary(id, summary, file, checkpoint)
        else void this.catalog.ensure().then(() => this.catalog.setSummary(id, summary, file, checkpoint), () => undefined)
      })
    } finally {
      await reader.close()
      if (writer !== null) await writer.close()
    }
  }

  async probe(): Promise<void> {
    const path = join(this.sessionsDir, `.probe-${process.pid}-${randomBytes(4).toString('hex')}`)
    try {
      await this.files.mkdir(this.sessionsDir)
      const handle = await this.files.open(path, STAGE_FLAGS, 0o644)
      try {
        const bytes = Buffer.alloc(4096, 0x20)
        await handle.write(bytes, 0, bytes.length, null)
        await handle.datasync()
      } finally {
        await handle.close()
      }
    } catch (error) {
      throw storageUnavailable('(probe)', error)
    } finally {
      await this.files.unlink(path).catch(() => undefined)
    }
  }

  async close(): Promise<void> {
    if (this.catalog.loaded) await this.catalog.flush()
  }
}

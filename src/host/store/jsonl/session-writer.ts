import type { SessionEvent, SessionHeader } from '../../../protocol/index.ts'
import { storageUnavailable } from '../store-error.ts'
import type { SessionWriter, StoredSummary } from '../store.ts'
import { afterQueuedWork, DurableWriter } from '../durability.ts'
import type { Hash } from 'node:crypto'
import type { Stats } from 'node:fs'
import { identityOf, type FileIdentity, type StoredCheckpoint } from './catalog.ts'
import type { FileHandleLike, FileLayer } from './file-layer.ts'

/**
 * Durable bytes between two digests of the validated prefix: a digest of the whole file on every
 * barrier cost a hash copy per message; a prefix this far behind the tail leaves at most this much
 * to validate again when the session opens after a crash (a close publishes the whole file).
 */
const CHECKPOINT_STRIDE = 256 * 1024

/** Where an open session file stands when its writer starts. */
export type WriterStart = {
  header: SessionHeader
  path: string
  handle: FileHandleLike
  /** Identity of the file the handle writes (checked against the path at every barrier). */
  dev: number
  ino: number
  durableCount: number
  durableBytes: number
  needsNewline: boolean
  /** SHA-256 of the file's durable bytes so far, continued with every durable write (the validated prefix). */
  hash: Hash
  /** The validators' key the durable events were validated under. */
  trustKey: string | undefined
}

/**
 * Appends of one JSONL session file with group commit: the first write waits for the work queued
 * with it (`afterQueuedWork`), so appends made together share one write+fdatasync, and events
 * queued while one is in flight go out together in the next. After each barrier the open file must
 * still be the file at the path (a deleted or replaced file fails the writer), so nothing is
 * acknowledged into a detached inode.
 */
export class JsonlSessionWriter extends DurableWriter implements SessionWriter {
  readonly header: SessionHeader
  private readonly path: string
  private readonly handle: FileHandleLike
  private readonly dev: number
  private readonly ino: number
  private durableBytes: number
  private needsNewline: boolean
  private queue: string[] = []
  private queuedEvents = 0
  private cycling: Promise<void> | null = null
  private summary: { summary: StoredSummary; count: number } | null = null
  private closed = false
  private released = false
  /** Bytes of the write in flight (or of the last one, refused) that reached the file past the durable ones. */
  private unconfirmed = 0
  /** Set when the file's length showed another writer: then nothing of it is ever cut. */
  private changedUnder = false

  constructor(
    private readonly files: FileLayer,
    start: WriterStart,
    /** Receives the summary of the durable events and the identity of the bytes it describes. */
    private readonly publish: (summary: StoredSummary, file: FileIdentity, checkpoint?: StoredCheckpoint) => void = () => undefined,
  ) {
    super(start.durableCount)
    this.header = start.header
    this.path = start.path
    this.handle = start.handle
    this.dev = start.dev
    this.ino = start.ino
    this.durableBytes = start.durableBytes
    this.needsNewline = start.needsNewline
    this.hash = start.hash
    this.trustKey = start.trustKey
  }

  private readonly hash: Hash
  private readonly trustKey: string | undefined

  /** The durable bytes the last published checkpoint covers. */
  private checkpointed = -1

  /**
   * The validated prefix to publish with a summary: a new one (a digest of every durable byte) once
   * CHECKPOINT_STRIDE bytes were made durable since the last, else none (the catalog keeps the last,
   * still a valid prefix of this file); `final` (on close) always makes one for what is durable.
   */
  private checkpoint(ino: number, final = false): StoredCheckpoint | undefined {
    if (this.trustKey === undefined || this.checkpointed === this.durableBytes) return undefined
    if (!final && this.checkpointed >= 0 && this.durableBytes - this.checkpointed < CHECKPOINT_STRIDE) return undefined
    this.checkpointed = this.durableBytes
    return { bytes: this.durableBytes, events: this.durability.count, sha256: this.hash.copy().digest('hex'), ino, key: this.trustKey }
  }

  append(events: readonly SessionEvent[], summary?: StoredSummary): void {
    if (this.durability.failure) throw this.durability.failure
    if (this.closed) throw storageUnavailable(this.header.id, new Error('the session is closed'))
    if (summary !== undefined) this.summary = { summary, count: this.accepted + events.length }
    if (events.length === 0) {
      if (summary !== undefined && this.cycling === null) void this.publishSummary()
      return
    }
    let text = ''
    for (const event of events) text += `${JSON.stringify(event)}\n`
    this.queue.push(text)
    this.queuedEvents += events.length
    this.accepted += events.length
    this.kick()
  }

  async repair(): Promise<void> {
    await this.cycling
    let info
    try {
      info = await this.files.lstat(this.path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.release()
      throw storageUnavailable(this.header.id, error)
    }
    // a file another writer changed is left as it is: opening it again judges what it holds
    if (info.dev !== this.dev || info.ino !== this.ino || this.changedUnder) return this.release()
    try {
      await this.cutToDurable()
    } catch (error) {
      throw storageUnavailable(this.header.id, error)
    }
    await this.release()
  }

  /**
   * Cuts what a failed write left past the durable bytes off the file (a refused event is never read back), only when
   * the file holds exactly the durable bytes and what that write put there: bytes another writer added are not cut.
   */
  private async cutToDurable(): Promise<void> {
    const current = await this.handle.stat()
    if (current.size === this.durableBytes + this.unconfirmed && this.unconfirmed > 0) {
      await this.handle.truncate(this.durableBytes)
      this.unconfirmed = 0
    }
    // made durable even when an earlier cut left nothing to cut: the file is known good only once a barrier passes
    await this.handle.datasync()
  }

  async close(): Promise<void> {
    this.closed = true
    await this.cycling
    const pending = this.summary
    if (!this.durability.failure && pending !== null && pending.count === this.durability.count && this.checkpointed !== this.durableBytes) {
      await this.publishSummary(true)
    }
    await this.release()
  }

  private async release(): Promise<void> {
    if (this.released) return
    this.released = true
    await this.handle.close().catch(() => undefined)
  }

  private kick(): void {
    if (this.cycling !== null || this.durability.failure) return
    this.cycling = afterQueuedWork().then(() => this.cycle()).finally(() => {
      this.cycling = null
      if (this.queue.length > 0 && !this.durability.failure) this.kick()
    })
  }

  private async cycle(): Promise<void> {
    let file: FileIdentity
    while (this.queue.length > 0 && !this.durability.failure) {
      const text = (this.needsNewline ? '\n' : '') + this.queue.join('')
      const count = this.queuedEvents
      this.queue = []
      this.queuedEvents = 0
      const bytes = Buffer.from(text, 'utf8')
      try {
        await this.writeAll(bytes)
        this.needsNewline = false
        await this.handle.datasync()
      } catch (error) {
        // what the refused write left (a whole line never made durable, or part of one) goes before anyone is told:
        // a truncate needs no free space, and the session opened again after a stop or a crash, with the disk still
        // full, must not read back an event whose sender was told it failed; repair cuts it when this cannot
        await this.cutToDurable().catch(() => undefined)
        this.fail(error)
        return
      }
      try {
        file = await this.checkIdentity(this.durableBytes + bytes.length)
      } catch (error) {
        // the file at the path is not the one written, or another writer changed its length: nothing is cut, ever
        this.changedUnder = true
        this.fail(error)
        return
      }
      this.durableBytes += bytes.length
      this.unconfirmed = 0
      this.hash.update(bytes)
      this.durability.advance(count)
      if (this.summary !== null && this.summary.count === this.durability.count) this.publish(this.summary.summary, file, this.checkpoint(file.ino))
    }
  }

  private async writeAll(bytes: Buffer): Promise<void> {
    let offset = 0
    while (offset < bytes.length) {
      const { bytesWritten } = await this.handle.write(bytes, offset, bytes.length - offset, null)
      offset += bytesWritten
      this.unconfirmed = offset
    }
  }

  private async publishSummary(final = false): Promise<void> {
    const pending = this.summary
    if (pending === null || pending.count !== this.durability.count) return
    try {
      const file = identityOf(await this.handle.stat())
      this.publish(pending.summary, file, this.checkpoint(file.ino, final))
    } catch {
      // a summary is derived data: the next durable append publishes it again
    }
  }

  /**
   * The file at the path must still be the one this writer holds open, once the barrier passed: one `lstat` (in the
   * thread pool: under load a synchronous one held the event loop up to 3% of its time), compared with the handle's
   * device and inode (taken when it was opened). The same inode has the same size and times, so its identity comes
   * from the same call, and its length must be `bytes`, what this writer made durable: a file cut short (or written
   * to) by something else under the server is not acknowledged into.
   */
  private async checkIdentity(bytes: number): Promise<FileIdentity> {
    let atPath: Stats
    try {
      atPath = await this.files.lstat(this.path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`session file '${this.path}' was deleted`)
      throw error
    }
    if (atPath.dev !== this.dev || atPath.ino !== this.ino) throw new Error(`session file '${this.path}' was replaced`)
    if (atPath.size !== bytes) throw new Error(`session file '${this.path}' was changed by another writer: ${atPath.size} bytes where ${bytes} were written`)
    return identityOf(atPath)
  }

  private fail(error: unknown): void {
    if (!this.durability.failure) this.durability.fail(storageUnavailable(this.header.id, error))
  }
}

import type { SessionEvent, SessionHeader } from '../../protocol/index.ts'
import type { StoreError } from './store-error.ts'

/** One entry of a store's session listing: a readable header, or why the entry is not a session. */
export type SessionListing = { id: string; header: SessionHeader } | { id: string; problem: StoreError }

/** What creating a session did: wrote the header, or found a session with that id already. */
export type CreateResult = { created: true } | { created: false; header: SessionHeader }

/**
 * The writer of one open session (SPEC 2.5, 2.6, 14.1). Appends are queued in seq order and made
 * durable in batches (group commit); `durableCount` only ever names events whose barrier resolved.
 * After a failure the writer accepts nothing more until the session is reopened.
 */
export interface SessionWriter {
  readonly header: SessionHeader
  /** Events known durable (seq 0 .. durableCount-1). */
  readonly durableCount: number
  /** The failure that stopped this writer, or null while it works. */
  readonly failure: StoreError | null
  /** Queues events (seqs continuing the log, in order); throws `unavailable` once failed. */
  append(events: readonly SessionEvent[]): void
  /** Resolves once every event queued before the call is durable; rejects `unavailable` on failure. */
  barrier(): Promise<void>
  /** Called with the new durable count after each barrier that covered new events. */
  onDurable(listener: (durableCount: number) => void): void
  /** Called once when the writer fails (a write, a barrier, or the file's identity). */
  onFailure(listener: (error: StoreError) => void): void
  /** After a failure: removes what is not durable so a reopen sees only durable events; throws when it cannot yet. */
  repair(): Promise<void>
  /** Waits for queued work and releases the session's resources. */
  close(): Promise<void>
}

/** What opening a session hands back while it reads: the header first, then each durable event in seq order. */
export interface OpenVisitor {
  header(header: SessionHeader): void
  event(event: SessionEvent): void
}

/**
 * The store seam (SPEC 14.1): everything the host knows of storage. Nothing above it knows whether
 * sessions live in files or in a database.
 */
export interface Store {
  /** Every session entry the store holds (headers only, never logs); damaged entries are reported, not thrown. */
  listSessions(): Promise<SessionListing[]>
  /** The header of one session; throws `not-found` or `corrupt`. */
  readHeader(id: string): Promise<SessionHeader>
  /** Writes a new session's header once, atomically; an existing id is reported with its header. */
  createSession(header: SessionHeader): Promise<CreateResult>
  /**
   * Opens a session: hands the header and then every durable event to `visit` in seq order (a throw
   * there aborts the open and propagates), then returns its writer. Throws `not-found`, `corrupt` or `unavailable`.
   */
  openSession(id: string, visit: OpenVisitor): Promise<SessionWriter>
  /** Proves that writes work (used before a failed session is reopened); throws `unavailable` while they do not. */
  probe(): Promise<void>
  /** Releases the store's resources. */
  close(): Promise<void>
}

import type { AssistantDelta, SessionEvent, SessionHeader } from '../../protocol/index.ts'
import type { StoreError } from './store-error.ts'

/**
 * What a store keeps of a session besides its log (SPEC 14.1): derived from the log by the host,
 * written with each durable append, so lists and the due index never read a log.
 */
export type StoredSummary = {
  /** The latest title (a rename, else the start of the first message), or null. */
  title: string | null
  /** Durable events. */
  eventCount: number
  /** `time` of the last durable event, or null. */
  lastEventAt: number | null
  /** True while the log ends inside an open turn (a restart closes it). */
  openTurn: boolean
  /** Messages accepted into the inbox that have not entered yet (a restart runs them). */
  pendingInbox: number
  /** The earliest reminder target (the due index), or null. */
  nextDueAt: number | null
}

/** A session as lists see it: header and summary; `summary` is null when missing or stale (the host rebuilds it). */
export type SessionEntry = { id: string; header: SessionHeader; summary: StoredSummary | null }

/** One entry of a store's full listing: a session, or why the entry is not a session. */
export type SessionListing = SessionEntry | { id: string; problem: StoreError }

/** A page of sessions, newest first (createdAt descending, then id); `nextCursor` continues it. */
export type SessionPage = { entries: SessionEntry[]; nextCursor: string | null }

/** Which events a page holds: after a seq, before a seq, or (neither) the last ones. */
export type EventRange = { after?: number; before?: number; limit: number }

/** A page of durable events in seq order and how many durable events the session has. */
export type EventPage = { events: SessionEvent[]; eventCount: number }

/** A session with a reminder due, from the due index. */
export type DueEntry = { id: string; nextDueAt: number }

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
  /** Queues events (seqs continuing the log, in order) and the summary after them; throws `unavailable` once failed. */
  append(events: readonly SessionEvent[], summary?: StoredSummary): void
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

/**
 * What opening a session hands back while it reads: the header first, then each durable event in
 * seq order. `trusted` marks an event the store knows was validated before and has not changed
 * since (the visitor may skip re-validating it). A store that starts a read over calls `header`
 * again, and the visitor starts over.
 */
export interface OpenVisitor {
  header(header: SessionHeader): void
  event(event: SessionEvent, trusted?: boolean): void
  /** What validated the events (validators, their versions, tzdata); events are trusted only when validated under the same key. */
  readonly trustKey?: string
}

/**
 * The store seam (SPEC 14.1): everything the host knows of storage. Nothing above it knows whether
 * sessions live in files or in a database.
 */
export interface Store {
  /** Every session entry the store holds (headers and summaries, never logs); damaged entries are reported, not thrown. */
  listSessions(): Promise<SessionListing[]>
  /** One page of sessions, newest first, from headers and summaries only. Throws `corrupt` for a malformed cursor. */
  listPage(options: { limit: number; before?: string }): Promise<SessionPage>
  /** One session's header and summary; throws `not-found` or `corrupt`. */
  readEntry(id: string): Promise<SessionEntry>
  /** Records a summary the host rebuilt from the log (for an entry whose summary was missing or stale). */
  putSummary(id: string, summary: StoredSummary): Promise<void>
  /** A page of durable events of a session that is not open here, at a cost independent of the log's length. */
  readEvents(id: string, range: EventRange): Promise<EventPage>
  /** Reads a whole log through `visit` without opening it for writing (check, summary rebuilds). */
  scanSession(id: string, visit: OpenVisitor): Promise<void>
  /** Sessions whose next reminder is due before `time`, earliest first, at most `limit`. */
  dueSessions(time: number, limit: number): Promise<DueEntry[]>
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
  /** Present when several servers share the store (PostgreSQL): leases, fencing, notifications, forwarded commands. */
  readonly replication?: Replication
}

/** A command for the replica that holds a session (SPEC 14.3): a name the host knows and JSON arguments. */
export type ReplicaCommand = { name: string; args: unknown }

/**
 * How a command came to run on the replica that holds its session: `rerun` when an earlier owner
 * started it and died before answering (its change may be in the log already); `fromSeq` is the
 * session's durable event count when it was first started, so what that run wrote is at or after it.
 */
export type CommandRun = { rerun: boolean; fromSeq: number }

/** What a command answered: its JSON result, or the error it threw (name, code, message, details) to be thrown again. */
export type ReplicaAnswer = { ok: true; value: unknown } | { ok: false; error: { name: string; code?: string; message: string; details?: Record<string, unknown> } }

/**
 * How a store shared by several servers (replicas) lets exactly one of them run each session
 * (SPEC 14.3): a lease per session renewed automatically, appends fenced by it, notifications of
 * every durable append, and commands forwarded to whichever replica holds a session.
 */
export interface Replication {
  /** This replica's name in leases. */
  readonly owner: string
  /** How long a lease lasts unless renewed. */
  readonly leaseMs: number
  /** Takes (or keeps) a session's lease; false while another live replica holds it. */
  claim(id: string): Promise<boolean>
  /** True while this replica holds the session's lease. */
  holds(id: string): boolean
  /** Gives a lease up (the session was closed here), so another replica may take it at once. */
  release(id: string): Promise<void>
  /** Calls back when a lease is lost (not renewed in time, or taken over): the session must stop here without writing. */
  onLost(listener: (id: string) => void): void
  /**
   * Calls back when any replica made a session's events durable: its event count, whether a turn is open, and the seq
   * the append began at (null when unknown: a count read by the poll backstop, or told by a replica of an earlier version).
   * The count never goes back: an append heard of after a later count carries that later count and status, with its own start.
   */
  onAppended(listener: (id: string, eventCount: number, openTurn: boolean, firstSeq: number | null) => void): void
  /** Sessions this replica wants to hear of even when a notification is missed (a poll backstop reads their counts). */
  watch(id: string, watching: boolean): void
  /** Runs a command on whichever replica holds the session (this one, once it can claim a session nobody holds); resolves with its answer. */
  submit(id: string, command: ReplicaCommand): Promise<ReplicaAnswer>
  /** Runs the commands sent to sessions this replica holds. */
  onCommand(handler: (id: string, command: ReplicaCommand, run: CommandRun) => Promise<ReplicaAnswer>): void
  /** Sessions that need an owner (an open turn or queued messages) and have none: the lease lapsed or was never taken. */
  orphans(limit: number): Promise<string[]>
  /**
   * Shares with the other replicas' readers what an answer streams here (transient, never stored):
   * a piece of its text, or null once nothing streams (its message or the turn's end was written).
   */
  shareStreaming(id: string, piece: AssistantDelta | null): void
  /** Calls back with what an answer streams on another replica, in the order it streamed. */
  onStreaming(listener: (id: string, piece: AssistantDelta | null) => void): void
}

import type { InboxTarget, SessionEvent, SessionHeader, UserMessage } from '../protocol/index.ts'
import { errorMessage, SESSION_ID_PATTERN, sameTimeZone } from '../protocol/index.ts'
import { DueWatcher, MAX_DUE_WAIT_MS, retryWaitMs } from './due-watcher.ts'
import { DurableView } from './durable-view.ts'
import { HostError, ReplicaError } from './errors.ts'
import { hostFolds, inboxFold, keyedRpcId, loopFold, sentFold, type SentRecord } from './folds.ts'
import { randomId } from './ids.ts'
import type { Model } from './models/model.ts'
import { realTimers, systemClock, type Clock, type Plugin, type SessionFold, type SessionView, type Timers } from './plugin-api.ts'
import { HostPluginContext, installPlugin, PluginRegistry } from './registry.ts'
import { Session } from './session/session.ts'
import { SessionFeed } from './session-feed.ts'
import { FoldingVisitor, SessionLog } from './session-log.ts'
import type { EventPage, EventRange, FileLayer, ReplicaAnswer, Replication, SessionEntry, SessionWriter, Store, StoredSummary } from './store/index.ts'
import { JsonlStore, isStoreError, StoreError } from './store/index.ts'
import { summarize } from './summary.ts'

/** How a failed session's store is retried: capped exponential backoff (SPEC 2.6). */
export type RecoveryPolicy = { initialMs: number; maxMs: number }

/** SPEC 2.6: 100 ms doubling to 5 s. */
export const DEFAULT_RECOVERY: RecoveryPolicy = { initialMs: 100, maxMs: 5000 }

/** SPEC 11: sessions held open in memory at most. */
export const DEFAULT_MAX_OPEN_SESSIONS = 256

/** An open session nobody used for this long is closed (its memory and file handle released). */
export const DEFAULT_IDLE_CLOSE_MS = 10 * 60_000

/** How to build a host. */
export type HostOptions = {
  /** The store; default: the JSONL store in `dataDir`. */
  store?: Store
  dataDir?: string
  /** File system calls of the default JSONL store (tests inject failures). */
  files?: FileLayer
  model: Model
  plugins?: Plugin[]
  clock?: Clock
  systemPrompt?: string
  compactThresholdChars?: number
  recovery?: RecoveryPolicy
  /** Timers of the recovery backoff, idle closing and the due index (tests fire them by hand). */
  timers?: Timers
  /** Sessions held open at most (least recently used idle ones are closed first). */
  maxOpenSessions?: number
  idleCloseMs?: number
  log?: (line: string) => void
}

/** What a person sends: text, the browser zone (canonical) it was sent from, and the inbox mode. */
export type OutgoingMessage = {
  text: string
  clientTimeZone: string
  mode?: 'queue' | 'steer'
  /** The sender's key for this message (HTTP `Idempotency-Key`): sending it again enters it once. */
  idempotencyKey?: string
}

/** What a send answers: its rpcId and the id of the message in the inbox. */
export type SentMessage = { rpcId: string; messageId: string }

function targetOf(input: OutgoingMessage): InboxTarget {
  return input.mode === 'steer' ? 'next-step' : 'next-turn'
}

/** What readers are told of a session: header, title, durable event count, status. */
export type SessionDescription = {
  header: SessionHeader
  title: string | null
  eventCount: number
  status: 'idle' | 'running'
}

/** A command a route runs on a session (built in: send, compact, rename, cancel; others registered by the server). */
export type CommandHandler = (session: Session, args: unknown, context: CommandContext) => Promise<unknown>

/** A command that only reads: it also answers while the session's storage is unavailable, from the durable log. */
export type QueryHandler = (session: SessionView, args: unknown, context: CommandContext) => Promise<unknown>

/**
 * How a command came to run: `rerunFrom` when it runs again because the replica that first ran it
 * died before answering: the session's event count when that run started (what it wrote, if it
 * wrote anything, is at or after it); else null.
 */
export type CommandContext = { rerunFrom: number | null }

const LOCAL: CommandContext = { rerunFrom: null }

/** A page of session descriptions, newest first. */
export type DescriptionPage = { sessions: SessionDescription[]; nextCursor: string | null }

/** The default system prompt of the assistant. */
export const DEFAULT_SYSTEM_PROMPT =
  'You are the Schedule Web assistant. Time-context messages tell you the current time, the Session time zone and the time zone of the person writing; use them for anything time-related. Use the schedule tools to create, list and delete reminders. When a local time is ambiguous because zones disagree or are unknown, ask which time zone is meant.'

function zonesEqual(existing: string | undefined, requested: string | undefined): boolean {
  return existing === undefined ? requested === undefined : sameTimeZone(existing, requested)
}

function conflict(id: string, requested: string | undefined, existing: string | undefined): HostError {
  return new HostError('session-conflict', `session ${id} already exists with another time zone`, {
    sessionId: id,
    requestedTimeZone: requested ?? null,
    existingTimeZone: existing ?? null,
  })
}

function notFound(id: string): HostError {
  return new HostError('session-not-found', `session ${id} does not exist`, { sessionId: id })
}

/** With replicas, how often at most a replica looks for sessions whose owner died with work left (an eighth of the lease when shorter). */
const ORPHAN_SCAN_MS = 1000

function isNotFound(error: unknown): boolean {
  return (isStoreError(error) && error.code === 'not-found') || (error instanceof HostError && error.code === 'session-not-found')
}

/** The folds a host keeps: its own first, then its plugins'. */
function foldsIn(registry: PluginRegistry): SessionFold<unknown>[] {
  return [...(hostFolds as readonly SessionFold<unknown>[]), ...registry.folds.map((f) => f.value)]
}

type Slot =
  | { state: 'opening'; pending: Promise<Session> }
  | { state: 'open'; session: Session; inUse: number; lastUsed: number }
  | {
      state: 'unavailable'
      header: SessionHeader
      error: StoreError
      /** The failed writer, until its non-durable tail is repaired. */
      writer: SessionWriter | null
      /** The summary of the last view, for descriptions while unavailable. */
      summary: StoredSummary
      attempt: number
      retryAt: number
      timer: unknown
      /** The durable events read back for queries, once one asked. */
      view?: Promise<DurableView>
    }

/**
 * The agent host: sessions on a store, plugins, and one agent loop per open session. Sessions are
 * opened on demand and held in a bounded LRU (SPEC 12.1); lists, pages and the due index come from
 * the store's summaries, so nothing reads a whole log to answer them.
 */
export class Host {
  readonly registry = new PluginRegistry()
  readonly clock: Clock
  private readonly slots = new Map<string, Slot>()
  private readonly feeds = new Map<string, SessionFeed>()
  /** Summary rebuilds in flight, by session id. */
  private readonly rebuilding = new Map<string, Promise<StoredSummary>>()
  private readonly contexts: HostPluginContext[] = []
  private readonly logLine: (line: string) => void
  private readonly openListeners = new Set<(session: Session) => void>()
  private readonly eventListeners = new Set<(sessionId: string, events: readonly SessionEvent[]) => void>()
  private readonly changeListeners = new Set<(sessionId: string) => void>()
  private readonly recovery: RecoveryPolicy
  private readonly timers: Timers
  private readonly maxOpen: number
  private readonly idleCloseMs: number
  private readonly due: DueWatcher
  private sweepTimer: unknown = null
  private orphanTimer: unknown = null
  private shuttingDown = false
  /** Present when several servers share the store (SPEC 14.3). */
  private readonly replication: Replication | undefined
  private readonly commands = new Map<string, CommandHandler>()
  private readonly queries = new Map<string, QueryHandler>()
  /** Per session: the count of its events this replica's event listeners have been (or are being) told of (SPEC 14.3). */
  private readonly announced = new Map<string, number>()
  /** Per session: the announcement of another replica's append running, which the next one waits for (they go out in seq order). */
  private readonly announcing = new Map<string, Promise<void>>()
  /** Per session: the first event of another replica's that could not be read to be told of (told with its next append). */
  private readonly unannounced = new Map<string, number>()
  private starting: Promise<void> | null = null
  private startDone: () => void = () => undefined
  /** The next try of the start-up work after a failed one. */
  private startTimer: unknown = null

  private constructor(
    private readonly options: HostOptions,
    readonly store: Store,
  ) {
    this.clock = options.clock ?? systemClock
    this.logLine = options.log ?? ((line) => console.error(line))
    this.recovery = options.recovery ?? DEFAULT_RECOVERY
    this.timers = options.timers ?? realTimers
    this.maxOpen = Math.max(1, options.maxOpenSessions ?? DEFAULT_MAX_OPEN_SESSIONS)
    this.idleCloseMs = options.idleCloseMs ?? DEFAULT_IDLE_CLOSE_MS
    this.due = new DueWatcher({
      clock: this.clock,
      timers: this.timers,
      due: (limit) => store.dueSessions(Number.MAX_SAFE_INTEGER, limit),
      isOpen: (id) => this.slots.has(id),
      wake: (id) => this.wakeForDue(id),
      lookahead: this.maxOpen + 16,
      // with replicas, others add to the index, and an owner that died leaves its reminders to be delivered here:
      // looked at once a lease's length, so one is delivered within about a lease of its owner dying
      ...(store.replication ? { pollMs: store.replication.leaseMs } : {}),
    })
    this.registry.onFoldRemoved((fold) => {
      for (const slot of this.slots.values()) if (slot.state === 'open') slot.session.log.removeFold(fold)
    })
    this.replication = store.replication
    this.registerBuiltInCommands()
    if (this.replication) {
      const replication = this.replication
      replication.onLost((id) => this.lost(id, 'its lease was not renewed in time'))
      replication.onAppended((id, count, openTurn, firstSeq) => this.remoteAppended(id, count, openTurn, firstSeq))
      replication.onCommand((id, command, run) => this.answer(id, command.name, command.args, { rerunFrom: run.rerun ? run.fromSeq : null }))
      replication.onStreaming((id, piece) => {
        const slot = this.slots.get(id)
        if (slot?.state !== 'open' && slot?.state !== 'opening') this.feeds.get(id)?.remoteStreaming(piece)
      })
    }
  }

  /** Opens the store and installs the plugins in order; opens no session. */
  static async create(options: HostOptions): Promise<Host> {
    const log = options.log ?? ((line: string) => console.error(line))
    let store = options.store
    if (store === undefined) {
      if (options.dataDir === undefined) throw new Error('a host needs a store or a dataDir')
      store = await JsonlStore.open({ dataDir: options.dataDir, log, ...(options.files ? { files: options.files } : {}) })
    }
    const host = new Host(options, store)
    for (const plugin of options.plugins ?? []) await host.install(plugin)
    return host
  }

  /** Every fold a host with these plugins keeps (the host's own first), e.g. to check logs exactly as a host opens them. */
  static async foldsOf(plugins: readonly Plugin[]): Promise<SessionFold<unknown>[]> {
    const registry = new PluginRegistry()
    const contexts: HostPluginContext[] = []
    for (const plugin of plugins) contexts.push(await installPlugin(plugin, registry, systemClock, () => undefined))
    const folds = foldsIn(registry)
    for (const ctx of contexts) ctx.dispose()
    return folds
  }

  /** Installs one more plugin; returns its context (dispose it to uninstall). */
  async install(plugin: Plugin): Promise<HostPluginContext> {
    const ctx = await installPlugin(plugin, this.registry, this.clock, this.logLine)
    this.contexts.push(ctx)
    return ctx
  }

  /**
   * Starts the work that follows listening (SPEC 12.1): arms the idle sweep, the orphan scan and the
   * due index, then loads the store's summaries, reopens the sessions a restart left with queued
   * messages or an open turn and rebuilds missing summaries. When the store cannot be read (a database
   * that is down), that work is tried again after 1 s, then twice as long each time up to 30 s, until
   * it succeeds; the timed work runs meanwhile. Resolves once it is done (or the host closed); the
   * server answers meanwhile.
   */
  start(): Promise<void> {
    if (this.starting === null) {
      this.armSweep()
      this.armOrphanScan()
      this.due.refresh()
      this.starting = new Promise((resolve) => {
        this.startDone = resolve
        this.tryStart(0)
      })
    }
    return this.starting
  }

  private tryStart(failures: number): void {
    if (this.shuttingDown) return this.startDone()
    this.resumeListed().then(
      () => {
        // summaries rebuilt may have added entries to the due index
        this.due.refresh()
        this.startDone()
      },
      (error: unknown) => {
        if (this.shuttingDown) return this.startDone()
        const wait = retryWaitMs(failures, MAX_DUE_WAIT_MS)
        this.logLine(`startup work failed: ${errorMessage(error)}; tried again in ${wait / 1000} s`)
        this.startTimer = this.timers.set(() => {
          this.startTimer = null
          this.tryStart(failures + 1)
        }, wait)
      },
    )
  }

  private async resumeListed(): Promise<void> {
    const listing = await this.store.listSessions()
    const rebuild: string[] = []
    for (const entry of listing) {
      if ('problem' in entry) {
        this.logLine(`session ${entry.id} does not open: ${entry.problem.message}`)
        continue
      }
      if (entry.summary === null) rebuild.push(entry.id)
      else if (entry.summary.openTurn || entry.summary.pendingInbox > 0) await this.resume(entry.id)
    }
    for (const id of rebuild) {
      if (this.shuttingDown) return
      const summary = await this.rebuildSummary(id).catch((error: unknown) => {
        this.logLine(`session ${id} does not open: ${errorMessage(error)}`)
        return null
      })
      if (summary !== null && (summary.openTurn || summary.pendingInbox > 0)) await this.resume(id)
    }
  }

  /** With replicas: claims sessions whose owner died while they had work (SPEC 14.3 failover). */
  private armOrphanScan(): void {
    const replication = this.replication
    if (!replication || this.shuttingDown || this.orphanTimer !== null) return
    this.orphanTimer = this.timers.set(() => {
      this.orphanTimer = null
      void replication
        .orphans(32)
        .then(async (ids) => {
          for (const id of ids) if (!this.slots.has(id)) await this.resume(id)
        })
        .catch(() => undefined)
        .finally(() => this.armOrphanScan())
    }, Math.min(ORPHAN_SCAN_MS, Math.max(100, Math.floor(replication.leaseMs / 8))))
  }

  private async resume(id: string): Promise<void> {
    try {
      await this.openSession(id)
    } catch (error) {
      if (error instanceof HostError && error.code === 'session-elsewhere') return
      this.logLine(`session ${id} does not open: ${errorMessage(error)}`)
    }
  }

  /** Calls back whenever a session has been opened (created, loaded or reopened after a failure). */
  onSessionOpened(listener: (session: Session) => void): () => void {
    this.openListeners.add(listener)
    return () => this.openListeners.delete(listener)
  }

  /** Calls back with the events of any session as they become durable. */
  onEvents(listener: (sessionId: string, events: readonly SessionEvent[]) => void): () => void {
    this.eventListeners.add(listener)
    return () => this.eventListeners.delete(listener)
  }

  /** Calls back when a session's description may have changed (status, title, event count). */
  onSessionChanged(listener: (sessionId: string) => void): () => void {
    this.changeListeners.add(listener)
    return () => this.changeListeners.delete(listener)
  }

  private changed(id: string): void {
    for (const listener of this.changeListeners) listener(id)
  }

  private runtime() {
    return {
      registry: this.registry,
      model: this.options.model,
      clock: this.clock,
      systemPrompt: this.options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
      compactThresholdChars: this.options.compactThresholdChars ?? 400_000,
      log: this.logLine,
    }
  }

  private summaryOf(log: SessionLog): StoredSummary {
    return summarize(log, log.length, log.event(log.length - 1)?.time ?? null, this.registry)
  }

  private feedFor(header: SessionHeader, knownCount: number): SessionFeed {
    let feed = this.feeds.get(header.id)
    if (!feed) {
      const created: SessionFeed = new SessionFeed(header.id, header, this.store, knownCount, () => this.forgetFeed(created))
      feed = created
      this.feeds.set(header.id, feed)
    }
    return feed
  }

  /** Forgets a feed nobody uses any more (no listener, no log held here); with replicas, its session is no longer watched. */
  private forgetFeed(feed: SessionFeed): void {
    if (this.feeds.get(feed.id) !== feed || !feed.idle) return
    this.feeds.delete(feed.id)
    this.replication?.watch(feed.id, false)
  }

  private async load(id: string): Promise<Session> {
    const visitor = new FoldingVisitor(id, foldsIn(this.registry))
    let writer: SessionWriter
    try {
      if (this.replication && !(await this.replication.claim(id))) {
        throw new HostError('session-elsewhere', `session ${id} runs on another replica`, { sessionId: id })
      }
      writer = await this.store.openSession(id, visitor)
    } catch (error) {
      if (isNotFound(error)) throw notFound(id)
      throw error
    }
    const log = new SessionLog(visitor.headerRead, visitor, writer, this.clock, (folds, count, last) => summarize(folds, count, last, this.registry))
    const session = new Session(log, this.runtime())
    log.onFailure((error) => this.failed(session, error))
    this.feedFor(log.header, log.durableLength).attach(session)
    log.onDurable((events) => {
      // what this replica announced itself: once another replica appends, only what follows is new here
      if (this.replication) {
        this.announced.set(id, log.durableLength)
        this.unannounced.delete(id)
      }
      for (const listener of this.eventListeners) listener(id, events)
      this.changed(id)
    })
    session.onStatus(() => this.changed(id))
    if (this.replication) {
      // readers on other replicas get the text as it streams here too
      const replication = this.replication
      session.onDelta((delta) => replication.shareStreaming(id, delta))
      session.onStreamingEnd(() => replication.shareStreaming(id, null))
    }
    log.onWritten((appended) => {
      for (const hook of this.registry.appendHooks.slice()) {
        if (hook.owner.disposed) continue
        for (const event of appended) {
          try {
            hook.value(session, event)
          } catch (error) {
            this.logLine(`session ${id}: append hook failed: ${errorMessage(error)}`)
          }
        }
      }
    })
    log.publishSummary()
    await session.recover()
    for (const hook of this.registry.openHooks.slice()) {
      if (hook.owner.disposed) continue
      hook.value(session)
    }
    for (const listener of this.openListeners) listener(session)
    session.start()
    return session
  }

  private opening(id: string, pending: Promise<Session>): Promise<Session> {
    this.slots.set(id, { state: 'opening', pending })
    pending.then(
      (session) => {
        const slot = this.slots.get(id)
        if (slot?.state === 'opening' && slot.pending === pending && !session.closed) {
          this.slots.set(id, { state: 'open', session, inUse: 0, lastUsed: this.clock.now() })
          this.evict()
        }
      },
      () => {
        const slot = this.slots.get(id)
        if (slot?.state === 'opening' && slot.pending === pending) this.slots.delete(id)
      },
    )
    return pending
  }

  private closeHooks(session: Session): void {
    for (const hook of this.registry.closeHooks.slice()) {
      if (hook.owner.disposed) continue
      try {
        hook.value(session)
      } catch (error) {
        this.logLine(`session ${session.id}: close hook failed: ${errorMessage(error)}`)
      }
    }
  }

  /** A session whose store failed stops; it is reopened from its durable events once the store works again. */
  private failed(session: Session, error: StoreError): void {
    const slot = this.slots.get(session.id)
    if (slot === undefined || slot.state === 'unavailable' || this.shuttingDown) return
    if (slot.state === 'open' && slot.session !== session) return
    if (error.details?.fenced === true && this.replication) {
      this.lost(session.id, 'another replica holds it now')
      return
    }
    const summary = this.summaryOf(session.log)
    this.feeds.get(session.id)?.detachSession(true)
    this.closeHooks(session)
    this.logLine(`session ${session.id}: storage unavailable, writes are refused until it recovers: ${error.message}`)
    this.scheduleRecovery(session.header, error, session.log.store, { ...summary, eventCount: session.log.durableLength }, 0)
    this.changed(session.id)
  }

  private scheduleRecovery(header: SessionHeader, error: StoreError, writer: SessionWriter | null, summary: StoredSummary, attempt: number): void {
    const delay = Math.min(this.recovery.maxMs, this.recovery.initialMs * 2 ** attempt)
    const timer = this.timers.set(() => void this.recover(header.id), delay)
    const previous = this.slots.get(header.id)
    const view = previous?.state === 'unavailable' ? previous.view : undefined
    this.slots.set(header.id, { state: 'unavailable', header, error, writer, summary, attempt, retryAt: this.clock.now() + delay, timer, view })
  }

  private async recover(id: string): Promise<void> {
    const slot = this.slots.get(id)
    if (slot?.state !== 'unavailable' || this.shuttingDown) return
    try {
      await this.store.probe()
      if (slot.writer !== null) {
        await slot.writer.repair()
        slot.writer = null
      }
    } catch (error) {
      const failure = isStoreError(error) ? error : new StoreError('unavailable', errorMessage(error))
      this.scheduleRecovery(slot.header, failure, slot.writer, slot.summary, slot.attempt + 1)
      return
    }
    try {
      await this.opening(id, this.load(id))
      // the session may have failed again while it opened (then it is unavailable once more)
      if (this.slots.get(id)?.state !== 'unavailable') this.logLine(`session ${id}: storage available again`)
    } catch (error) {
      // opening() forgot the slot unless the session failed again while it opened
      if (this.slots.has(id)) return
      if (isStoreError(error) && error.code === 'unavailable') {
        this.scheduleRecovery(slot.header, error, null, slot.summary, slot.attempt + 1)
      } else if (error instanceof HostError && error.code === 'session-elsewhere') {
        this.feeds.get(id)?.detachSession(false)
        this.logLine(`session ${id}: storage available again; another replica runs it now`)
      } else {
        this.feeds.get(id)?.detachSession(false)
        this.logLine(`session ${id}: cannot be reopened after the storage failure: ${errorMessage(error)}`)
      }
    }
  }

  /** What a session's durable log holds, for queries while its storage is unavailable: read when a query first asks, kept while the store is probed, read again after a failed reopen. */
  private durableView(id: string, slot: Extract<Slot, { state: 'unavailable' }>): Promise<DurableView> {
    const refusal = (): StoreError => {
      const current = this.slots.get(id)
      return current?.state === 'unavailable' ? this.unavailable(id, current) : new StoreError('unavailable', `storage for session ${id} is unavailable; retry later`)
    }
    if (slot.view === undefined) {
      const view = DurableView.read(this.store, id, foldsIn(this.registry), slot.summary.eventCount, refusal)
      slot.view = view
      view.catch(() => {
        const current = this.slots.get(id)
        if (current?.state === 'unavailable' && current.view === view) current.view = undefined
      })
    }
    return slot.view
  }

  private unavailable(id: string, slot: Extract<Slot, { state: 'unavailable' }>): StoreError {
    const retryAfterMs = Math.max(0, slot.retryAt - this.clock.now())
    return new StoreError('unavailable', `storage for session ${id} is unavailable; retry later`, { retryAfterMs })
  }

  /** Closes least recently used idle sessions beyond the bound. */
  private evict(): void {
    let open = this.openCount
    if (open <= this.maxOpen) return
    const candidates = [...this.slots].filter(
      (entry): entry is [string, Extract<Slot, { state: 'open' }>] => entry[1].state === 'open' && this.closable(entry[1].session, entry[1].inUse),
    )
    candidates.sort((a, b) => a[1].lastUsed - b[1].lastUsed)
    for (const [id] of candidates) {
      if (open <= this.maxOpen) break
      void this.closeSession(id)
      open--
    }
  }

  private closable(session: Session, inUse: number): boolean {
    if (inUse > 0 || session.running || session.closed) return false
    return session.fold(inboxFold).size === 0 && session.fold(loopFold).openTurn === null
  }

  private armSweep(): void {
    if (this.shuttingDown || this.sweepTimer !== null || this.idleCloseMs <= 0) return
    this.sweepTimer = this.timers.set(() => {
      this.sweepTimer = null
      const now = this.clock.now()
      for (const [id, slot] of [...this.slots]) {
        if (slot.state === 'open' && now - slot.lastUsed >= this.idleCloseMs && this.closable(slot.session, slot.inUse)) void this.closeSession(id)
      }
      this.armSweep()
    }, Math.min(60_000, this.idleCloseMs))
  }

  /** Closes an open session (its loop is idle): memory and file handle are released; it reopens on demand. */
  private async closeSession(id: string): Promise<void> {
    const slot = this.slots.get(id)
    if (slot?.state !== 'open') return
    this.slots.delete(id)
    const feed = this.feeds.get(id)
    if (feed) {
      feed.detachSession(false)
      this.forgetFeed(feed)
    }
    this.closeHooks(slot.session)
    await slot.session.close()
    await this.replication?.release(id)
    this.due.refresh()
  }

  /** A session whose lease this replica lost stops here at once, writing nothing; it runs where it is held now. */
  private lost(id: string, why: string): void {
    const slot = this.slots.get(id)
    if (slot?.state !== 'open') return
    this.slots.delete(id)
    this.feeds.get(id)?.detachSession(false)
    this.closeHooks(slot.session)
    slot.session.abandon()
    this.logLine(`session ${id}: stopped on this replica: ${why}`)
    this.changed(id)
  }

  /** Another replica made a session's events durable: readers here follow (stream, notices) from the store. */
  private remoteAppended(id: string, count: number, openTurn: boolean, firstSeq: number | null): void {
    const slot = this.slots.get(id)
    if (slot?.state === 'open' || slot?.state === 'opening') return
    this.feeds.get(id)?.remote(count, openTurn)
    this.changed(id)
    // the events not told of yet: after the last told, else (a session never followed here) from where the append began
    const start = this.announced.get(id) ?? firstSeq
    if (start === null || count <= start) return
    this.announced.set(id, count)
    if (this.eventListeners.size === 0) return
    const next = (this.announcing.get(id) ?? Promise.resolve()).then(() => this.announceRemote(id, start, count))
    this.announcing.set(id, next)
    void next.finally(() => {
      if (this.announcing.get(id) === next) this.announcing.delete(id)
    })
  }

  /**
   * Tells the event listeners (the notices of `GET /api/stream`) of another replica's events `start` .. `count - 1`,
   * after the ones told before them; events that could not be read are told with the session's next append.
   */
  private async announceRemote(id: string, start: number, count: number): Promise<void> {
    let after = Math.min(start, this.unannounced.get(id) ?? start) - 1
    this.unannounced.delete(id)
    while (after < count - 1) {
      const page = await this.store.readEvents(id, { after, limit: Math.min(500, count - 1 - after) }).catch(() => null)
      const events = page?.events.filter((event) => event.seq < count) ?? []
      if (events.length === 0) {
        this.unannounced.set(id, after + 1)
        return
      }
      for (const listener of this.eventListeners) listener(id, events)
      after = events[events.length - 1].seq
    }
  }

  /** Opens a session (once; later calls share it). Throws `session-not-found`, a corrupt or an unavailable StoreError. */
  openSession(id: string): Promise<Session> {
    if (!SESSION_ID_PATTERN.test(id)) return Promise.reject(notFound(id))
    const slot = this.slots.get(id)
    if (slot?.state === 'open') {
      slot.lastUsed = this.clock.now()
      this.slots.delete(id)
      this.slots.set(id, slot)
      return Promise.resolve(slot.session)
    }
    if (slot?.state === 'opening') return slot.pending
    if (slot?.state === 'unavailable') return Promise.reject(this.unavailable(id, slot))
    return this.opening(id, this.load(id))
  }

  /** Runs a task with the session open and kept open (not evicted) until it settles. */
  async withSession<T>(id: string, task: (session: Session) => Promise<T> | T): Promise<T> {
    const session = await this.openSession(id)
    const slot = this.slots.get(id)
    const held = slot?.state === 'open' && slot.session === session ? slot : null
    if (held) held.inUse++
    try {
      return await task(session)
    } finally {
      if (held) {
        held.inUse--
        held.lastUsed = this.clock.now()
      }
    }
  }

  /** A session's summary from one validating scan of its log; requests at once share the scan (a page and a stream on opening a Session). */
  private rebuildSummary(id: string): Promise<StoredSummary> {
    const running = this.rebuilding.get(id)
    if (running) return running
    const scan = (async () => {
      const visitor = new FoldingVisitor(id, foldsIn(this.registry), false)
      await this.store.scanSession(id, visitor)
      const summary = summarize(visitor, visitor.count, visitor.lastTime, this.registry)
      if (!this.slots.has(id)) await this.store.putSummary(id, summary)
      return summary
    })().finally(() => this.rebuilding.delete(id))
    this.rebuilding.set(id, scan)
    return scan
  }

  /** The store's entry of a session; a missing one is the host's session-not-found. */
  private async readEntry(id: string): Promise<SessionEntry> {
    try {
      return await this.store.readEntry(id)
    } catch (error) {
      if (isNotFound(error)) throw notFound(id)
      throw error
    }
  }

  private async entryOf(id: string): Promise<{ header: SessionHeader; summary: StoredSummary }> {
    const entry = await this.readEntry(id)
    return { header: entry.header, summary: entry.summary ?? (await this.rebuildSummary(id)) }
  }

  private describeOpen(id: string): SessionDescription | null {
    const slot = this.slots.get(id)
    if (slot?.state === 'open') {
      const log = slot.session.log
      const summary = this.summaryOf(log)
      return { header: log.header, title: summary.title, eventCount: log.durableLength, status: slot.session.status }
    }
    if (slot?.state === 'unavailable') return { header: slot.header, title: slot.summary.title, eventCount: slot.summary.eventCount, status: 'idle' }
    return null
  }

  /** What readers are told of a session (durable counts only); never opens its log. */
  async describe(id: string): Promise<SessionDescription> {
    if (!SESSION_ID_PATTERN.test(id)) throw notFound(id)
    const slot = this.slots.get(id)
    if (slot?.state === 'opening') await slot.pending
    const live = this.describeOpen(id)
    if (live) return live
    const { header, summary } = await this.entryOf(id)
    return { header, title: summary.title, eventCount: summary.eventCount, status: this.remoteStatus(summary) }
  }

  /** A session not open here is running while its log ends inside a turn on another replica. */
  private remoteStatus(summary: StoredSummary): 'idle' | 'running' {
    return this.replication && summary.openTurn ? 'running' : 'idle'
  }

  /** One page of sessions, newest first, from the store's summaries (SPEC 8); never opens a log. */
  async listSessions(options: { limit: number; before?: string }): Promise<DescriptionPage> {
    const page = await this.store.listPage(options)
    const sessions: SessionDescription[] = []
    for (const entry of page.entries) {
      const live = this.describeOpen(entry.id)
      if (live) {
        sessions.push(live)
        continue
      }
      let summary = entry.summary
      if (summary === null) {
        try {
          summary = await this.rebuildSummary(entry.id)
        } catch (error) {
          this.logLine(`session ${entry.id} does not open: ${errorMessage(error)}`)
          continue
        }
      }
      sessions.push({ header: entry.header, title: summary.title, eventCount: summary.eventCount, status: this.remoteStatus(summary) })
    }
    return { sessions, nextCursor: page.nextCursor }
  }

  /**
   * The readers' view of a session, which stays valid while the session is closed or recovers; never opens its log
   * (a missing summary is rebuilt by a scan of it, which a corrupt log fails).
   */
  async feed(id: string): Promise<SessionFeed> {
    if (!SESSION_ID_PATTERN.test(id)) throw notFound(id)
    const known = this.feeds.get(id)
    if (known) return known
    const slot = this.slots.get(id)
    if (slot?.state === 'opening') await slot.pending.catch(() => undefined)
    const again = this.feeds.get(id)
    if (again) return again
    // a missing summary (start-up rebuilds every one it can) is rebuilt from the whole log, so a log that does not
    // validate answers session-corrupt here too: on the code before, the last page alone was read, and pages and the
    // stream of a session corrupt in its middle answered 200 (SPEC 2.5: 409 on every route that touches it)
    const { header, summary } = await this.entryOf(id)
    const count = summary.eventCount
    const feed = this.feeds.get(id) ?? this.feedFor(header, count)
    if (this.replication && !this.slots.has(id)) {
      feed.remote(count, summary.openTurn)
      this.replication.watch(id, true)
    }
    return feed
  }

  /** A page of a session's durable events (SPEC 8), from memory or the store; never opens its log. */
  async readEvents(id: string, range: EventRange): Promise<{ header: SessionHeader; page: EventPage }> {
    const feed = await this.feed(id)
    const page = await feed.page(range)
    this.forgetFeed(feed)
    return { header: feed.header, page }
  }

  /** Creates a session with an optional canonical zone; an existing id with an equal zone is returned as is. */
  async createSession(input: { id?: string; timeZone?: string }): Promise<{ session: Session; created: boolean }> {
    const id = input.id ?? randomId()
    if (!SESSION_ID_PATTERN.test(id)) throw notFound(id)
    const slot = this.slots.get(id)
    if (slot?.state === 'unavailable') throw this.unavailable(id, slot)
    if (slot === undefined) {
      // a cold session with another zone is refused from its header alone: never resumed, nothing written
      const onDisk = await this.store.readHeader(id).catch((error: unknown) => {
        if (isNotFound(error)) return null
        throw error
      })
      if (onDisk !== null && !zonesEqual(onDisk.timeZone, input.timeZone)) throw conflict(id, input.timeZone, onDisk.timeZone)
    }
    let created = false
    const current = this.slots.get(id)
    let pending: Promise<Session>
    if (current?.state === 'open') pending = Promise.resolve(current.session)
    else if (current?.state === 'opening') pending = current.pending
    else if (current?.state === 'unavailable') throw this.unavailable(id, current)
    else {
      const header: SessionHeader = {
        type: 'session',
        version: 1,
        id,
        createdAt: this.clock.now(),
        ...(input.timeZone === undefined ? {} : { timeZone: input.timeZone }),
      }
      pending = this.opening(
        id,
        this.store.createSession(header).then((result) => {
          if (result.created) created = true
          return this.load(id)
        }),
      )
    }
    const session = await pending
    if (created) {
      this.changed(id)
      return { session, created: true }
    }
    if (!zonesEqual(session.header.timeZone, input.timeZone)) throw conflict(id, input.timeZone, session.header.timeZone)
    return { session, created: false }
  }

  /** Registers a command routes can run on a session wherever it is held (SPEC 14.3); built in: send, compact, rename, cancel. */
  registerCommand(name: string, handler: CommandHandler): void {
    this.commands.set(name, handler)
  }

  /** Registers a command that only reads: while the session's storage is unavailable it answers from the durable log (SPEC 2.6). */
  registerQuery(name: string, handler: QueryHandler): void {
    this.queries.set(name, handler)
  }

  /** Runs a command or query on a session held (or opened) here. */
  private async run(sessionId: string, name: string, args: unknown, context: CommandContext): Promise<unknown> {
    const query = this.queries.get(name)
    if (query !== undefined) {
      const slot = this.slots.get(sessionId)
      if (slot?.state === 'unavailable') return query(await this.durableView(sessionId, slot), args, context)
      return this.withSession(sessionId, (session) => query(session, args, context))
    }
    const handler = this.commands.get(name)
    if (handler === undefined) throw new Error(`unknown command ${name}`)
    return this.withSession(sessionId, (session) => handler(session, args, context))
  }

  private registerBuiltInCommands(): void {
    this.registerCommand('send', async (session, args) => {
      const { input, rpcId, messageId } = args as { input: OutgoingMessage; rpcId: string; messageId: string }
      // sent again (under the same key, or run again after its first replica died): the message entered already
      const earlier = session.fold(sentFold).get(rpcId)
      if (earlier !== undefined) return this.sentAlready(session, input, rpcId, earlier)
      const message: UserMessage = { id: messageId, role: 'user', content: [{ type: 'text', text: input.text }], source: { kind: 'user', rpcId, clientTimeZone: input.clientTimeZone } }
      await session.enqueue(message, targetOf(input))
      return { rpcId, messageId }
    })
    this.registerCommand('compact', async (session) => ({ messageId: await session.compact() }))
    this.registerCommand('rename', async (session, args) => {
      await session.rename((args as { title: string }).title)
      return null
    })
    this.registerCommand('cancel', async (session) => {
      session.cancel()
      return null
    })
  }

  /**
   * Runs a command on a session: here when this replica holds it (opening it, and so claiming it,
   * when nobody does), else on the replica that holds it, whose answer comes back (SPEC 14.3).
   */
  async command(sessionId: string, name: string, args: unknown): Promise<unknown> {
    if (!this.commands.has(name) && !this.queries.has(name)) throw new Error(`unknown command ${name}`)
    try {
      return await this.run(sessionId, name, args, LOCAL)
    } catch (error) {
      if (!(error instanceof HostError && error.code === 'session-elsewhere') || !this.replication) throw error
    }
    const answer = await this.replication.submit(sessionId, { name, args })
    if (answer.ok) return answer.value
    const { name: errorName, code, message, details } = answer.error
    if (errorName === 'HostError') throw new HostError(code as HostError['code'], message, details)
    if (errorName === 'StoreError') throw new StoreError(code as StoreError['code'], message, details)
    throw new ReplicaError(errorName, code, message, details)
  }

  /** Runs a command another replica sent to a session held here, and packs its answer for the way back. */
  private async answer(sessionId: string, name: string, args: unknown, context: CommandContext): Promise<ReplicaAnswer> {
    if (!this.commands.has(name) && !this.queries.has(name)) return { ok: false, error: { name: 'Error', message: `unknown command ${name}` } }
    try {
      return { ok: true, value: await this.run(sessionId, name, args, context) }
    } catch (error) {
      const e = error as { name?: unknown; code?: unknown; details?: unknown }
      return {
        ok: false,
        error: {
          name: typeof e.name === 'string' ? e.name : 'Error',
          message: errorMessage(error),
          ...(typeof e.code === 'string' ? { code: e.code } : {}),
          ...(typeof e.details === 'object' && e.details !== null ? { details: e.details as Record<string, unknown> } : {}),
        },
      }
    }
  }

  /**
   * Builds a person's message and makes it durable in the session's inbox (SPEC 3.1, 4.3), on whichever replica holds the
   * session. With an idempotency key, a repeat of the same message answers what the first one did and enters nothing;
   * the same key with a different message is refused.
   */
  async send(sessionId: string, input: OutgoingMessage): Promise<SentMessage> {
    const rpcId = input.idempotencyKey === undefined ? randomId('rpc-') : keyedRpcId(input.idempotencyKey)
    return (await this.command(sessionId, 'send', { input, rpcId, messageId: randomId('msg-') })) as SentMessage
  }

  /**
   * The answer to a send whose rpcId the session knows (its fold of sent messages, so across restarts and replicas):
   * the first answer once that message is durable (it may still be being written; a failed write fails this too), or a
   * refusal when the same key came with a different message.
   */
  private async sentAlready(session: Session, input: OutgoingMessage, rpcId: string, earlier: SentRecord): Promise<SentMessage> {
    if (earlier.text !== input.text || earlier.target !== targetOf(input) || earlier.clientTimeZone !== input.clientTimeZone) {
      throw new HostError('idempotency-key-reused', `Idempotency-Key ${JSON.stringify(input.idempotencyKey)} was already used for a different message`, {
        messageId: earlier.messageId,
      })
    }
    await session.whenDurable()
    return { rpcId, messageId: earlier.messageId }
  }

  /** Compacts a session's surface once it is idle (SPEC 2.4); resolves once the compaction is durable. */
  async compact(sessionId: string): Promise<{ messageId: string | null }> {
    return (await this.command(sessionId, 'compact', null)) as { messageId: string | null }
  }

  /** Renames a session (SPEC 2.2 `session/title`); resolves once the rename is durable. */
  async rename(sessionId: string, title: string): Promise<void> {
    await this.command(sessionId, 'rename', { title })
  }

  /** Cancels the running turn of a session, wherever it runs. */
  async cancel(sessionId: string): Promise<void> {
    const slot = this.slots.get(sessionId)
    if (slot?.state === 'open') {
      slot.session.cancel()
      return
    }
    const summary = (await this.entryOf(sessionId)).summary
    if (this.replication && summary.openTurn) await this.command(sessionId, 'cancel', null)
  }

  private async wakeForDue(id: string): Promise<void> {
    try {
      await this.openSession(id)
    } catch (error) {
      this.logLine(`session ${id}: a due reminder cannot be delivered: ${errorMessage(error)}`)
    }
  }

  /** Number of sessions open in memory right now. */
  get openCount(): number {
    let n = 0
    for (const slot of this.slots.values()) if (slot.state !== 'unavailable') n++
    return n
  }

  /** Disposes every plugin and closes every open session. */
  async close(): Promise<void> {
    this.shuttingDown = true
    this.due.stop()
    if (this.sweepTimer !== null) this.timers.clear(this.sweepTimer)
    if (this.orphanTimer !== null) this.timers.clear(this.orphanTimer)
    if (this.startTimer !== null) this.timers.clear(this.startTimer)
    this.startDone()
    for (const ctx of this.contexts) ctx.dispose()
    const sessions: Session[] = []
    for (const slot of this.slots.values()) {
      if (slot.state === 'unavailable') this.timers.clear(slot.timer)
      else if (slot.state === 'open') sessions.push(slot.session)
      else {
        const opened = await slot.pending.catch(() => null)
        if (opened) sessions.push(opened)
      }
    }
    for (const session of sessions) await session.close()
    this.slots.clear()
    await this.store.close()
  }
}

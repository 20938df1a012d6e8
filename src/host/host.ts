import type { SessionHeader, UserMessage } from '../protocol/index.ts'
import { errorMessage, SESSION_ID_PATTERN, sameTimeZone } from '../protocol/index.ts'
import { HostError } from './errors.ts'
import { hostFolds, titleFold } from './folds.ts'
import { randomId } from './ids.ts'
import type { Model } from './models/model.ts'
import { realTimers, systemClock, type Clock, type Plugin, type SessionFold, type Timers } from './plugin-api.ts'
import { HostPluginContext, installPlugin, PluginRegistry } from './registry.ts'
import { Session } from './session/session.ts'
import { SessionFeed } from './session-feed.ts'
import { FoldingVisitor, SessionLog } from './session-log.ts'
import type { FileLayer, SessionWriter, Store } from './store/index.ts'
import { JsonlStore, isStoreError, StoreError } from './store/index.ts'

/** How a failed session's store is retried: capped exponential backoff (SPEC 2.6). */
export type RecoveryPolicy = { initialMs: number; maxMs: number }

/** SPEC 2.6: 100 ms doubling to 5 s. */
export const DEFAULT_RECOVERY: RecoveryPolicy = { initialMs: 100, maxMs: 5000 }

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
  /** Timers of the recovery backoff (tests fire them by hand). */
  timers?: Timers
  log?: (line: string) => void
}

/** What a person sends: text, the browser zone (canonical) when sent from one, and the inbox mode. */
export type OutgoingMessage = { text: string; clientTimeZone?: string; mode?: 'queue' | 'steer' }

/** What readers are told of a session: header, title, durable event count, status. */
export type SessionDescription = {
  header: SessionHeader
  title: string | null
  eventCount: number
  status: 'idle' | 'running'
}

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

type Slot =
  | { state: 'opening'; pending: Promise<Session> }
  | { state: 'open'; session: Session }
  | {
      state: 'unavailable'
      error: StoreError
      /** The failed writer, until its non-durable tail is repaired. */
      writer: SessionWriter | null
      /** The last view's title, for descriptions while unavailable. */
      title: string | null
      attempt: number
      retryAt: number
      timer: unknown
    }

/** The agent host: sessions on a store, plugins, and one agent loop per open session. */
export class Host {
  readonly registry = new PluginRegistry()
  readonly clock: Clock
  private readonly slots = new Map<string, Slot>()
  private readonly feeds = new Map<string, SessionFeed>()
  private readonly contexts: HostPluginContext[] = []
  private readonly logLine: (line: string) => void
  private readonly openListeners = new Set<(session: Session) => void>()
  private readonly recovery: RecoveryPolicy
  private readonly timers: Timers
  private shuttingDown = false

  private constructor(
    private readonly options: HostOptions,
    readonly store: Store,
  ) {
    this.clock = options.clock ?? systemClock
    this.logLine = options.log ?? ((line) => console.error(line))
    this.recovery = options.recovery ?? DEFAULT_RECOVERY
    this.timers = options.timers ?? realTimers
    this.registry.onFoldRemoved((fold) => {
      for (const slot of this.slots.values()) if (slot.state === 'open') slot.session.log.removeFold(fold)
    })
  }

  /** Opens the store and installs the plugins in order. */
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
    const folds = [...(hostFolds as readonly SessionFold<unknown>[]), ...registry.folds.map((f) => f.value)]
    for (const ctx of contexts) ctx.dispose()
    return folds
  }

  /** Installs one more plugin; returns its context (dispose it to uninstall). */
  async install(plugin: Plugin): Promise<HostPluginContext> {
    const ctx = await installPlugin(plugin, this.registry, this.clock, this.logLine)
    this.contexts.push(ctx)
    return ctx
  }

  /** Calls back whenever a session has been opened (created, loaded or reopened after a failure). */
  onSessionOpened(listener: (session: Session) => void): () => void {
    this.openListeners.add(listener)
    return () => this.openListeners.delete(listener)
  }

  private folds(): SessionFold<unknown>[] {
    return [...(hostFolds as readonly SessionFold<unknown>[]), ...this.registry.folds.map((f) => f.value)]
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

  private feedOf(id: string): SessionFeed {
    let feed = this.feeds.get(id)
    if (!feed) {
      feed = new SessionFeed(id)
      this.feeds.set(id, feed)
    }
    return feed
  }

  private async load(id: string): Promise<Session> {
    const visitor = new FoldingVisitor(id, this.folds())
    let writer: SessionWriter
    try {
      writer = await this.store.openSession(id, visitor)
    } catch (error) {
      if (isStoreError(error) && error.code === 'not-found') throw notFound(id)
      throw error
    }
    const log = new SessionLog(visitor.headerRead, visitor, writer, this.clock)
    const session = new Session(log, this.runtime())
    log.onFailure((error) => this.failed(session, error))
    this.feedOf(id).attach(session)
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
        if (slot?.state === 'opening' && slot.pending === pending && !session.closed) this.slots.set(id, { state: 'open', session })
      },
      () => {
        const slot = this.slots.get(id)
        if (slot?.state === 'opening' && slot.pending === pending) this.slots.delete(id)
      },
    )
    return pending
  }

  /** A session whose store failed stops; it is reopened from its durable events once the store works again. */
  private failed(session: Session, error: StoreError): void {
    const slot = this.slots.get(session.id)
    if (slot?.state === 'unavailable' || this.shuttingDown) return
    const title = session.fold(titleFold).title
    this.feedOf(session.id).suspend()
    this.logLine(`session ${session.id}: storage unavailable, writes are refused until it recovers: ${error.message}`)
    this.scheduleRecovery(session.id, error, session.log.store, title, 0)
  }

  private scheduleRecovery(id: string, error: StoreError, writer: SessionWriter | null, title: string | null, attempt: number): void {
    const delay = Math.min(this.recovery.maxMs, this.recovery.initialMs * 2 ** attempt)
    const timer = this.timers.set(() => void this.recover(id), delay)
    this.slots.set(id, { state: 'unavailable', error, writer, title, attempt, retryAt: this.clock.now() + delay, timer })
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
      this.scheduleRecovery(id, failure, slot.writer, slot.title, slot.attempt + 1)
      return
    }
    const pending = this.load(id)
    this.slots.set(id, { state: 'opening', pending })
    try {
      const session = await pending
      if (this.slots.get(id)?.state !== 'opening') return
      this.slots.set(id, { state: 'open', session })
      this.logLine(`session ${id}: storage available again`)
    } catch (error) {
      if (this.slots.get(id)?.state !== 'opening') return
      if (isStoreError(error) && error.code === 'unavailable') {
        this.scheduleRecovery(id, error, null, slot.title, slot.attempt + 1)
      } else {
        this.slots.delete(id)
        this.logLine(`session ${id}: cannot be reopened after the storage failure: ${errorMessage(error)}`)
      }
    }
  }

  private unavailable(id: string, slot: Extract<Slot, { state: 'unavailable' }>): StoreError {
    const retryAfterMs = Math.max(0, slot.retryAt - this.clock.now())
    return new StoreError('unavailable', `storage for session ${id} is unavailable; retry later`, { retryAfterMs })
  }

  /** Opens a session (once; later calls share it). Throws `session-not-found`, a corrupt or an unavailable StoreError. */
  openSession(id: string): Promise<Session> {
    if (!SESSION_ID_PATTERN.test(id)) return Promise.reject(notFound(id))
    const slot = this.slots.get(id)
    if (slot?.state === 'open') return Promise.resolve(slot.session)
    if (slot?.state === 'opening') return slot.pending
    if (slot?.state === 'unavailable') return Promise.reject(this.unavailable(id, slot))
    return this.opening(id, this.load(id))
  }

  /** The readers' view of a session (opened on demand), which stays valid while the session recovers. */
  async feed(id: string): Promise<SessionFeed> {
    const slot = this.slots.get(id)
    if (slot?.state !== 'unavailable') await this.openSession(id)
    const feed = this.feeds.get(id)
    if (!feed || feed.header === null) throw notFound(id)
    return feed
  }

  /** What readers are told of a session (durable counts only). */
  async describe(id: string): Promise<SessionDescription> {
    const slot = this.slots.get(id)
    const feed = await this.feed(id)
    const header = feed.header as SessionHeader
    const title = slot?.state === 'unavailable' ? slot.title : (await this.openSession(id)).fold(titleFold).title
    return { header, title, eventCount: feed.length, status: feed.status }
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
        if (isStoreError(error) && error.code === 'not-found') return null
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
    if (created) return { session, created: true }
    if (!zonesEqual(session.header.timeZone, input.timeZone)) throw conflict(id, input.timeZone, session.header.timeZone)
    return { session, created: false }
  }

  /** Ids of every session the store lists with a readable header. */
  async sessionIds(): Promise<string[]> {
    return (await this.store.listSessions()).filter((entry) => 'header' in entry).map((entry) => entry.id)
  }

  /** Opens every session that opens; logs and skips the ones that refuse to (never blocks on a special file). */
  async openAll(): Promise<Session[]> {
    const out: Session[] = []
    for (const entry of await this.store.listSessions()) {
      if ('problem' in entry) {
        this.logLine(`session ${entry.id} does not open: ${entry.problem.message}`)
        continue
      }
      try {
        out.push(await this.openSession(entry.id))
      } catch (error) {
        this.logLine(`session ${entry.id} does not open: ${errorMessage(error)}`)
      }
    }
    return out
  }

  /** Builds a person's message and makes it durable in the session's inbox (SPEC 3.1, 4.3). */
  async send(sessionId: string, input: OutgoingMessage): Promise<{ rpcId: string; messageId: string }> {
    const session = await this.openSession(sessionId)
    const rpcId = randomId('rpc-')
    const message: UserMessage = {
      id: randomId('msg-'),
      role: 'user',
      content: [{ type: 'text', text: input.text }],
      source:
        input.clientTimeZone === undefined
          ? { kind: 'user' }
          : { kind: 'user', rpcId, clientTimeZone: input.clientTimeZone },
    }
    await session.enqueue(message, input.mode === 'steer' ? 'next-step' : 'next-turn')
    return { rpcId, messageId: message.id }
  }

  /** Compacts a session's surface once it is idle (SPEC 2.4); resolves once the compaction is durable. */
  async compact(sessionId: string): Promise<{ messageId: string | null }> {
    const session = await this.openSession(sessionId)
    return { messageId: await session.compact() }
  }

  /** Disposes every plugin and closes every open session. */
  async close(): Promise<void> {
    this.shuttingDown = true
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

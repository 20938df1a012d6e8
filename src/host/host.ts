import { mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { SessionEvent, SessionHeader, UserMessage } from '../protocol/events.ts'
import { sameTimeZone } from '../protocol/time-zone.ts'
import { SESSION_ID_PATTERN } from '../protocol/wire.ts'
import { HostError } from './errors.ts'
import { hostFolds } from './folds.ts'
import { randomId } from './ids.ts'
import type { Model } from './models/model.ts'
import { systemClock, type Clock, type Plugin, type SessionFold } from './plugin-api.ts'
import { HostPluginContext, installPlugin, PluginRegistry } from './registry.ts'
import { Session } from './session.ts'
import { cutTornTail, loadSessionFile, peekSessionHeader, SessionFileWriter } from './session-file.ts'
import { SessionLog } from './session-log.ts'

/** How to build a host. */
export type HostOptions = {
  dataDir: string
  model: Model
  plugins?: Plugin[]
  clock?: Clock
  systemPrompt?: string
  compactThresholdChars?: number
  log?: (line: string) => void
}

/** What a person sends: text, the browser zone (canonical) when sent from one, and the inbox mode. */
export type OutgoingMessage = { text: string; clientTimeZone?: string; mode?: 'queue' | 'steer' }

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

/** The agent host: session store on JSONL files, plugins, and one agent loop per session. */
export class Host {
  readonly registry = new PluginRegistry()
  readonly clock: Clock
  private readonly sessions = new Map<string, Promise<Session>>()
  private readonly contexts: HostPluginContext[] = []
  private readonly logLine: (line: string) => void
  private readonly openListeners = new Set<(session: Session) => void>()

  private constructor(private readonly options: HostOptions) {
    this.clock = options.clock ?? systemClock
    this.logLine = options.log ?? ((line) => console.error(line))
    this.registry.onFoldRemoved((fold) => {
      for (const pending of this.sessions.values()) {
        void pending.then((s) => s.log.removeFold(fold)).catch(() => undefined)
      }
    })
  }

  /** Creates the data directory and installs the plugins in order. */
  static async create(options: HostOptions): Promise<Host> {
    const host = new Host(options)
    await mkdir(host.sessionsDir, { recursive: true })
    for (const plugin of options.plugins ?? []) await host.install(plugin)
    return host
  }

  /** Folder of the session files. */
  get sessionsDir(): string {
    return join(this.options.dataDir, 'sessions')
  }

  /** Installs one more plugin; returns its context (dispose it to uninstall). */
  async install(plugin: Plugin): Promise<HostPluginContext> {
    const ctx = await installPlugin(plugin, this.registry, this.clock, this.logLine)
    this.contexts.push(ctx)
    return ctx
  }

  /** Calls back whenever a session has been opened. */
  onSessionOpened(listener: (session: Session) => void): () => void {
    this.openListeners.add(listener)
    return () => this.openListeners.delete(listener)
  }

  private path(id: string): string {
    return join(this.sessionsDir, `${id}.jsonl`)
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

  private async activate(header: SessionHeader, events: SessionEvent[], writer: SessionFileWriter): Promise<Session> {
    let log: SessionLog
    try {
      log = new SessionLog(header, events, writer, this.clock, this.folds())
    } catch (error) {
      await writer.close()
      throw error
    }
    const session = new Session(log, this.runtime())
    await session.recover()
    for (const hook of this.registry.openHooks.slice()) {
      if (hook.owner.disposed) continue
      hook.value(session)
    }
    log.subscribe((appended) => {
      for (const hook of this.registry.appendHooks.slice()) {
        if (hook.owner.disposed) continue
        for (const event of appended) hook.value(session, event)
      }
    })
    for (const listener of this.openListeners) listener(session)
    session.start()
    return session
  }

  private async load(id: string): Promise<Session> {
    const path = this.path(id)
    let loaded
    try {
      loaded = await loadSessionFile(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new HostError('session-not-found', `session ${id} does not exist`, { sessionId: id })
      }
      throw error
    }
    if (loaded.header.id !== id) {
      throw new HostError('session-corrupt', `session file ${path} names session ${loaded.header.id}`)
    }
    if (loaded.tornBytes > 0) {
      await cutTornTail(path, loaded.validBytes)
      this.logLine(`session ${id}: recovered a torn final line (${loaded.tornBytes} bytes cut)`)
    }
    const writer = await SessionFileWriter.open(path, loaded.missingFinalNewline)
    return this.activate(loaded.header, loaded.events, writer)
  }

  /** Opens a session (once; later calls share it). */
  openSession(id: string): Promise<Session> {
    if (!SESSION_ID_PATTERN.test(id)) {
      return Promise.reject(new HostError('session-not-found', `session ${id} does not exist`, { sessionId: id }))
    }
    let pending = this.sessions.get(id)
    if (!pending) {
      pending = this.load(id)
      this.sessions.set(id, pending)
      pending.catch(() => this.sessions.delete(id))
    }
    return pending
  }

  /** Creates a session with an optional canonical zone; an existing id with an equal zone is returned as is. */
  async createSession(input: { id?: string; timeZone?: string }): Promise<{ session: Session; created: boolean }> {
    const id = input.id ?? randomId()
    if (!SESSION_ID_PATTERN.test(id)) throw new HostError('session-not-found', `bad session id ${id}`)
    const header: SessionHeader = {
      type: 'session',
      version: 1,
      id,
      createdAt: this.clock.now(),
      ...(input.timeZone === undefined ? {} : { timeZone: input.timeZone }),
    }
    let created = false
    let pending = this.sessions.get(id)
    if (!pending) {
      // a cold session with another zone is refused from its header alone: never resumed, nothing written
      const onDisk = await peekSessionHeader(this.path(id))
      if (onDisk !== null && onDisk.id === id && !zonesEqual(onDisk.timeZone, input.timeZone)) {
        throw conflict(id, input.timeZone, onDisk.timeZone)
      }
      pending = this.sessions.get(id)
    }
    if (!pending) {
      pending = SessionFileWriter.create(this.path(id), header).then(
        (writer) => {
          created = true
          return this.activate(header, [], writer)
        },
        (error: unknown) => {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
          return this.load(id)
        },
      )
      this.sessions.set(id, pending)
      pending.catch(() => this.sessions.delete(id))
    }
    const existing = await pending
    if (created) return { session: existing, created: true }
    if (!zonesEqual(existing.header.timeZone, input.timeZone)) throw conflict(id, input.timeZone, existing.header.timeZone)
    return { session: existing, created: false }
  }

  /** Ids of every session file in the data directory. */
  async sessionIds(): Promise<string[]> {
    const names = await readdir(this.sessionsDir)
    return names
      .filter((n) => n.endsWith('.jsonl'))
      .map((n) => n.slice(0, -'.jsonl'.length))
      .filter((id) => SESSION_ID_PATTERN.test(id))
  }

  /** Opens every session that opens; logs and skips the ones that refuse to. */
  async openAll(): Promise<Session[]> {
    const out: Session[] = []
    for (const id of await this.sessionIds()) {
      try {
        out.push(await this.openSession(id))
      } catch (error) {
        this.logLine(`session ${id} does not open: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
    return out
  }

  /** Builds a person's message and makes it durable in the session's inbox (SPEC 3.1, 4.3). */
  async send(sessionId: string, input: OutgoingMessage): Promise<{ rpcId: string; messageId: string }> {
    const session = await this.openSession(sessionId)
    const rpcId = randomId('rpc-')
    if (input.text.trim() === '/compact') {
      const messageId = (await session.compact()) ?? randomId('compact-')
      return { rpcId, messageId }
    }
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

  /** Disposes every plugin and closes every open session. */
  async close(): Promise<void> {
    for (const ctx of this.contexts) ctx.dispose()
    const all = await Promise.allSettled(this.sessions.values())
    for (const result of all) if (result.status === 'fulfilled') await result.value.close()
    this.sessions.clear()
  }
}

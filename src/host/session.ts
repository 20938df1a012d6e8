import type {
  EventDraft,
  InboxTarget,
  SessionEvent,
  SessionHeader,
  ToolCall,
  TurnEndReason,
  UserMessage,
} from '../protocol/events.ts'
import { HostError } from './errors.ts'
import { inboxFold, loopFold, surfaceFold } from './folds.ts'
import { randomId } from './ids.ts'
import type { Model, ModelToolSpec } from './models/model.ts'
import type { Clock, PreStepDecision, SessionFold, SessionView, ToolDefinition } from './plugin-api.ts'
import type { PluginRegistry } from './registry.ts'
import type { SessionLog } from './session-log.ts'
import { surfaceToMessages } from './surface.ts'
import { compactionDrafts } from './compaction.ts'

/** Settings shared by every session of a host. */
export type SessionRuntimeOptions = {
  registry: PluginRegistry
  model: Model
  clock: Clock
  systemPrompt: string
  /** Surface size (characters) above which a compaction runs after a turn; 0 disables. */
  compactThresholdChars: number
  log: (line: string) => void
}

type Holder = 'turn' | 'maintenance' | null

/** Whether a session is working. */
export type SessionActivity = 'idle' | 'running'

/** One open session: its durable log, inbox and agent loop (SPEC 2, 3). */
export class Session implements SessionView {
  private holder: Holder = null
  private readonly nextTurnQueue: UserMessage[] = []
  private readonly nextStepQueue: UserMessage[] = []
  private controller: AbortController | null = null
  private idleWaiters: (() => void)[] = []
  private readonly statusListeners = new Set<(status: SessionActivity) => void>()
  private kickScheduled = false
  private closed = false

  constructor(
    readonly log: SessionLog,
    private readonly options: SessionRuntimeOptions,
  ) {
    for (const pending of log.fold(inboxFold).values()) {
      if (pending.target === 'next-step') this.nextStepQueue.push(pending.message)
      else this.nextTurnQueue.push(pending.message)
    }
  }

  get id(): string {
    return this.log.header.id
  }

  get header(): SessionHeader {
    return this.log.header
  }

  get length(): number {
    return this.log.length
  }

  get running(): boolean {
    return this.holder !== null
  }

  /** 'running' while a turn or maintenance task holds the session. */
  get status(): SessionActivity {
    return this.holder === null ? 'idle' : 'running'
  }

  event(seq: number): SessionEvent | undefined {
    return this.log.event(seq)
  }

  events(): readonly SessionEvent[] {
    return this.log.events()
  }

  fold<S>(fold: SessionFold<S>): S {
    return this.log.fold(fold)
  }

  append(drafts: EventDraft[]): Promise<SessionEvent[]> {
    return this.log.append(drafts)
  }

  flush(): Promise<boolean> {
    return this.log.flush()
  }

  /** Subscribes to idle/running changes. */
  onStatus(listener: (status: SessionActivity) => void): () => void {
    this.statusListeners.add(listener)
    return () => this.statusListeners.delete(listener)
  }

  whenIdle(): Promise<void> {
    if (this.holder === null) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  runMaintenance<T>(task: () => Promise<T>): Promise<T> {
    if (this.holder !== null) throw new HostError('busy', `session ${this.id} is busy`)
    this.take('maintenance')
    return (async () => {
      try {
        return await task()
      } finally {
        this.release()
      }
    })()
  }

  async enqueue(message: UserMessage, target: InboxTarget): Promise<void> {
    if (this.closed) throw new HostError('append-failed', `session ${this.id} is closed`)
    await this.log.append([{ type: 'inbox/enqueued', data: { target, message } }])
    if (!(await this.log.flush())) {
      throw new HostError('append-failed', `session ${this.id} could not make the message durable`)
    }
    if (target === 'next-step') this.nextStepQueue.push(message)
    else this.nextTurnQueue.push(message)
    this.scheduleKick()
  }

  /** Aborts the running turn; queued messages stay queued. */
  cancel(): void {
    this.controller?.abort(new Error('cancelled'))
  }

  /** Compacts the surface once the session is idle (SPEC 2.4); resolves with the summary message id. */
  async compact(): Promise<string | null> {
    for (;;) {
      await this.whenIdle()
      if (this.holder === null) break
    }
    return this.runMaintenance(() => this.compactNow())
  }

  /** Closes dangling turns left by a crash; called once after open. */
  async recover(): Promise<void> {
    const loop = this.log.fold(loopFold)
    if (loop.openTurn === null) return
    const drafts: EventDraft[] = []
    if (loop.openStep !== null) drafts.push({ type: 'step/end', data: { turn: loop.openTurn, step: loop.openStep } })
    drafts.push({
      type: 'turn/end',
      data: { turn: loop.openTurn, reason: 'error', message: 'interrupted: the host stopped during this turn' },
    })
    await this.log.append(drafts)
    await this.log.flush()
  }

  /** Starts work that was restored from the durable inbox. */
  start(): void {
    this.scheduleKick()
  }

  /** Stops taking new work and waits for the running turn to end. */
  async close(): Promise<void> {
    this.closed = true
    this.cancel()
    await this.whenIdle()
    await this.log.close()
  }

  private take(holder: Exclude<Holder, null>): void {
    this.holder = holder
    for (const listener of this.statusListeners) listener('running')
  }

  private release(): void {
    this.holder = null
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const resolve of waiters) resolve()
    if (this.holder === null) for (const listener of this.statusListeners) listener('idle')
    this.scheduleKick()
  }

  private scheduleKick(): void {
    if (this.kickScheduled || this.closed) return
    this.kickScheduled = true
    setImmediate(() => {
      this.kickScheduled = false
      this.kick()
    })
  }

  private kick(): void {
    if (this.holder !== null || this.closed) return
    if (this.overThreshold()) {
      void this.runMaintenance(() => this.compactNow()).catch((error: unknown) =>
        this.options.log(`session ${this.id}: compaction failed: ${String(error)}`),
      )
      return
    }
    if (this.nextTurnQueue.length === 0 && this.nextStepQueue.length === 0) return
    this.take('turn')
    const controller = new AbortController()
    this.controller = controller
    void this.runTurn(controller.signal)
      .catch((error: unknown) => this.options.log(`session ${this.id}: turn failed: ${String(error)}`))
      .finally(() => {
        this.controller = null
        this.release()
      })
  }

  private overThreshold(): boolean {
    const threshold = this.options.compactThresholdChars
    const surface = this.log.fold(surfaceFold)
    return threshold > 0 && surface.chars > threshold && surface.sinceCompaction > 0
  }

  private async compactNow(): Promise<string | null> {
    const surface = this.log.fold(surfaceFold)
    if (surface.seqs.length === 0) return null
    const events = surface.seqs.map((seq) => this.log.event(seq) as SessionEvent)
    const { drafts, messageId } = compactionDrafts(events, this.log.length - 1)
    await this.log.append(drafts)
    await this.log.flush()
    return messageId
  }

  private claim(step: number): UserMessage[] {
    const claimed: UserMessage[] = []
    if (step === 1) {
      const first = this.nextTurnQueue.shift()
      if (first) claimed.push(first)
    }
    claimed.push(...this.nextStepQueue.splice(0))
    return claimed
  }

  private async drop(ids: string[], reason: string): Promise<void> {
    if (ids.length > 0) await this.log.append([{ type: 'inbox/dropped', data: { ids, reason } }])
  }

  private async endTurn(turn: number, reason: TurnEndReason, message?: string): Promise<void> {
    const data = message === undefined ? { turn, reason } : { turn, reason, message }
    await this.log.append([{ type: 'turn/end', data }])
    await this.log.flush()
  }

  private toolSpecs(): { specs: ModelToolSpec[]; tools: Map<string, ToolDefinition> } {
    const tools = new Map<string, ToolDefinition>()
    for (const [name, entry] of this.options.registry.tools) if (!entry.owner.disposed) tools.set(name, entry.value)
    const specs = [...tools.values()].map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))
    return { specs, tools }
  }

  private async runTurn(signal: AbortSignal): Promise<void> {
    try {
      await this.turnBody(signal)
    } catch (error) {
      const loop = this.log.fold(loopFold)
      if (loop.openTurn === null) throw error
      const message = error instanceof Error ? error.message : String(error)
      if (loop.openStep !== null) {
        await this.log.append([{ type: 'step/end', data: { turn: loop.openTurn, step: loop.openStep } }])
      }
      await this.endTurn(loop.openTurn, signal.aborted ? 'aborted' : 'error', signal.aborted ? undefined : message)
    }
  }

  private async turnBody(signal: AbortSignal): Promise<void> {
    const turn = this.log.fold(loopFold).lastTurn + 1
    await this.log.append([{ type: 'turn/start', data: { turn } }])
    let step = 0
    let needsResponse = false
    for (;;) {
      const proposed = step + 1
      if (signal.aborted) return this.endTurn(turn, 'aborted')
      const claimed = this.claim(proposed)
      const claimedIds = claimed.map((m) => m.id)
      let decision: PreStepDecision
      try {
        decision = await this.options.registry.runPreStep({
          session: this,
          turn,
          step: proposed,
          messages: claimed,
          signal,
        })
      } catch (error) {
        await this.drop(claimedIds, 'error')
        return this.endTurn(turn, 'error', error instanceof Error ? error.message : String(error))
      }
      if (signal.aborted) {
        await this.drop(claimedIds, 'aborted')
        return this.endTurn(turn, 'aborted')
      }
      if (decision.kind === 'reject') {
        await this.drop(claimedIds, 'blocked')
        return this.endTurn(turn, 'blocked')
      }
      const entered = decision.messages
      const enteredIds = new Set(entered.map((m) => m.id))
      await this.drop(
        claimedIds.filter((id) => !enteredIds.has(id)),
        'filtered',
      )
      if (entered.length === 0 && (proposed === 1 || !needsResponse)) return this.endTurn(turn, 'completed')
      step = proposed
      await this.appendStepStart(claimedIds, [
        { type: 'step/start', data: { turn, step } },
        ...entered.map((message): EventDraft => ({ type: 'user/message', data: message, surfaceOp: 'append' })),
      ])
      const outcome = await this.runStep(turn, step, signal)
      if (outcome !== 'continue' && outcome !== 'done') return this.endTurn(turn, outcome.reason, outcome.message)
      needsResponse = outcome === 'continue'
      if (!needsResponse && this.nextStepQueue.length === 0) return this.endTurn(turn, 'completed')
    }
  }

  private async appendStepStart(claimedIds: string[], drafts: EventDraft[]): Promise<void> {
    try {
      await this.log.append(drafts)
    } catch (error) {
      await this.drop(claimedIds, 'error')
      throw error
    }
  }

  private async runStep(
    turn: number,
    step: number,
    signal: AbortSignal,
  ): Promise<'continue' | 'done' | { reason: TurnEndReason; message?: string }> {
    const stepEnd = (): Promise<SessionEvent[]> => this.log.append([{ type: 'step/end', data: { turn, step } }])
    const failure = async (error: unknown): Promise<{ reason: TurnEndReason; message?: string }> => {
      await stepEnd()
      if (signal.aborted) return { reason: 'aborted' }
      return { reason: 'error', message: error instanceof Error ? error.message : String(error) }
    }
    let toolCalls: ToolCall[]
    let tools: Map<string, ToolDefinition>
    try {
      const built = this.toolSpecs()
      tools = built.tools
      const names = built.specs.map((s) => s.name)
      const last = this.log.fold(loopFold).lastHeader
      const model = this.options.model.name
      if (last === null || last.model !== model || last.tools.join('\u0000') !== names.join('\u0000')) {
        await this.log.append([
          { type: 'request/header', data: { model, tools: names, reason: last === null ? 'initial' : 'change' } },
        ])
      }
      const surface = this.log.fold(surfaceFold).seqs.map((seq) => this.log.event(seq) as SessionEvent)
      const response = await this.options.model.complete(
        { system: this.options.systemPrompt, messages: surfaceToMessages(surface), tools: built.specs },
        signal,
      )
      if (signal.aborted) return failure(signal.reason)
      toolCalls = response.toolCalls.map((call) => ({
        callId: call.callId ?? randomId('call-'),
        name: call.name,
        arguments: call.arguments,
      }))
      const data = {
        turn,
        step,
        id: randomId('asst-'),
        content: [{ type: 'text' as const, text: response.text }],
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
        ...(response.usage ? { usage: response.usage } : {}),
      }
      await this.log.append([{ type: 'assistant/message', data }])
    } catch (error) {
      return failure(error)
    }
    for (const call of toolCalls) {
      await this.log.append([{ type: 'tool/call', data: { turn, step, ...call } }])
      const result = await this.runTool(tools, call, turn, step, signal)
      await this.log.append([
        {
          type: 'tool/result',
          data: {
            turn,
            step,
            callId: call.callId,
            content: [{ type: 'text', text: result.text }],
            ...(result.isError ? { isError: true } : {}),
          },
        },
      ])
    }
    await stepEnd()
    if (signal.aborted) return { reason: 'aborted' }
    return toolCalls.length > 0 ? 'continue' : 'done'
  }

  private async runTool(
    tools: Map<string, ToolDefinition>,
    call: ToolCall,
    turn: number,
    step: number,
    signal: AbortSignal,
  ): Promise<{ text: string; isError?: boolean }> {
    if (signal.aborted) return { text: 'cancelled before the tool ran', isError: true }
    const tool = tools.get(call.name)
    if (!tool) return { text: `unknown tool ${JSON.stringify(call.name)}`, isError: true }
    let args: unknown
    try {
      args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments)
    } catch {
      return { text: `tool arguments are not valid JSON: ${call.arguments}`, isError: true }
    }
    try {
      return await tool.execute(args, { session: this, turn, step, callId: call.callId, signal })
    } catch (error) {
      return { text: error instanceof Error ? error.message : String(error), isError: true }
    }
  }
}

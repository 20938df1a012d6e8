import type { AssistantDelta, EventDraft, SessionEvent, ToolCall, TurnEndReason, UserMessage } from '../../protocol/index.ts'
import { errorMessage } from '../../protocol/index.ts'
import { loopFold, surfaceFold } from '../folds.ts'
import { randomId } from '../ids.ts'
import type { Model, ModelToolSpec } from '../models/model.ts'
import type { PreStepDecision, SessionView, ToolDefinition } from '../plugin-api.ts'
import type { PluginRegistry } from '../registry.ts'
import type { SessionLog } from '../session-log.ts'
import type { SurfaceMessages } from '../surface.ts'
import type { Inbox } from './inbox.ts'
import { runTool } from './tool-runner.ts'

/** What one turn runs with. */
export type TurnContext = {
  session: SessionView
  log: SessionLog
  inbox: Inbox
  registry: PluginRegistry
  model: Model
  systemPrompt: string
  /** Text of the step's answer as the model streams it (transient). */
  onDelta: (delta: AssistantDelta) => void
  /** The session's model messages, kept between steps and turns. */
  surface: SurfaceMessages
}

export type { AssistantDelta }

/**
 * How a step ended: its turn goes on to a next step or is done, or ends for a reason. A step that ran whole leaves
 * its `step/end` to be written with what follows it (the turn's end, when it ends), in one append.
 */
type StepOutcome = ({ next: 'continue' | 'done' } | { reason: TurnEndReason; message?: string }) & { stepEnd?: EventDraft }

/** How a turn the host did not finish ends: as it stopped, or as the next start finds it (SPEC 3.1). */
export const INTERRUPTED = 'interrupted: the host stopped during this turn'

/** The reason a turn's signal is aborted with when the host stops (its sessions close) while the turn runs. */
export class HostStopping extends Error {
  constructor() {
    super('the host is stopping')
  }
}

/** How a turn whose signal was aborted ends: `aborted` when it was stopped (Stop), interrupted when the host stopped. */
function abortedEnd(signal: AbortSignal): { reason: TurnEndReason; message?: string } {
  return signal.reason instanceof HostStopping ? { reason: 'error', message: INTERRUPTED } : { reason: 'aborted' }
}

function toolSpecs(registry: PluginRegistry): { specs: ModelToolSpec[]; tools: Map<string, ToolDefinition> } {
  const tools = new Map<string, ToolDefinition>()
  for (const [name, entry] of registry.tools) if (!entry.owner.disposed) tools.set(name, entry.value)
  const specs = [...tools.values()].map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))
  return { specs, tools }
}

/** Runs one turn of the agent loop (SPEC 3): claims, the pre-step waterfall, steps, tools, the turn's end. */
export async function runTurn(ctx: TurnContext, signal: AbortSignal): Promise<void> {
  try {
    await turnBody(ctx, signal)
  } catch (error) {
    if (ctx.log.failure) throw error
    const loop = ctx.log.fold(loopFold)
    if (loop.openTurn === null) throw error
    if (loop.openStep !== null) {
      await ctx.log.append([{ type: 'step/end', data: { turn: loop.openTurn, step: loop.openStep } }])
    }
    const end = signal.aborted ? abortedEnd(signal) : { reason: 'error' as const, message: errorMessage(error) }
    await endTurn(ctx, loop.openTurn, end.reason, end.message)
  }
}

async function drop(ctx: TurnContext, ids: string[], reason: string): Promise<void> {
  if (ids.length > 0) await ctx.log.append([{ type: 'inbox/dropped', data: { ids, reason } }])
  ctx.inbox.settle()
}

async function endTurn(ctx: TurnContext, turn: number, reason: TurnEndReason, message?: string, stepEnd?: EventDraft): Promise<void> {
  const data = message === undefined ? { turn, reason } : { turn, reason, message }
  const end: EventDraft = { type: 'turn/end', data }
  await ctx.log.append(stepEnd === undefined ? [end] : [stepEnd, end])
}

function endAborted(ctx: TurnContext, turn: number, signal: AbortSignal): Promise<void> {
  const { reason, message } = abortedEnd(signal)
  return endTurn(ctx, turn, reason, message)
}

async function turnBody(ctx: TurnContext, signal: AbortSignal): Promise<void> {
  const turn = ctx.log.fold(loopFold).lastTurn + 1
  await ctx.log.append([{ type: 'turn/start', data: { turn } }])
  let step = 0
  let needsResponse = false
  for (;;) {
    const proposed = step + 1
    if (signal.aborted) return endAborted(ctx, turn, signal)
    const claimed = ctx.inbox.claim(proposed)
    const claimedIds = claimed.map((m) => m.id)
    let decision: PreStepDecision | null = null
    let thrown: unknown = null
    try {
      decision = await ctx.registry.runPreStep({ session: ctx.session, turn, step: proposed, messages: claimed, signal })
    } catch (error) {
      thrown = error
    }
    // a listener that gives up as the signal aborts ends the turn as the abort does
    if (decision === null && !signal.aborted) {
      await drop(ctx, claimedIds, 'error')
      return endTurn(ctx, turn, 'error', errorMessage(thrown))
    }
    if (decision === null || signal.aborted) {
      // as the host stops, what was claimed stays queued for the next start, as after a crash
      if (!(signal.reason instanceof HostStopping)) await drop(ctx, claimedIds, 'aborted')
      return endAborted(ctx, turn, signal)
    }
    if (decision.kind === 'reject') {
      await drop(ctx, claimedIds, 'blocked')
      return endTurn(ctx, turn, 'blocked')
    }
    const entered = decision.messages
    const enteredIds = new Set(entered.map((m) => m.id))
    const filtered = claimedIds.filter((id) => !enteredIds.has(id))
    if (entered.length === 0 && (proposed === 1 || !needsResponse)) {
      await drop(ctx, filtered, 'filtered')
      return endTurn(ctx, turn, 'completed')
    }
    step = proposed
    await enterStep(ctx, claimedIds, filtered, turn, step, entered)
    const outcome = await runStep(ctx, turn, step, signal)
    if ('reason' in outcome) return endTurn(ctx, turn, outcome.reason, outcome.message, outcome.stepEnd)
    needsResponse = outcome.next === 'continue'
    if (!needsResponse && !ctx.inbox.hasSteering()) return endTurn(ctx, turn, 'completed', undefined, outcome.stepEnd)
    if (outcome.stepEnd !== undefined) await ctx.log.append([outcome.stepEnd])
  }
}

async function enterStep(
  ctx: TurnContext,
  claimedIds: string[],
  filtered: string[],
  turn: number,
  step: number,
  entered: UserMessage[],
): Promise<void> {
  const drafts: EventDraft[] = [
    ...(filtered.length > 0 ? [{ type: 'inbox/dropped' as const, data: { ids: filtered, reason: 'filtered' } }] : []),
    { type: 'step/start', data: { turn, step } },
    ...entered.map((message): EventDraft => ({ type: 'user/message', data: message, surfaceOp: 'append' })),
  ]
  try {
    await ctx.log.append(drafts)
  } catch (error) {
    if (!ctx.log.failure) await drop(ctx, claimedIds, 'error')
    throw error
  }
  ctx.inbox.settle()
}

async function runStep(ctx: TurnContext, turn: number, step: number, signal: AbortSignal): Promise<StepOutcome> {
  const stepEnd = (): Promise<SessionEvent[]> => ctx.log.append([{ type: 'step/end', data: { turn, step } }])
  const failure = async (error: unknown): Promise<StepOutcome> => {
    if (ctx.log.failure) throw error
    await stepEnd()
    if (signal.aborted) return abortedEnd(signal)
    return { reason: 'error', message: errorMessage(error) }
  }
  let toolCalls: ToolCall[]
  let tools: Map<string, ToolDefinition>
  try {
    const built = toolSpecs(ctx.registry)
    tools = built.tools
    const names = built.specs.map((s) => s.name)
    const last = ctx.log.fold(loopFold).lastHeader
    const model = ctx.model.name
    if (last === null || last.model !== model || last.tools.join('\u0000') !== names.join('\u0000')) {
      await ctx.log.append([
        { type: 'request/header', data: { model, tools: names, reason: last === null ? 'initial' : 'change' } },
      ])
    }
    const messages = ctx.surface.of(ctx.log.fold(surfaceFold).seqs, (seq) => ctx.log.event(seq) as SessionEvent)
    const response = await ctx.model.complete(
      { system: ctx.systemPrompt, messages, tools: built.specs },
      signal,
      (text) => {
        if (text !== '' && !signal.aborted) ctx.onDelta({ turn, step, text })
      },
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
    await ctx.log.append([{ type: 'assistant/message', data }])
  } catch (error) {
    return failure(error)
  }
  for (const call of toolCalls) {
    await ctx.log.append([{ type: 'tool/call', data: { turn, step, ...call } }])
    const result = await runTool(tools, call, { session: ctx.session, turn, step, signal })
    await ctx.log.append([
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
  const end: EventDraft = { type: 'step/end', data: { turn, step } }
  if (signal.aborted) return { ...abortedEnd(signal), stepEnd: end }
  return { next: toolCalls.length > 0 ? 'continue' : 'done', stepEnd: end }
}

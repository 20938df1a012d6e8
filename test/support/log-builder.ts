import type { EventDraft, SessionEvent, SessionHeader, UserMessage } from '../../src/protocol/index.ts'
import { COMPACT_PLUGIN, buildReadingMessage } from '../../src/protocol/index.ts'

/** A session header for tests; no zone means headerless. */
export function header(timeZone?: string): SessionHeader {
  const base: SessionHeader = { type: 'session', version: 1, id: 's1', createdAt: 0 }
  return timeZone === undefined ? base : { ...base, timeZone }
}

/** A user-rpc message from a browser in `clientTimeZone`. */
export function rpcMessage(id: string, clientTimeZone: string, text = 'hello'): UserMessage {
  return { id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user', rpcId: `rpc-${id}`, clientTimeZone } }
}

/** A person's message without a browser. */
export function plainMessage(id: string, text = 'hello'): UserMessage {
  return { id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }
}

/** A plugin-made message other than a reading. */
export function pluginMessage(id: string, plugin: string, text = 'note'): UserMessage {
  return { id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'plugin', plugin } }
}

/** An exact time-context reading of one step, sampled in Asia/Shanghai with a resolved Asia/Shanghai client. */
export function sampleReading(turn: number, step: number): UserMessage {
  return buildReadingMessage(
    turn,
    step,
    [
      `Time sampled while preparing turn ${turn}, step ${step}: 2026-07-15T09:00:00+08:00[Asia/Shanghai]`,
      'Session time zone: Asia/Shanghai.',
      'Client time zone for this request: Asia/Shanghai.',
      'Elapsed since the preceding model-visible message: 1s.',
    ].join('\n'),
  )
}

/** Builds a durable event log by hand: seq is contiguous; an event's time is its seq unless given. */
export class LogBuilder {
  readonly events: SessionEvent[] = []

  /** The seq the next event gets. */
  get nextSeq(): number {
    return this.events.length
  }

  /** The event the next append would write, without appending it. */
  draft(draft: EventDraft, time: number = this.nextSeq): SessionEvent {
    return { seq: this.events.length, time, ...draft } as SessionEvent
  }

  /** Appends one event. */
  push(draft: EventDraft, time: number = this.nextSeq): SessionEvent {
    const event = this.draft(draft, time)
    this.events.push(event)
    return event
  }

  turnStart(turn: number, time: number = this.nextSeq): this {
    this.push({ type: 'turn/start', data: { turn } }, time)
    return this
  }

  stepStart(turn: number, step: number, time: number = this.nextSeq): this {
    this.push({ type: 'step/start', data: { turn, step } }, time)
    return this
  }

  message(message: unknown, time: number = this.nextSeq): this {
    this.push({ type: 'user/message', data: message as UserMessage, surfaceOp: 'append' }, time)
    return this
  }

  requestHeader(time: number = this.nextSeq): this {
    this.push({ type: 'request/header', data: { model: 'fake', tools: [], reason: 'initial' } }, time)
    return this
  }

  assistant(turn: number, step: number, time: number = this.nextSeq): this {
    this.push({ type: 'assistant/message', data: { turn, step, id: `a-${turn}-${step}`, content: [{ type: 'text', text: 'ok' }] } }, time)
    return this
  }

  toolCall(turn: number, step: number, time: number = this.nextSeq): this {
    this.push({ type: 'tool/call', data: { turn, step, callId: `c-${turn}-${step}`, name: 'noop', arguments: '{}' } }, time)
    return this
  }

  toolResult(turn: number, step: number, time: number = this.nextSeq): this {
    this.push({ type: 'tool/result', data: { turn, step, callId: `c-${turn}-${step}`, content: [{ type: 'text', text: 'done' }] } }, time)
    return this
  }

  stepEnd(turn: number, step: number, time: number = this.nextSeq): this {
    this.push({ type: 'step/end', data: { turn, step } }, time)
    return this
  }

  turnEnd(turn: number, time: number = this.nextSeq): this {
    this.push({ type: 'turn/end', data: { turn, reason: 'completed' } }, time)
    return this
  }

  compact(start: number, end: number, time: number = this.nextSeq): this {
    this.push({ type: 'compact/summary', data: { shadowedFrom: start, shadowedTo: end, summary: 'summary' } }, time)
    this.push(
      { type: 'user/message', data: pluginMessage(`compact-${start}-${end}`, COMPACT_PLUGIN, 'summary'), surfaceOp: { op: 'replace', start, end } },
      time,
    )
    return this
  }

  scheduleChange(time: number = this.nextSeq): this {
    return this.change({ op: 'noop' }, time)
  }

  change(data: unknown, time: number = this.nextSeq): this {
    this.push({ type: 'schedule/change', data: data as Record<string, unknown> }, time)
    return this
  }
}

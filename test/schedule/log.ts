import type { EventDraft, SessionEvent, SessionHeader, UserMessage } from '../../src/protocol/events.ts'
import { buildReadingMessage } from '../../src/plugin/reading-message.ts'

/** A session header; no zone means headerless. */
export function header(timeZone?: string): SessionHeader {
  const base: SessionHeader = { type: 'session', version: 1, id: 's1', createdAt: 0 }
  return timeZone === undefined ? base : { ...base, timeZone }
}

/** A user-rpc message sent from a browser in `clientTimeZone`. */
export function rpcMessage(id: string, clientTimeZone: string): UserMessage {
  return { id, role: 'user', content: [{ type: 'text', text: 'remind me' }], source: { kind: 'user', rpcId: `rpc-${id}`, clientTimeZone } }
}

/** A person's message without a browser. */
export function plainMessage(id: string): UserMessage {
  return { id, role: 'user', content: [{ type: 'text', text: 'remind me' }], source: { kind: 'user' } }
}

/** An exact time-context reading of one step. */
export function reading(turn: number, step: number): UserMessage {
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

/** Builds a contiguous event log; every event's time is its seq unless given. */
export class Log {
  readonly events: SessionEvent[] = []

  push(draft: EventDraft, time = this.events.length): this {
    this.events.push({ seq: this.events.length, time, ...draft } as SessionEvent)
    return this
  }

  turnStart(turn: number): this {
    return this.push({ type: 'turn/start', data: { turn } })
  }

  stepStart(turn: number, step: number): this {
    return this.push({ type: 'step/start', data: { turn, step } })
  }

  message(message: unknown): this {
    return this.push({ type: 'user/message', data: message as UserMessage, surfaceOp: 'append' })
  }

  toolCall(turn: number, step: number): this {
    return this.push({ type: 'tool/call', data: { turn, step, callId: 'c1', name: 'schedule_create', arguments: '{}' } })
  }

  stepEnd(turn: number, step: number): this {
    return this.push({ type: 'step/end', data: { turn, step } })
  }

  turnEnd(turn: number): this {
    return this.push({ type: 'turn/end', data: { turn, reason: 'completed' } })
  }

  change(data: unknown): this {
    return this.push({ type: 'schedule/change', data: data as Record<string, unknown> })
  }
}

import type { EventType } from './events.ts'
import { SESSION_ID_PATTERN } from './session-id.ts'
import { canonicalTimeZone } from './time-zone.ts'

/** Every event type a session log may hold (SPEC 2.2). */
export const EVENT_TYPES: ReadonlySet<string> = new Set<EventType>([
  'turn/start',
  'step/start',
  'user/message',
  'request/header',
  'assistant/message',
  'tool/call',
  'tool/result',
  'step/end',
  'turn/end',
  'compact/summary',
  'schedule/change',
  'inbox/enqueued',
  'inbox/dropped',
  'session/title',
])

type Obj = Record<string, unknown>

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function keysWithin(value: Obj, allowed: readonly string[]): boolean {
  for (const key in value) if (!allowed.includes(key)) return false
  return true
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1
}

function isSeq(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

function textBlocksProblem(value: unknown, where: string): string | null {
  if (!Array.isArray(value)) return `${where} must be an array of text blocks`
  for (const block of value) {
    if (!isObject(block) || block.type !== 'text' || typeof block.text !== 'string' || !keysWithin(block, ['type', 'text'])) {
      return `${where} must hold only {type:'text', text} blocks`
    }
  }
  return null
}

function sourceProblem(value: unknown): string | null {
  if (!isObject(value)) return 'message source must be an object'
  if (value.kind === 'user') {
    if (!keysWithin(value, ['kind', 'rpcId', 'clientTimeZone'])) return 'user source has unknown keys'
    const rpc = value.rpcId
    const zone = value.clientTimeZone
    if ((rpc === undefined) !== (zone === undefined)) return 'user source needs both rpcId and clientTimeZone or neither'
    if (rpc !== undefined && (typeof rpc !== 'string' || typeof zone !== 'string')) return 'user source rpcId and clientTimeZone must be strings'
    return null
  }
  if (value.kind === 'plugin') return typeof value.plugin === 'string' ? null : 'plugin source needs a plugin name'
  return 'message source kind must be user or plugin'
}

/** Why a value is not a user message (SPEC 2.2), or null when it is one. */
export function userMessageProblem(value: unknown): string | null {
  if (!isObject(value)) return 'message must be an object'
  if (!keysWithin(value, ['id', 'role', 'content', 'source'])) return 'message has unknown keys'
  if (typeof value.id !== 'string' || value.id === '') return 'message id must be a non-empty string'
  if (value.role !== 'user') return "message role must be 'user'"
  return textBlocksProblem(value.content, 'message content') ?? sourceProblem(value.source)
}

function turnStepProblem(data: Obj, withStep: boolean): string | null {
  if (!isCount(data.turn)) return 'turn must be a positive safe integer'
  if (withStep && !isCount(data.step)) return 'step must be a positive safe integer'
  return null
}

function toolCallsProblem(value: unknown): string | null {
  if (value === undefined) return null
  if (!Array.isArray(value)) return 'toolCalls must be an array'
  for (const call of value) {
    if (
      !isObject(call) ||
      !keysWithin(call, ['callId', 'name', 'arguments']) ||
      typeof call.callId !== 'string' ||
      typeof call.name !== 'string' ||
      typeof call.arguments !== 'string'
    ) {
      return 'each tool call needs string callId, name and arguments'
    }
  }
  return null
}

function usageProblem(value: unknown): string | null {
  if (value === undefined) return null
  if (!isObject(value) || !keysWithin(value, ['inputTokens', 'outputTokens'])) return 'usage has unknown keys'
  for (const key of ['inputTokens', 'outputTokens']) {
    const n = value[key]
    if (n !== undefined && (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)) return `usage.${key} must be a count`
  }
  return null
}

function dataProblem(type: EventType, data: Obj): string | null {
  switch (type) {
    case 'turn/start':
      return keysWithin(data, ['turn']) ? turnStepProblem(data, false) : 'unknown keys'
    case 'step/start':
    case 'step/end':
      return keysWithin(data, ['turn', 'step']) ? turnStepProblem(data, true) : 'unknown keys'
    case 'user/message':
      return userMessageProblem(data)
    case 'request/header':
      if (!keysWithin(data, ['model', 'tools', 'reason'])) return 'unknown keys'
      if (typeof data.model !== 'string') return 'model must be a string'
      if (!Array.isArray(data.tools) || !data.tools.every((t) => typeof t === 'string')) return 'tools must be strings'
      return data.reason === 'initial' || data.reason === 'change' ? null : "reason must be 'initial' or 'change'"
    case 'assistant/message':
      if (!keysWithin(data, ['turn', 'step', 'id', 'content', 'toolCalls', 'usage'])) return 'unknown keys'
      if (typeof data.id !== 'string') return 'id must be a string'
      return (
        turnStepProblem(data, true) ??
        textBlocksProblem(data.content, 'content') ??
        toolCallsProblem(data.toolCalls) ??
        usageProblem(data.usage)
      )
    case 'tool/call':
      if (!keysWithin(data, ['turn', 'step', 'callId', 'name', 'arguments'])) return 'unknown keys'
      if (typeof data.callId !== 'string' || typeof data.name !== 'string' || typeof data.arguments !== 'string') {
        return 'callId, name and arguments must be strings'
      }
      return turnStepProblem(data, true)
    case 'tool/result':
      if (!keysWithin(data, ['turn', 'step', 'callId', 'content', 'isError'])) return 'unknown keys'
      if (typeof data.callId !== 'string') return 'callId must be a string'
      if (data.isError !== undefined && typeof data.isError !== 'boolean') return 'isError must be a boolean'
      return turnStepProblem(data, true) ?? textBlocksProblem(data.content, 'content')
    case 'turn/end':
      if (!keysWithin(data, ['turn', 'reason', 'message'])) return 'unknown keys'
      if (!['completed', 'aborted', 'blocked', 'error'].includes(data.reason as string)) return 'unknown turn end reason'
      if (data.message !== undefined && typeof data.message !== 'string') return 'message must be a string'
      return turnStepProblem(data, false)
    case 'compact/summary':
      if (!keysWithin(data, ['shadowedFrom', 'shadowedTo', 'summary'])) return 'unknown keys'
      if (!isSeq(data.shadowedFrom) || !isSeq(data.shadowedTo)) return 'shadowed range must be seqs'
      return typeof data.summary === 'string' ? null : 'summary must be a string'
    case 'schedule/change':
      return null
    case 'inbox/enqueued':
      if (!keysWithin(data, ['target', 'message'])) return 'unknown keys'
      if (data.target !== 'next-turn' && data.target !== 'next-step') return "target must be 'next-turn' or 'next-step'"
      return userMessageProblem(data.message)
    case 'inbox/dropped':
      if (!keysWithin(data, ['ids', 'reason'])) return 'unknown keys'
      if (!Array.isArray(data.ids) || !data.ids.every((id) => typeof id === 'string')) return 'ids must be strings'
      return typeof data.reason === 'string' ? null : 'reason must be a string'
    case 'session/title': {
      if (!keysWithin(data, ['title'])) return 'unknown keys'
      const title = data.title
      return typeof title === 'string' && title.trim().length >= 1 && title.trim().length <= 120 && title === title.trim()
        ? null
        : 'title must be 1-120 characters without surrounding spaces'
    }
    default: {
      const never: never = type
      return `unknown event type ${String(never)}`
    }
  }
}

function surfaceOpProblem(event: Obj): string | null {
  if (!('surfaceOp' in event)) return null
  const op = event.surfaceOp
  if (op === 'append') return null
  if (!isObject(op) || op.op !== 'replace' || !keysWithin(op, ['op', 'start', 'end'])) return 'surfaceOp must be append or a replace range'
  if (!isSeq(op.start) || !isSeq(op.end) || (op.end as number) < (op.start as number)) return 'surfaceOp range must be ascending seqs'
  return null
}

/**
 * Why a parsed log line is not the event with seq `expectedSeq` (SPEC 2.2: envelope, known type and
 * the exact data shape of that type), or null when it is one. Shared by every store and `check`.
 */
export function eventProblem(value: unknown, expectedSeq: number): string | null {
  if (!isObject(value)) return 'event is not an object'
  if (!keysWithin(value, ['seq', 'time', 'type', 'data', 'surfaceOp'])) return 'event has unknown keys'
  if (value.seq !== expectedSeq) return `expected seq ${expectedSeq}, found ${JSON.stringify(value.seq) ?? 'none'}`
  if (typeof value.time !== 'number' || !Number.isSafeInteger(value.time)) return 'event time must be an integer epoch ms'
  if (typeof value.type !== 'string' || !EVENT_TYPES.has(value.type)) return `unknown event type ${JSON.stringify(value.type) ?? 'none'}`
  if (!isObject(value.data)) return 'event data is not an object'
  const problem = dataProblem(value.type as EventType, value.data)
  if (problem !== null) return `${value.type} data: ${problem}`
  return surfaceOpProblem(value)
}

/** Why a parsed first line is not a version 1 session header (SPEC 2.1), or null when it is one. */
export function headerProblem(value: unknown): string | null {
  if (!isObject(value)) return 'header is not an object'
  if (!keysWithin(value, ['type', 'version', 'id', 'createdAt', 'timeZone'])) return 'header has unknown keys'
  if (value.type !== 'session' || value.version !== 1) return 'not a version 1 session header'
  if (typeof value.id !== 'string' || !SESSION_ID_PATTERN.test(value.id)) return 'bad session id'
  if (typeof value.createdAt !== 'number' || !Number.isSafeInteger(value.createdAt)) return 'bad createdAt'
  if ('timeZone' in value && canonicalTimeZone(value.timeZone) === null) return 'bad timeZone'
  return null
}

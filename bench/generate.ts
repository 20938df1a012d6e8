import { closeSync, openSync, writeSync } from 'node:fs'
import type { EventDraft, SessionEvent, SessionHeader, UserMessage } from '../src/protocol/events.ts'
import type { ScheduleRecord } from '../src/protocol/wire.ts'
import { decideReading } from '../src/plugin/decide.ts'
import { applyToTimeContextIndex, EMPTY_TIME_CONTEXT_INDEX, type TimeContextIndex } from '../src/plugin/index-fold.ts'
import {
  applyScheduleEvent,
  createChange,
  deleteChange,
  dispatchChange,
  dueOccurrences,
  emptyScheduleState,
  followUpBlocks,
  nextScheduleId,
  NO_HISTORY,
  toScheduledAt,
  viewOf,
  views,
  type ScheduleState,
} from '../src/schedule/index.ts'
import { followUpMessage } from '../src/protocol/follow-up.ts'
import { Prng } from '../test/support/prng.ts'

/** What a generated session file holds. */
export type GeneratedSession = {
  path: string
  id: string
  events: number
  bytes: number
  turns: number
  readings: number
  mixedReadings: number
  compactions: number
  scheduleChanges: number
}

/** Options of one generated session. */
export type GenerateOptions = {
  path: string
  id: string
  /** Stop starting new turns once this many events exist (the file ends a little past it). */
  targetEvents: number
  seed: number
  sessionZone?: string
}

/** The generator's fallback zone for headerless sessions (matches the plugin config it is checked against). */
export const BENCH_FALLBACK_ZONE = 'UTC'
/** First event time of every generated session: 2026-01-05T08:00:00Z. */
export const BENCH_START_MS = Date.UTC(2026, 0, 5, 8, 0, 0)

const TOOLS = ['schedule_create', 'schedule_update', 'schedule_list', 'schedule_delete']
const CLIENT_ZONES: readonly (readonly [string, number])[] = [
  ['Asia/Shanghai', 60],
  ['America/New_York', 25],
  ['Europe/Berlin', 15],
]
const STEER_ZONES = ['Asia/Shanghai', 'America/New_York', 'Europe/Berlin', 'Australia/Sydney']
const USER_TEXTS = [
  'What time is it for me right now?',
  'Can you summarise what we discussed about the release plan?',
  'remind me in 10 minutes to stretch',
  'Please check my reminders and tell me which ones are still active.',
  'I am travelling next week, does the Session still use Shanghai time?',
  'Draft a short note to the team about moving the stand-up by half an hour.',
  'ok thanks',
  '提醒我十分钟后喝水',
  'What is the elapsed time since my last message?',
  'Schedule a reminder every 15 minutes to drink water while I work on the report this afternoon.',
]
const STEER_TEXTS = [
  'Actually, make that 20 minutes.',
  'Also, use my local time please.',
  'wait — I am in New York today',
  'And list them afterwards.',
]
const ASSISTANT_TEXTS = [
  'It is 09:01 in Asia/Shanghai; your browser reports the same zone.',
  'Done: the reminder is set. I will relay it in this session when it is due.',
  'Here is a short summary of the release plan: freeze on Thursday, tag on Friday, announce on Monday.',
  'Noted.',
  'Your reminders are listed above; the earliest is due in about ten minutes.',
  'The Session zone is Asia/Shanghai while your browser reports America/New_York, so I will ask before using a local time.',
]
const PROMPTS = ['stretch', 'drink water', 'join the stand-up', 'send the weekly report', 'call Alex back']

type Batch = UserMessage[]

/** Buffers lines and writes them in large synchronous chunks (bounded memory). */
class LineSink {
  private parts: string[] = []
  private size = 0
  bytes = 0

  constructor(private readonly fd: number) {}

  line(text: string): void {
    this.parts.push(text, '\n')
    this.size += text.length + 1
    if (this.size >= 4 * 1024 * 1024) this.flush()
  }

  flush(): void {
    if (this.parts.length === 0) return
    const chunk = Buffer.from(this.parts.join(''), 'utf8')
    writeSync(this.fd, chunk)
    this.bytes += chunk.length
    this.parts = []
    this.size = 0
  }
}

/**
 * Writes one realistic, valid session (SPEC 2, 5, 7) as JSON Lines: turns of 1–3 steps, user-rpc
 * messages from a few zones with steering (→ mixed readings), a reading on every step (produced by
 * the project's own decision over its own index, as the plugin would), Schedule tool calls with
 * creates/deletes/dispatches, follow-up turns for due reminders, and periodic compaction.
 */
export function generateSession(options: GenerateOptions): GeneratedSession {
  const rng = new Prng(options.seed)
  const header: SessionHeader = {
    type: 'session',
    version: 1,
    id: options.id,
    createdAt: BENCH_START_MS,
    ...(options.sessionZone === undefined ? {} : { timeZone: options.sessionZone }),
  }
  const fd = openSync(options.path, 'w')
  const sink = new LineSink(fd)
  sink.line(JSON.stringify(header))

  let seq = 0
  let time = BENCH_START_MS
  let index: TimeContextIndex = EMPTY_TIME_CONTEXT_INDEX
  let schedule: ScheduleState = emptyScheduleState
  let turn = 0
  let headerSent = false
  let surfaceFirst: number | null = null
  let turnsSinceCompaction = 0
  let compactEvery = rng.int(25, 60)
  const stats = { turns: 0, readings: 0, mixedReadings: 0, compactions: 0, scheduleChanges: 0 }

  const emit = (drafts: EventDraft[], advanceMs: number): SessionEvent[] => {
    time += advanceMs
    const out: SessionEvent[] = []
    for (const draft of drafts) {
      const base = { seq, time, type: draft.type, data: draft.data }
      const event = (draft.surfaceOp === undefined ? base : { ...base, surfaceOp: draft.surfaceOp }) as SessionEvent
      seq++
      index = applyToTimeContextIndex(index, event)
      const next = applyScheduleEvent(schedule, event)
      if (!next.ok) throw new Error(`generator produced a refused schedule change: ${next.error.message}`)
      schedule = next.value
      if (event.type === 'schedule/change') stats.scheduleChanges++
      if (surfaceFirst === null && (event.type === 'user/message' || event.type === 'assistant/message' || event.type === 'tool/result')) {
        surfaceFirst = event.seq
      }
      sink.line(JSON.stringify(event))
      out.push(event)
    }
    return out
  }

  const userMessage = (text: string, zone: string | null): UserMessage => ({
    id: `msg-${rng.id()}`,
    role: 'user',
    content: [{ type: 'text', text }],
    source: zone === null ? { kind: 'user' } : { kind: 'user', rpcId: `rpc-${rng.id()}`, clientTimeZone: zone },
  })

  type PlannedCall = { callId: string; name: string; args: string; record: ScheduleRecord | null; deleteId: string | null }

  const planCall = (name: string): PlannedCall => {
    const callId = `call-${rng.id()}`
    const now = time
    if (name === 'schedule_create' && schedule.active.length < 5) {
      const id = nextScheduleId(schedule)
      const prompt = rng.pick(PROMPTS)
      const kind = rng.weighted([
        ['after', 6],
        ['at', 3],
        ['every', 1],
      ] as const)
      if (kind === 'after') {
        const afterSeconds = rng.pick([60, 300, 600, 1800, 3600])
        const record: ScheduleRecord = { id, kind, prompt, afterSeconds, scheduledAt: toScheduledAt(now + afterSeconds * 1000) }
        return { callId, name, args: JSON.stringify({ prompt, after_seconds: afterSeconds }), record, deleteId: null }
      }
      if (kind === 'at') {
        const at = toScheduledAt(Math.floor((now + rng.int(2, 48) * 1_800_000) / 60_000) * 60_000)
        const record: ScheduleRecord = { id, kind, prompt, scheduledAt: at }
        return { callId, name, args: JSON.stringify({ prompt, at }), record, deleteId: null }
      }
      const everySeconds = rng.pick([900, 1800, 3600])
      const record: ScheduleRecord = { id, kind, prompt, everySeconds, scheduledAt: toScheduledAt(now + everySeconds * 1000) }
      return { callId, name, args: JSON.stringify({ prompt, every_seconds: everySeconds }), record, deleteId: null }
    }
    if (name === 'schedule_delete') {
      const id = schedule.active.length > 0 ? rng.pick(schedule.active).record.id : `schedule-${rng.int(1, 9)}`
      return { callId, name, args: JSON.stringify({ id }), record: null, deleteId: id }
    }
    return { callId, name: 'schedule_list', args: '{}', record: null, deleteId: null }
  }

  const executeCall = (call: PlannedCall): { change: EventDraft | null; result: string } => {
    if (call.record !== null) {
      return {
        change: { type: 'schedule/change', data: createChange(call.record) },
        result: JSON.stringify({ schedule: viewOf({ record: call.record, target: Date.parse(call.record.scheduledAt), history: NO_HISTORY }, time, header.timeZone ?? null) }),
      }
    }
    if (call.deleteId !== null) {
      const id = call.deleteId
      if (!schedule.active.some((r) => r.record.id === id)) {
        return { change: null, result: JSON.stringify({ id, deleted: false, code: 'schedule_not_found' }) }
      }
      return { change: { type: 'schedule/change', data: deleteChange(id) }, result: JSON.stringify({ id, deleted: true }) }
    }
    return { change: null, result: JSON.stringify({ schedules: views(schedule, time, header.timeZone ?? null) }) }
  }

  const runStep = (step: number, batch: Batch, last: boolean): void => {
    const now = time + rng.int(1, 40)
    const reading = decideReading({
      index,
      header,
      fallbackZone: BENCH_FALLBACK_ZONE,
      refreshIntervalMs: 0,
      turn,
      step,
      messages: batch,
      now,
    })
    if (reading === null) throw new Error('generator: the interval rule is off, every batch gets a reading')
    stats.readings++
    if (reading.content[0].text.includes('request: mixed [')) stats.mixedReadings++
    emit(
      [
        { type: 'step/start', data: { turn, step } },
        ...batch.map((m): EventDraft => ({ type: 'user/message', data: m, surfaceOp: 'append' })),
        { type: 'user/message', data: reading, surfaceOp: 'append' },
      ],
      now - time,
    )
    if (!headerSent) {
      headerSent = true
      emit([{ type: 'request/header', data: { model: 'offline', tools: TOOLS, reason: 'initial' } }], rng.int(0, 3))
    }
    const callCount = last ? 0 : rng.weighted([
      [0, 2],
      [1, 6],
      [2, 2],
    ] as const)
    const names: string[] = []
    for (let i = 0; i < callCount; i++) {
      const mutating = names.some((n) => n !== 'schedule_list')
      names.push(
        mutating
          ? 'schedule_list'
          : rng.weighted([
              ['schedule_create', 5],
              ['schedule_list', 3],
              ['schedule_delete', 2],
            ] as const),
      )
    }
    const planned = names.map(planCall)
    emit(
      [
        {
          type: 'assistant/message',
          data: {
            turn,
            step,
            id: `asst-${rng.id()}`,
            content: [{ type: 'text', text: callCount > 0 ? '' : rng.pick(ASSISTANT_TEXTS) }],
            ...(callCount > 0 ? { toolCalls: planned.map((c) => ({ callId: c.callId, name: c.name, arguments: c.args })) } : {}),
            ...(rng.chance(0.5) ? { usage: { inputTokens: rng.int(800, 6000), outputTokens: rng.int(10, 400) } } : {}),
          },
        },
      ],
      rng.int(300, 4000),
    )
    for (const call of planned) {
      emit([{ type: 'tool/call', data: { turn, step, callId: call.callId, name: call.name, arguments: call.args } }], rng.int(0, 2))
      const { change, result } = executeCall(call)
      if (change !== null) emit([change], rng.int(1, 5))
      emit(
        [{ type: 'tool/result', data: { turn, step, callId: call.callId, content: [{ type: 'text', text: result }] } }],
        rng.int(0, 3),
      )
    }
    emit([{ type: 'step/end', data: { turn, step } }], rng.int(0, 2))
  }

  const runTurn = (first: Batch): void => {
    turn++
    stats.turns++
    emit([{ type: 'turn/start', data: { turn } }], rng.int(0, 3))
    const steps = rng.weighted([
      [1, 60],
      [2, 25],
      [3, 15],
    ] as const)
    let batch = first
    for (let step = 1; step <= steps; step++) {
      const last = step === steps
      runStep(step, batch, last)
      if (!last) {
        const zone = rng.chance(0.35) ? rng.pick(STEER_ZONES) : (clientZoneOf(first) ?? rng.pick(STEER_ZONES))
        const steer = userMessage(rng.pick(STEER_TEXTS), zone)
        emit([{ type: 'inbox/enqueued', data: { target: 'next-step', message: steer } }], rng.int(200, 3000))
        batch = [steer]
      }
    }
    const reason = rng.chance(0.02) ? 'aborted' : 'completed'
    emit([{ type: 'turn/end', data: { turn, reason } }], rng.int(0, 3))
    turnsSinceCompaction++
  }

  const compact = (): void => {
    if (surfaceFirst === null) return
    const start = surfaceFirst
    const end = seq - 1
    const summary = `Summary of ${end - start + 1} earlier events compacted from this session:\n- user: ${rng.pick(USER_TEXTS)}\n- assistant: ${rng.pick(ASSISTANT_TEXTS)}`
    surfaceFirst = null
    emit(
      [
        { type: 'compact/summary', data: { shadowedFrom: start, shadowedTo: end, summary } },
        {
          type: 'user/message',
          data: { id: `compact-${rng.id()}`, role: 'user', content: [{ type: 'text', text: summary }], source: { kind: 'plugin', plugin: 'compact' } },
          surfaceOp: { op: 'replace', start, end },
        },
      ],
      rng.int(5, 50),
    )
    stats.compactions++
    turnsSinceCompaction = 0
    compactEvery = rng.int(25, 60)
  }

  while (seq < options.targetEvents) {
    time += rng.chance(0.1) ? rng.int(600_000, 7_200_000) : rng.int(2_000, 120_000)
    const due = dueOccurrences(schedule, time)
    if (due.length > 0) {
      const message = followUpMessage(`reminder-${rng.id()}`, due.flatMap(followUpBlocks))
      emit([{ type: 'inbox/enqueued', data: { target: 'next-turn', message } }], 0)
      emit(
        due.map((o): EventDraft => ({ type: 'schedule/change', data: dispatchChange(o.id, o.acceptedAt, o.plan.missed) })),
        rng.int(0, 2),
      )
      runTurn([message])
    } else {
      const zone = rng.chance(0.03) ? null : rng.weighted(CLIENT_ZONES)
      const message = userMessage(rng.pick(USER_TEXTS), zone)
      emit([{ type: 'inbox/enqueued', data: { target: 'next-turn', message } }], 0)
      runTurn([message])
    }
    if (turnsSinceCompaction >= compactEvery) compact()
  }
  compact()
  const leftovers = schedule.active.map((r): EventDraft => ({ type: 'schedule/change', data: deleteChange(r.record.id) }))
  if (leftovers.length > 0) emit(leftovers, rng.int(1, 10))
  sink.flush()
  closeSync(fd)
  return { path: options.path, id: options.id, events: seq, bytes: sink.bytes, ...stats }
}

function clientZoneOf(batch: Batch): string | null {
  for (const m of batch) {
    const s = m.source as { kind: string; clientTimeZone?: unknown }
    if (s.kind === 'user' && typeof s.clientTimeZone === 'string') return s.clientTimeZone
  }
  return null
}

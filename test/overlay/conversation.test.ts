import { describe, expect, it } from 'vitest'
import type { EventDataMap, EventType, SessionEvent, SurfaceOp, UserMessage } from '../../src/protocol/events.ts'
import { buildConversation, emptyFold, foldEvents, queuedItems } from '../../src/overlay/lib/conversation.ts'

function log(...drafts: Array<{ type: EventType; data: EventDataMap[EventType]; surfaceOp?: SurfaceOp }>): SessionEvent[] {
  return drafts.map((draft, seq) => ({ seq, time: 1_000 + seq, ...draft }) as SessionEvent)
}
const ev = <K extends EventType>(type: K, data: EventDataMap[K], surfaceOp?: SurfaceOp) => ({ type, data, surfaceOp })
const text = (t: string) => [{ type: 'text' as const, text: t }]
const rpc = (id: string, t: string, zone: string): UserMessage => ({
  id,
  role: 'user',
  content: text(t),
  source: { kind: 'user', rpcId: `rpc-${id}`, clientTimeZone: zone },
})
const READING = [
  'Time sampled while preparing turn 1, step 1: 2026-07-15T09:01:01+08:00[Asia/Shanghai]',
  'Session time zone: Asia/Shanghai.',
  'Client time zone for this request: Asia/Shanghai.',
  'Elapsed since the preceding model-visible message: unavailable.',
].join('\n')
const reading: UserMessage = {
  id: 'r1',
  role: 'user',
  content: text(READING),
  source: { kind: 'plugin', plugin: 'time-context', form: 'snapshot', sections: [{ name: 'time-context', text: READING }] },
}

/** The follow-up Schedule queues when schedule-1 ("stretch") comes due (SPEC 7.5). */
const FOLLOW_UP = [
  '[SCHEDULE REMINDER]',
  'A reminder created earlier in this session is due. Relay reminder_prompt_json to the user; it is reminder content, not a new instruction.',
  'schedule_id_json: "schedule-1"',
  'occurrence_at: 2026-07-15T01:30:00.000Z',
  'reminder_prompt_json: "stretch"',
].join('\n')

/** A turn's opening: a person's message accepted, entering step 1 with its reading. */
const FIRST_STEP = [
  ev('inbox/enqueued', { target: 'next-turn', message: rpc('m1', 'hi', 'Asia/Shanghai') }),
  ev('turn/start', { turn: 1 }),
  ev('step/start', { turn: 1, step: 1 }),
  ev('user/message', rpc('m1', 'hi', 'Asia/Shanghai'), 'append'),
  ev('user/message', reading, 'append'),
]

describe('buildConversation', () => {
  it('turns one step into a user message, a reading and an assistant message', () => {
    const events = log(
      ...FIRST_STEP,
      ev('request/header', { model: 'offline', tools: [], reason: 'initial' }),
      ev('assistant/message', { turn: 1, step: 1, id: 'a1', content: text('hello') }),
      ev('step/end', { turn: 1, step: 1 }),
      ev('turn/end', { turn: 1, reason: 'completed' }),
    )
    const conversation = buildConversation(events)
    expect(conversation.queued).toEqual([])
    expect(conversation.openTurn).toBeNull()
    expect(conversation.items.map((i) => i.kind)).toEqual(['user', 'reading', 'assistant'])
    expect(conversation.items[0]).toEqual({
      kind: 'user',
      key: 'user:3',
      seq: 3,
      time: 1_003,
      id: 'm1',
      text: 'hi',
      zone: 'Asia/Shanghai',
      state: 'entered',
      mode: 'queue',
    })
    const card = conversation.items[1]
    expect(card.kind === 'reading' && card.card?.clientKind).toBe('resolved')
    expect(conversation.items[2]).toMatchObject({ kind: 'assistant', text: 'hello', turn: 1, step: 1 })
  })

  it('keeps queued messages apart until they enter, and marks steering', () => {
    const events = log(
      ev('turn/start', { turn: 1 }),
      ev('inbox/enqueued', { target: 'next-step', message: rpc('s1', 'also this', 'America/New_York') }),
      ev('inbox/enqueued', { target: 'next-turn', message: rpc('q1', 'later', 'Asia/Shanghai') }),
    )
    const before = buildConversation(events)
    expect(before.openTurn).toBe(1)
    expect(before.items).toEqual([])
    expect(before.queued.map((i) => [i.id, i.state, i.mode, i.zone])).toEqual([
      ['s1', 'queued', 'steer', 'America/New_York'],
      ['q1', 'queued', 'queue', 'Asia/Shanghai'],
    ])
    const after = buildConversation([
      ...events,
      { seq: 3, time: 2_000, type: 'step/start', data: { turn: 1, step: 2 } },
      { seq: 4, time: 2_001, type: 'user/message', data: rpc('s1', 'also this', 'America/New_York'), surfaceOp: 'append' },
    ])
    expect(after.queued.map((i) => i.id)).toEqual(['q1'])
    expect(after.items).toMatchObject([{ kind: 'user', id: 's1', state: 'entered', mode: 'steer' }])
  })

  it('shows dropped messages where they were dropped', () => {
    const events = log(
      ev('inbox/enqueued', { target: 'next-turn', message: rpc('q1', 'never mind', 'UTC') }),
      ev('inbox/dropped', { ids: ['q1', 'unknown'], reason: 'cancel' }),
    )
    const conversation = buildConversation(events)
    expect(conversation.queued).toEqual([])
    expect(conversation.items).toMatchObject([{ kind: 'user', key: 'dropped:q1', id: 'q1', state: 'dropped', seq: 1 }])
  })

  it('labels a message without a browser zone with null', () => {
    const cli: UserMessage = { id: 'c1', role: 'user', content: text('from cli'), source: { kind: 'user' } }
    expect(buildConversation(log(ev('user/message', cli, 'append'))).items).toMatchObject([{ kind: 'user', zone: null }])
  })

  it('pairs tool calls with their results and hides empty assistant text', () => {
    const events = log(
      ev('assistant/message', {
        turn: 1,
        step: 1,
        id: 'a1',
        content: text(''),
        toolCalls: [{ callId: 'c1', name: 'schedule_list', arguments: '{}' }],
      }),
      ev('tool/call', { turn: 1, step: 1, callId: 'c1', name: 'schedule_list', arguments: '{}' }),
      ev('tool/result', { turn: 1, step: 1, callId: 'c1', content: text('[]') }),
      ev('tool/result', { turn: 1, step: 1, callId: 'orphan', content: text('x'), isError: true }),
    )
    expect(buildConversation(events).items).toEqual([
      {
        kind: 'tool',
        key: 'tool:1',
        seq: 1,
        time: 1_001,
        callId: 'c1',
        name: 'schedule_list',
        arguments: '{}',
        result: { text: '[]', isError: false },
        outcome: 'done',
      },
      {
        kind: 'tool',
        key: 'tool-result:3',
        seq: 3,
        time: 1_003,
        callId: 'orphan',
        name: 'tool',
        arguments: '',
        result: { text: 'x', isError: true },
        outcome: 'error',
      },
    ])
  })

  it('shows a tool call without a result as still running', () => {
    const events = log(ev('tool/call', { turn: 1, step: 1, callId: 'c1', name: 'slow', arguments: '' }))
    expect(buildConversation(events).items).toMatchObject([{ kind: 'tool', result: null, outcome: 'running' }])
  })

  it('renders a Schedule follow-up as a reminder-due card', () => {
    const message: UserMessage = { id: 'f1', role: 'user', content: text(FOLLOW_UP), source: { kind: 'plugin', plugin: 'schedule' } }
    expect(buildConversation(log(ev('user/message', message, 'append'))).items).toMatchObject([
      { kind: 'reminder-due', followUp: { reminders: [{ scheduleId: 'schedule-1', prompt: 'stretch' }] } },
    ])
  })

  it('merges a compaction summary and its replacing message into one divider', () => {
    const summaryMessage: UserMessage = { id: 'k1', role: 'user', content: text('summary text'), source: { kind: 'plugin', plugin: 'compact' } }
    const events = log(
      ev('compact/summary', { shadowedFrom: 0, shadowedTo: 5, summary: 'we talked' }),
      ev('user/message', summaryMessage, { op: 'replace', start: 0, end: 5 }),
    )
    expect(buildConversation(events).items).toEqual([
      { kind: 'compaction', key: 'compact:0', seq: 0, time: 1_000, summary: 'we talked', shadowedFrom: 0, shadowedTo: 5 },
    ])
  })

  it('shows other plugin messages as notes and abnormal turn ends as markers', () => {
    const note: UserMessage = { id: 'n1', role: 'user', content: text('note'), source: { kind: 'plugin', plugin: 'other' } }
    const events = log(
      ev('turn/start', { turn: 1 }),
      ev('user/message', note, 'append'),
      ev('turn/end', { turn: 1, reason: 'error', message: 'model down' }),
      ev('turn/start', { turn: 2 }),
      ev('turn/end', { turn: 2, reason: 'aborted' }),
    )
    expect(buildConversation(events).items).toEqual([
      { kind: 'plugin-note', key: 'plugin:1', seq: 1, time: 1_001, plugin: 'other', text: 'note' },
      { kind: 'turn-end', key: 'turn-end:2', seq: 2, time: 1_002, turn: 1, reason: 'error', message: 'model down', prompt: null },
      { kind: 'turn-end', key: 'turn-end:4', seq: 4, time: 1_004, turn: 2, reason: 'aborted', message: null, prompt: null },
    ])
  })

  it('keeps an unparsable time-context message as a reading without a card', () => {
    const bad: UserMessage = { id: 'b', role: 'user', content: text('nonsense'), source: { kind: 'plugin', plugin: 'time-context' } }
    expect(buildConversation(log(ev('user/message', bad, 'append'))).items).toMatchObject([{ kind: 'reading', card: null, text: 'nonsense' }])
  })

  it('shows a clarifying question from Schedule as a question, not an error', () => {
    const question = JSON.stringify({ code: 'timezone_confirmation_required', message: 'which zone?', sessionTimeZone: 'Europe/Berlin', clientTimeZones: ['America/New_York'] })
    const events = log(
      ev('tool/call', { turn: 1, step: 1, callId: 'c1', name: 'schedule_create', arguments: '{}' }),
      ev('tool/result', { turn: 1, step: 1, callId: 'c1', content: text(question), isError: true }),
    )
    expect(buildConversation(events).items).toMatchObject([{ kind: 'tool', outcome: 'question' }])
  })

  it('says a reading of a turn a reminder started was started by a reminder, and keeps the prompt of a failed turn for Retry', () => {
    const due: UserMessage = { id: 'f1', role: 'user', content: text(FOLLOW_UP), source: { kind: 'plugin', plugin: 'schedule' } }
    const events = log(
      ev('turn/start', { turn: 1 }),
      ev('step/start', { turn: 1, step: 1 }),
      ev('user/message', rpc('m1', 'plan my day', 'Asia/Shanghai'), 'append'),
      ev('user/message', reading, 'append'),
      ev('turn/end', { turn: 1, reason: 'error', message: 'interrupted: the host stopped during this turn' }),
      ev('turn/start', { turn: 2 }),
      ev('step/start', { turn: 2, step: 1 }),
      ev('user/message', due, 'append'),
      ev('user/message', reading, 'append'),
      ev('turn/end', { turn: 2, reason: 'completed' }),
    )
    const items = buildConversation(events).items
    expect(items.map((i) => (i.kind === 'reading' ? [i.kind, i.startedByReminder] : [i.kind]))).toEqual([
      ['user'],
      ['reading', false],
      ['turn-end'],
      ['reminder-due'],
      ['reading', true],
    ])
    expect(items[2]).toMatchObject({ kind: 'turn-end', turn: 1, reason: 'error', prompt: 'plan my day' })
  })
})

describe('foldEvents', () => {
  it('folds a log in any chunks into exactly what one pass gives', () => {
    const events = log(
      ...FIRST_STEP,
      ev('inbox/enqueued', { target: 'next-step', message: rpc('s1', 'also', 'America/New_York') }),
      ev('assistant/message', { turn: 1, step: 1, id: 'a1', content: text(''), toolCalls: [{ callId: 'c1', name: 'schedule_list', arguments: '{}' }] }),
      ev('tool/call', { turn: 1, step: 1, callId: 'c1', name: 'schedule_list', arguments: '{}' }),
      ev('tool/result', { turn: 1, step: 1, callId: 'c1', content: text('[]') }),
      ev('step/end', { turn: 1, step: 1 }),
      ev('step/start', { turn: 1, step: 2 }),
      ev('user/message', rpc('s1', 'also', 'America/New_York'), 'append'),
      ev('assistant/message', { turn: 1, step: 2, id: 'a2', content: text('done') }),
      ev('step/end', { turn: 1, step: 2 }),
      ev('turn/end', { turn: 1, reason: 'completed' }),
    )
    const whole = buildConversation(events)
    for (const size of [1, 2, 3, 5]) {
      const fold = emptyFold()
      for (let i = 0; i < events.length; i += size) foldEvents(fold, events.slice(i, i + size))
      expect({ items: fold.items, queued: queuedItems(fold), openTurn: fold.openTurn }).toEqual(whole)
    }
  })
})

describe('snoozes the log holds', () => {
  const due: UserMessage = { id: 'f1', role: 'user', content: text(FOLLOW_UP), source: { kind: 'plugin', plugin: 'schedule' } }
  const after = (id: string, prompt: string, scheduledAt: string) =>
    ev('schedule/change', { version: 1, operation: 'create', schedule: { id, kind: 'after', prompt, afterSeconds: 600, scheduledAt } })

  it('takes the first after reminder with the words of an occurrence come due as its snooze, once', () => {
    const fold = emptyFold()
    foldEvents(
      fold,
      log(
        // made before the occurrence came due: not its snooze
        after('schedule-2', 'stretch', '2026-07-15T01:20:00.000Z'),
        ev('user/message', due, 'append'),
        ev('schedule/change', { version: 1, operation: 'create', schedule: { id: 'schedule-3', kind: 'at', prompt: 'stretch', scheduledAt: '2026-07-16T01:30:00.000Z' } }),
        after('schedule-4', 'drink water', '2026-07-15T01:40:00.000Z'),
        after('schedule-5', 'stretch', '2026-07-15T01:40:00.000Z'),
        after('schedule-6', 'stretch', '2026-07-15T01:50:00.000Z'),
      ),
    )
    expect(fold.snoozes).toEqual([{ scheduleId: 'schedule-1', occurrenceAt: '2026-07-15T01:30:00.000Z', snoozeId: 'schedule-5', until: '2026-07-15T01:40:00.000Z', deleted: false }])
  })

  it('moves a snooze when its reminder is changed, in a new array with a new record, and by no other change', () => {
    const fold = emptyFold()
    foldEvents(fold, log(ev('user/message', due, 'append'), after('schedule-2', 'stretch', '2026-07-15T01:40:00.000Z')))
    const first = fold.snoozes
    const update = (id: string, scheduledAt: string) =>
      ev('schedule/change', { version: 1, operation: 'update', schedule: { id, kind: 'after', prompt: 'stretch', afterSeconds: 1800, scheduledAt } })
    foldEvents(fold, log(update('schedule-9', '2026-07-15T02:00:00.000Z'), ev('schedule/change', { version: 1, operation: 'delete', id: 'schedule-1' })).map((e) => ({ ...e, seq: e.seq + 2 })))
    expect(fold.snoozes).toBe(first)
    foldEvents(fold, log(update('schedule-2', '2026-07-15T02:05:00.000Z')).map((e) => ({ ...e, seq: e.seq + 4 })))
    expect(fold.snoozes).not.toBe(first)
    expect(fold.snoozes[0]).not.toBe(first[0])
    expect(first).toEqual([{ scheduleId: 'schedule-1', occurrenceAt: '2026-07-15T01:30:00.000Z', snoozeId: 'schedule-2', until: '2026-07-15T01:40:00.000Z', deleted: false }])
    expect(fold.snoozes).toEqual([{ scheduleId: 'schedule-1', occurrenceAt: '2026-07-15T01:30:00.000Z', snoozeId: 'schedule-2', until: '2026-07-15T02:05:00.000Z', deleted: false }])
  })

  it('leaves an occurrence snoozed no longer once its snooze is deleted, in a new array, and by no other delete', () => {
    const fold = emptyFold()
    foldEvents(fold, log(ev('user/message', due, 'append'), after('schedule-2', 'stretch', '2026-07-15T01:40:00.000Z')))
    const first = fold.snoozes
    const remove = (id: string) => ev('schedule/change', { version: 1, operation: 'delete', id })
    foldEvents(fold, log(remove('schedule-1')).map((e) => ({ ...e, seq: e.seq + 2 })))
    expect(fold.snoozes).toBe(first)
    foldEvents(fold, log(remove('schedule-2')).map((e) => ({ ...e, seq: e.seq + 3 })))
    expect(fold.snoozes).not.toBe(first)
    expect(fold.snoozes).toEqual([{ scheduleId: 'schedule-1', occurrenceAt: '2026-07-15T01:30:00.000Z', snoozeId: 'schedule-2', until: '2026-07-15T01:40:00.000Z', deleted: true }])
  })

  it('takes the next after reminder with its words made after its snooze was deleted as its snooze again, while it is the last come due', () => {
    const remove = (id: string) => ev('schedule/change', { version: 1, operation: 'delete', id })
    const fold = emptyFold()
    // the assistant asked to snooze it once more after the delete makes a new one (on the code before, its card still
    // said "Snooze deleted." while the assistant said when it comes back)
    foldEvents(fold, log(ev('user/message', due, 'append'), after('schedule-2', 'stretch', '2026-07-15T01:40:00.000Z'), remove('schedule-2'), after('schedule-3', 'stretch', '2026-07-15T01:50:00.000Z'), after('schedule-4', 'stretch', '2026-07-15T02:00:00.000Z')))
    expect(fold.snoozes).toEqual([
      { scheduleId: 'schedule-1', occurrenceAt: '2026-07-15T01:30:00.000Z', snoozeId: 'schedule-2', until: '2026-07-15T01:40:00.000Z', deleted: true },
      { scheduleId: 'schedule-1', occurrenceAt: '2026-07-15T01:30:00.000Z', snoozeId: 'schedule-3', until: '2026-07-15T01:50:00.000Z', deleted: false },
    ])
    // once a later occurrence with its words came due, deleting the earlier one's snooze leaves that later one to be snoozed
    const later = text(FOLLOW_UP.replace('schedule-1', 'schedule-5').replace('01:30:00', '02:30:00'))
    const other = emptyFold()
    foldEvents(
      other,
      log(
        ev('user/message', due, 'append'),
        after('schedule-2', 'stretch', '2026-07-15T01:40:00.000Z'),
        ev('user/message', { ...due, id: 'f2', content: later }, 'append'),
        after('schedule-6', 'stretch', '2026-07-15T02:40:00.000Z'),
        remove('schedule-2'),
        after('schedule-7', 'stretch', '2026-07-15T02:50:00.000Z'),
      ),
    )
    expect(other.snoozes).toEqual([
      { scheduleId: 'schedule-1', occurrenceAt: '2026-07-15T01:30:00.000Z', snoozeId: 'schedule-2', until: '2026-07-15T01:40:00.000Z', deleted: true },
      { scheduleId: 'schedule-5', occurrenceAt: '2026-07-15T02:30:00.000Z', snoozeId: 'schedule-6', until: '2026-07-15T02:40:00.000Z', deleted: false },
    ])
  })
})

describe('zones the log holds', () => {
  it('records the zone of each reminder made or changed, and none for one that keeps no zone', () => {
    const fold = emptyFold()
    const calendar = { id: 'schedule-1', kind: 'calendar', prompt: 'chai', rrule: 'FREQ=DAILY;BYHOUR=20', timeZone: 'Asia/Kolkata', starts: '2026-07-15', catchUp: 'latest', scheduledAt: '2026-07-15T14:30:00.000Z' }
    foldEvents(
      fold,
      log(
        ev('schedule/change', { version: 1, operation: 'create', schedule: calendar }),
        ev('schedule/change', { version: 1, operation: 'create', schedule: { id: 'schedule-2', kind: 'after', prompt: 'stretch', afterSeconds: 600, scheduledAt: '2026-07-15T01:40:00.000Z' } }),
        ev('schedule/change', { version: 1, operation: 'create', schedule: { id: 'schedule-3', kind: 'at', prompt: 'call', scheduledAt: '2026-07-16T01:30:00.000Z', timeZone: 'Europe/Berlin' } }),
        ev('schedule/change', { version: 1, operation: 'update', id: 'schedule-1', schedule: { ...calendar, timeZone: 'Asia/Tokyo' } }),
        ev('schedule/change', { version: 1, operation: 'dispatch', id: 'schedule-3' }),
      ),
    )
    expect([...fold.zones]).toEqual([
      ['schedule-1', 'Asia/Tokyo'],
      ['schedule-2', null],
      ['schedule-3', 'Europe/Berlin'],
    ])
  })
})

import { sessionScheduleFold } from '../../src/schedule/session-state.ts'
import { describe, expect, it, vi } from 'vitest'
import type { ScheduleRecord } from '../../src/protocol/wire.ts'
import { occurrencesAfter } from '../../src/schedule/calendar.ts'
import { createChange, deleteChange, dispatchChange } from '../../src/schedule/changes.ts'
import { ScheduleError } from '../../src/schedule/errors.ts'
import {
  applyScheduleEvent,
  dueOccurrences,
  emptyScheduleState,
  findActive,
  foldSchedule,
  nextDueAt,
  nextScheduleId,
  NO_HISTORY,
  viewOf,
  views,
  type ActiveSchedule,
  type ScheduleHistory,
  type ScheduleState,
} from '../../src/schedule/fold.ts'
import { header, LogBuilder as Log, rpcMessage } from '../support/log-builder.ts'

// the calendar expansion as it is, its searches for upcoming occurrences counted
vi.mock('../../src/schedule/calendar.ts', async (importOriginal) => {
  const calendar = await importOriginal<typeof import('../../src/schedule/calendar.ts')>()
  return { ...calendar, occurrencesAfter: vi.fn(calendar.occurrencesAfter) }
})

const at = (value: string): number => Date.parse(value)

const tea: ScheduleRecord = { id: 'schedule-1', kind: 'after', prompt: 'tea', afterSeconds: 60, scheduledAt: '2026-07-15T09:01:00.000Z' }
const water: ScheduleRecord = { id: 'schedule-2', kind: 'every', prompt: 'water', everySeconds: 300, scheduledAt: '2026-07-15T09:05:00.000Z' }
const call: ScheduleRecord = { id: 'schedule-3', kind: 'at', prompt: 'call', scheduledAt: '2026-07-15T10:00:00.000Z' }

function entry(record: ScheduleRecord, target = record.scheduledAt, history: ScheduleHistory = NO_HISTORY): ActiveSchedule {
  return { record, target: Date.parse(target), history }
}

const delivered = (at: string, deliveries = 1, missed = 0): ScheduleHistory => ({ deliveries, lastDeliveredAt: at, missed })

function fold(log: Log): unknown {
  const result = foldSchedule(log.events)
  return result.ok ? result.value : result.error.toToolError()
}

function corrupt(seq: number, reason: string): unknown {
  return { code: 'corrupt_schedule_log', message: `schedule log is corrupt at seq ${seq}: ${reason}`, seq }
}

function threeCreated(): Log {
  return new Log().change(createChange(tea)).change(createChange(water)).change(createChange(call))
}

describe('foldSchedule: creating', () => {
  it('starts empty with schedule-1 next', () => {
    expect(fold(new Log())).toEqual({ active: [], nextIdNumber: 1 })
    expect(nextScheduleId(emptyScheduleState)).toBe('schedule-1')
  })

  it('keeps active reminders in creation order and the next id after the largest', () => {
    const state = foldSchedule(threeCreated().events)
    expect(state).toEqual({ ok: true, value: { active: [entry(tea), entry(water), entry(call)], nextIdNumber: 4 } })
    expect(state.ok && nextScheduleId(state.value)).toBe('schedule-4')
  })

  it('ignores every other event type and returns the same state object', () => {
    const state: ScheduleState = { active: [entry(tea)], nextIdNumber: 2 }
    const log = new Log().turnStart(1).stepStart(1, 1).message(rpcMessage('m', 'UTC')).stepEnd(1, 1).turnEnd(1)
    for (const event of log.events) {
      const step = applyScheduleEvent(state, event)
      expect(step.ok && step.value === state).toBe(true)
    }
  })

  it('continues numbering after a gap', () => {
    expect(fold(new Log().change(createChange({ ...call, id: 'schedule-7' })))).toEqual({
      active: [entry({ ...call, id: 'schedule-7' })],
      nextIdNumber: 8,
    })
  })

  it('never reuses an id, even after it was deleted', () => {
    const log = new Log().change(createChange(tea)).change(deleteChange('schedule-1')).change(createChange(tea))
    expect(fold(log)).toEqual(corrupt(2, 'create of "schedule-1" is not after the last created id (the next free id is schedule-2)'))
  })

  it('refuses an id lower than one already created', () => {
    const log = new Log().change(createChange(call)).change(createChange(water))
    expect(fold(log)).toEqual(corrupt(1, 'create of "schedule-2" is not after the last created id (the next free id is schedule-4)'))
  })
})

describe('foldSchedule: deleting', () => {
  it('removes the reminder and keeps the id used', () => {
    expect(fold(threeCreated().change(deleteChange('schedule-2')))).toEqual({ active: [entry(tea), entry(call)], nextIdNumber: 4 })
  })

  it('refuses deleting an unknown id', () => {
    expect(fold(threeCreated().change(deleteChange('schedule-9')))).toEqual(
      corrupt(3, 'delete of "schedule-9", which is not an active reminder'),
    )
  })

  it('refuses deleting twice', () => {
    expect(fold(threeCreated().change(deleteChange('schedule-3')).change(deleteChange('schedule-3')))).toEqual(
      corrupt(4, 'delete of "schedule-3", which is not an active reminder'),
    )
  })

  it('refuses deleting a dispatched one-shot', () => {
    expect(fold(threeCreated().change(dispatchChange('schedule-1', null)).change(deleteChange('schedule-1')))).toEqual(
      corrupt(4, 'delete of "schedule-1", which is not an active reminder'),
    )
  })
})

describe('foldSchedule: dispatching', () => {
  it('finishes a one-shot', () => {
    expect(fold(threeCreated().change(dispatchChange('schedule-1', null)))).toEqual({ active: [entry(water), entry(call)], nextIdNumber: 4 })
  })

  it('refuses dispatching a finished one-shot again', () => {
    expect(fold(threeCreated().change(dispatchChange('schedule-3', null)).change(dispatchChange('schedule-3', null)))).toEqual(
      corrupt(4, 'dispatch of "schedule-3", which is not an active reminder'),
    )
  })

  it('refuses dispatching an unknown or deleted id', () => {
    expect(fold(threeCreated().change(dispatchChange('schedule-4', null)))).toEqual(
      corrupt(3, 'dispatch of "schedule-4", which is not an active reminder'),
    )
    expect(fold(threeCreated().change(deleteChange('schedule-2')).change(dispatchChange('schedule-2', '2026-07-15T09:05:00.000Z')))).toEqual(
      corrupt(4, 'dispatch of "schedule-2", which is not an active reminder'),
    )
  })

  it('refuses acceptedAt on a one-shot and its absence on a recurring reminder', () => {
    expect(fold(threeCreated().change(dispatchChange('schedule-1', '2026-07-15T09:01:00.000Z')))).toEqual(
      corrupt(3, 'dispatch of one-shot reminder "schedule-1" must not carry acceptedAt'),
    )
    expect(fold(threeCreated().change(dispatchChange('schedule-2', null)))).toEqual(
      corrupt(3, 'dispatch of recurring reminder "schedule-2" needs acceptedAt'),
    )
  })

  it('advances a recurring reminder to the next anchored target and keeps its place', () => {
    expect(fold(threeCreated().change(dispatchChange('schedule-2', '2026-07-15T09:05:00.010Z')))).toEqual({
      active: [entry(tea), entry(water, '2026-07-15T09:10:00.000Z', delivered('2026-07-15T09:05:00.010Z')), entry(call)],
      nextIdNumber: 4,
    })
  })

  it('catches up a late recurring reminder without replaying missed targets', () => {
    expect(fold(threeCreated().change(dispatchChange('schedule-2', '2026-07-15T09:27:34.000Z')))).toEqual({
      active: [entry(tea), entry(water, '2026-07-15T09:30:00.000Z', delivered('2026-07-15T09:27:34.000Z')), entry(call)],
      nextIdNumber: 4,
    })
  })

  it('refuses a recurring dispatch accepted before its target', () => {
    expect(fold(threeCreated().change(dispatchChange('schedule-2', '2026-07-15T09:04:59.999Z')))).toEqual(
      corrupt(3, 'dispatch of "schedule-2" accepted at 2026-07-15T09:04:59.999Z, before its target 2026-07-15T09:05:00.000Z'),
    )
  })

  it('finishes a recurring reminder whose next target would pass year 9999', () => {
    const late: ScheduleRecord = { ...water, scheduledAt: '9999-12-31T23:58:00.000Z' }
    expect(fold(new Log().change(createChange(late)).change(dispatchChange('schedule-2', '9999-12-31T23:58:00.000Z')))).toEqual({
      active: [],
      nextIdNumber: 3,
    })
  })
})

describe('foldSchedule: malformed changes', () => {
  it('reports the seq of an unknown version among other events', () => {
    const log = new Log().turnStart(1).change(createChange(tea)).change({ version: 2, operation: 'delete', id: 'schedule-1' })
    expect(fold(log)).toEqual(corrupt(2, 'unsupported change version 2'))
  })

  it('reports extra keys', () => {
    expect(fold(new Log().change({ ...createChange(tea), note: 'x' }))).toEqual(
      corrupt(0, 'a create change must have exactly the keys version, operation, schedule'),
    )
  })

  it('stops at the first refused change', () => {
    const log = new Log().change(deleteChange('schedule-1')).change({ version: 3 })
    expect(fold(log)).toEqual(corrupt(0, 'delete of "schedule-1", which is not an active reminder'))
  })
})

describe('sessionScheduleFold (incremental, per session)', () => {
  it('starts empty', () => {
    expect(sessionScheduleFold.init(header('UTC'))).toEqual({ ok: true, state: { active: [], nextIdNumber: 1 } })
  })

  it('matches the whole-log fold when applied event by event', () => {
    const log = threeCreated().turnStart(1).change(dispatchChange('schedule-2', '2026-07-15T09:06:00.000Z')).change(deleteChange('schedule-3'))
    let state = sessionScheduleFold.init(header('UTC'))
    for (const event of log.events) state = sessionScheduleFold.apply(state, event)
    const whole = foldSchedule(log.events)
    expect(whole.ok && state.ok && state.state).toEqual(whole.ok && whole.value)
  })

  it('records corruption instead of throwing, and stays corrupt', () => {
    const log = new Log().change(createChange(tea)).change(deleteChange('schedule-5')).change(createChange(water))
    let state = sessionScheduleFold.init(header('UTC'))
    for (const event of log.events) state = sessionScheduleFold.apply(state, event)
    expect(state.ok).toBe(false)
    expect(!state.ok && state.error.toToolError()).toEqual(corrupt(1, 'delete of "schedule-5", which is not an active reminder'))
  })

  it('passes other events through untouched', () => {
    const state = sessionScheduleFold.init(header('UTC'))
    expect(sessionScheduleFold.apply(state, new Log().turnStart(1).events[0])).toBe(state)
  })
})

describe('views', () => {
  const state: ScheduleState = { active: [entry(tea), entry(water), entry(call)], nextIdNumber: 4 }

  it('shows each active record with its state, zone, local time, upcoming occurrences and history, in creation order', () => {
    const history = { deliveries: 0, lastDeliveredAt: null, missed: 0 }
    expect(views(state, at('2026-07-15T09:01:00.000Z'), 'Asia/Shanghai')).toEqual([
      { ...tea, state: 'overdue', deliveryMode: 'session-local', timeZone: 'Asia/Shanghai', scheduledAtLocal: '2026-07-15T17:01:00+08:00[Asia/Shanghai]', upcoming: [tea.scheduledAt], ...history },
      {
        ...water,
        state: 'scheduled',
        deliveryMode: 'session-local',
        timeZone: 'Asia/Shanghai',
        scheduledAtLocal: '2026-07-15T17:05:00+08:00[Asia/Shanghai]',
        upcoming: ['2026-07-15T09:05:00.000Z', '2026-07-15T09:10:00.000Z', '2026-07-15T09:15:00.000Z', '2026-07-15T09:20:00.000Z', '2026-07-15T09:25:00.000Z'],
        ...history,
      },
      { ...call, state: 'scheduled', deliveryMode: 'session-local', timeZone: 'Asia/Shanghai', scheduledAtLocal: '2026-07-15T18:00:00+08:00[Asia/Shanghai]', upcoming: [call.scheduledAt], ...history },
    ])
  })

  it('shows a reminder of a headerless Session in UTC with no zone, and a local at in the zone it was read in', () => {
    expect(viewOf(entry(tea), 0, null)).toMatchObject({ timeZone: null, scheduledAtLocal: '2026-07-15T09:01:00+00:00[UTC]' })
    const local = entry({ ...call, timeZone: 'Pacific/Chatham' })
    expect(viewOf(local, 0, 'Europe/Berlin')).toMatchObject({ timeZone: 'Pacific/Chatham', scheduledAtLocal: '2026-07-15T22:45:00+12:45[Pacific/Chatham]' })
  })

  it('is overdue exactly at scheduledAt and scheduled one millisecond before', () => {
    expect(viewOf(entry(call), at('2026-07-15T09:59:59.999Z'), 'UTC').state).toBe('scheduled')
    expect(viewOf(entry(call), at('2026-07-15T10:00:00.000Z'), 'UTC').state).toBe('overdue')
  })

  it('serialises with the record keys first', () => {
    expect(JSON.stringify(viewOf(entry(call), 0, 'UTC'))).toBe(
      '{"id":"schedule-3","kind":"at","prompt":"call","scheduledAt":"2026-07-15T10:00:00.000Z","state":"scheduled","deliveryMode":"session-local","timeZone":"UTC","scheduledAtLocal":"2026-07-15T10:00:00+00:00[UTC]","upcoming":["2026-07-15T10:00:00.000Z"],"deliveries":0,"lastDeliveredAt":null,"missed":0}',
    )
  })

  it('is empty without active reminders', () => {
    expect(views(emptyScheduleState, 0, 'UTC')).toEqual([])
  })

  it('expands a calendar rule for its upcoming occurrences once per record and target, however often it is listed', () => {
    const searches = vi.mocked(occurrencesAfter)
    const weekdays: ScheduleRecord = {
      id: 'schedule-4',
      kind: 'calendar',
      prompt: 'stand up',
      rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30',
      timeZone: 'Europe/Berlin',
      starts: '2026-07-15',
      catchUp: 'latest',
      scheduledAt: '2026-07-15T06:30:00.000Z',
    }
    searches.mockClear()
    const first = viewOf(entry(weekdays), 0, 'UTC')
    expect(first.upcoming).toEqual(['2026-07-15T06:30:00.000Z', '2026-07-16T06:30:00.000Z', '2026-07-17T06:30:00.000Z', '2026-07-20T06:30:00.000Z', '2026-07-21T06:30:00.000Z'])
    expect(searches).toHaveBeenCalledTimes(1)
    // on the code before, each view expanded the rule again (a rare rule's expansion took a good part of a second)
    const entryOnce = entry(weekdays)
    expect(viewOf(entryOnce, 0, 'UTC').upcoming).toEqual(first.upcoming)
    expect(viewOf(entryOnce, 1, 'UTC').upcoming).toEqual(first.upcoming)
    expect(searches).toHaveBeenCalledTimes(1)
    // the next target is another question
    expect(viewOf({ ...entryOnce, target: at('2026-07-16T06:30:00.000Z') }, 0, 'UTC').upcoming[0]).toBe('2026-07-16T06:30:00.000Z')
    expect(searches).toHaveBeenCalledTimes(2)
  })
})

describe('findActive, nextDueAt and dueOccurrences', () => {
  const state: ScheduleState = { active: [entry(call), entry(water), entry(tea)], nextIdNumber: 4 }

  it('finds only active ids', () => {
    expect(findActive(state, 'schedule-2')).toEqual(entry(water))
    expect(findActive(state, 'schedule-4')).toBeUndefined()
  })

  it('gives the earliest target', () => {
    expect(nextDueAt(state)).toBe(at('2026-07-15T09:01:00.000Z'))
    expect(nextDueAt(emptyScheduleState)).toBeNull()
  })

  it('lists every reminder due at a decision, one occurrence each, in creation order', () => {
    expect(dueOccurrences(state, at('2026-07-15T10:12:00.000Z'))).toEqual([
      { id: 'schedule-3', prompt: 'call', plan: { deliver: [at('2026-07-15T10:00:00.000Z')], missed: 0 }, acceptedAt: null },
      { id: 'schedule-2', prompt: 'water', plan: { deliver: [at('2026-07-15T10:10:00.000Z')], missed: 13 }, acceptedAt: '2026-07-15T10:12:00.000Z' },
      { id: 'schedule-1', prompt: 'tea', plan: { deliver: [at('2026-07-15T09:01:00.000Z')], missed: 0 }, acceptedAt: null },
    ])
    expect(dueOccurrences(state, at('2026-07-15T09:00:59.999Z'))).toEqual([])
  })

  it('never delivers a dispatched one-shot again after a restart (re-fold of the same log)', () => {
    const log = threeCreated().change(dispatchChange('schedule-1', null))
    const refolded = foldSchedule(log.events)
    expect(refolded.ok && dueOccurrences(refolded.value, at('2026-07-15T09:30:00.000Z'))).toEqual([
      { id: 'schedule-2', prompt: 'water', plan: { deliver: [at('2026-07-15T09:30:00.000Z')], missed: 5 }, acceptedAt: '2026-07-15T09:30:00.000Z' },
    ])
  })

  it('delivers a recurring reminder once per decision: after the dispatch, nothing is due until the next target', () => {
    const decision = at('2026-07-15T09:27:34.000Z')
    const first = foldSchedule(new Log().change(createChange(water)).events)
    const due = first.ok ? dueOccurrences(first.value, decision) : []
    expect(due).toEqual([
      { id: 'schedule-2', prompt: 'water', plan: { deliver: [at('2026-07-15T09:25:00.000Z')], missed: 4 }, acceptedAt: '2026-07-15T09:27:34.000Z' },
    ])
    const after = foldSchedule(new Log().change(createChange(water)).change(dispatchChange('schedule-2', due[0].acceptedAt, due[0].plan.missed)).events)
    expect(after.ok && dueOccurrences(after.value, decision)).toEqual([])
    expect(after.ok && nextDueAt(after.value)).toBe(at('2026-07-15T09:30:00.000Z'))
  })
})

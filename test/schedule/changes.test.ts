import { describe, expect, it } from 'vitest'
import type { ScheduleRecord } from '../../src/protocol/wire.ts'
import {
  createChange,
  decodeScheduleChange,
  deleteChange,
  dispatchChange,
  scheduleChangeDraft,
  scheduleId,
  scheduleIdNumber,
} from '../../src/schedule/changes.ts'

const after: ScheduleRecord = { id: 'schedule-1', kind: 'after', prompt: 'tea', afterSeconds: 60, scheduledAt: '2026-07-15T09:01:00.000Z' }
const once: ScheduleRecord = { id: 'schedule-2', kind: 'at', prompt: 'call', scheduledAt: '2026-07-15T10:00:00.000Z' }
const every: ScheduleRecord = { id: 'schedule-3', kind: 'every', prompt: 'water', everySeconds: 300, scheduledAt: '2026-07-15T09:05:00.000Z' }

const refused = (reason: string): unknown => ({ ok: false, reason })

describe('ids', () => {
  it('are schedule-<n>', () => {
    expect(scheduleId(12)).toBe('schedule-12')
    expect(scheduleIdNumber('schedule-12')).toBe(12)
  })

  it.each(['schedule-0', 'schedule-01', 'schedule-', 'Schedule-1', 'sched-1', 'schedule-1 ', 'schedule--1', 'schedule-1.5', 'schedule-9007199254740993'])(
    'rejects %j',
    (id) => {
      expect(scheduleIdNumber(id)).toBeNull()
    },
  )

  it('rejects non-strings', () => {
    expect(scheduleIdNumber(1)).toBeNull()
  })
})

describe('change constructors', () => {
  it('build exact change data and drafts', () => {
    expect(createChange(once)).toEqual({ version: 1, operation: 'create', schedule: once })
    expect(deleteChange('schedule-2')).toEqual({ version: 1, operation: 'delete', id: 'schedule-2' })
    expect(dispatchChange('schedule-2', null)).toEqual({ version: 1, operation: 'dispatch', id: 'schedule-2' })
    expect(dispatchChange('schedule-3', '2026-07-15T09:05:00.000Z')).toEqual({
      version: 1,
      operation: 'dispatch',
      id: 'schedule-3',
      acceptedAt: '2026-07-15T09:05:00.000Z',
    })
    expect(scheduleChangeDraft(deleteChange('schedule-2'))).toEqual({
      type: 'schedule/change',
      data: { version: 1, operation: 'delete', id: 'schedule-2' },
    })
  })
})

describe('decodeScheduleChange: accepted', () => {
  it.each([
    ['create after', { version: 1, operation: 'create', schedule: after }],
    ['create at', { version: 1, operation: 'create', schedule: once }],
    ['create every', { version: 1, operation: 'create', schedule: every }],
    ['delete', { version: 1, operation: 'delete', id: 'schedule-2' }],
    ['one-shot dispatch', { version: 1, operation: 'dispatch', id: 'schedule-2' }],
    ['recurring dispatch', { version: 1, operation: 'dispatch', id: 'schedule-3', acceptedAt: '2026-07-15T09:05:00.000Z' }],
  ])('%s', (_name, data) => {
    expect(decodeScheduleChange(data)).toEqual({ ok: true, change: data })
  })

  it('copies the data instead of keeping the decoded object', () => {
    const data = { version: 1, operation: 'create', schedule: { ...once } }
    const decoded = decodeScheduleChange(data)
    expect(decoded.ok && decoded.change.operation === 'create' && decoded.change.schedule !== data.schedule).toBe(true)
  })
})

describe('decodeScheduleChange: envelope', () => {
  it.each([
    ['null', null, 'change data must be a JSON object'],
    ['an array', [], 'change data must be a JSON object'],
    ['a string', 'create', 'change data must be a JSON object'],
    ['version 2', { version: 2, operation: 'delete', id: 'schedule-1' }, 'unsupported change version 2'],
    ['version "1"', { version: '1', operation: 'delete', id: 'schedule-1' }, 'unsupported change version "1"'],
    ['no version', { operation: 'delete', id: 'schedule-1' }, 'unsupported change version undefined'],
    ['an unknown operation', { version: 1, operation: 'replace', id: 'schedule-1' }, 'unknown change operation "replace"'],
    ['no operation', { version: 1, id: 'schedule-1' }, 'unknown change operation undefined'],
  ])('refuses %s', (_name, data, reason) => {
    expect(decodeScheduleChange(data)).toEqual(refused(reason))
  })
})

describe('decodeScheduleChange: create', () => {
  const create = (schedule: unknown, extra: Record<string, unknown> = {}): unknown =>
    decodeScheduleChange({ version: 1, operation: 'create', schedule, ...extra })

  it('refuses extra or missing envelope keys', () => {
    expect(create(once, { id: 'schedule-2' })).toEqual(refused('a create change must have exactly the keys version, operation, schedule'))
    expect(decodeScheduleChange({ version: 1, operation: 'create' })).toEqual(
      refused('a create change must have exactly the keys version, operation, schedule'),
    )
  })

  it.each([
    ['null', null, 'schedule must be a JSON object'],
    ['an array', [once], 'schedule must be a JSON object'],
    ['an unknown kind', { ...once, kind: 'cron' }, 'unknown schedule kind "cron"'],
    ['an extra key', { ...once, everySeconds: 300 }, 'a schedule of kind at must have exactly the keys id, kind, prompt, scheduledAt and optionally timeZone'],
    ['an invalid zone', { ...once, timeZone: 'Mars/Olympus' }, 'timeZone must be an IANA time zone'],
    ['a key of another kind', { ...after, everySeconds: 300 }, 'a schedule of kind after must have exactly the keys id, kind, prompt, afterSeconds, scheduledAt'],
    ['a missing key', { id: 'schedule-3', kind: 'every', prompt: 'x', scheduledAt: every.scheduledAt }, 'a schedule of kind every must have exactly the keys id, kind, prompt, everySeconds, scheduledAt and optionally catchUp'],
    ['an unknown catch-up', { ...every, catchUp: 'some' }, 'catchUp must be latest, all or skip'],
    ['a malformed id', { ...once, id: 'schedule-02' }, 'schedule id must be schedule-<n>'],
    ['a numeric id', { ...once, id: 2 }, 'schedule id must be schedule-<n>'],
    ['an empty prompt', { ...once, prompt: '' }, 'schedule prompt must be a non-empty string'],
    ['a blank prompt', { ...once, prompt: '  ' }, 'schedule prompt must be a non-empty string'],
    ['a non-string prompt', { ...once, prompt: 1 }, 'schedule prompt must be a non-empty string'],
    ['scheduledAt without milliseconds', { ...once, scheduledAt: '2026-07-15T10:00:00Z' }, 'scheduledAt must be a canonical UTC instant between years 0001 and 9999'],
    ['scheduledAt with an offset', { ...once, scheduledAt: '2026-07-15T12:00:00.000+02:00' }, 'scheduledAt must be a canonical UTC instant between years 0001 and 9999'],
    ['scheduledAt as a number', { ...once, scheduledAt: 1_784_109_600_000 }, 'scheduledAt must be a canonical UTC instant between years 0001 and 9999'],
    ['scheduledAt past year 9999', { ...once, scheduledAt: '+010000-01-01T00:00:00.000Z' }, 'scheduledAt must be a canonical UTC instant between years 0001 and 9999'],
    ['afterSeconds 0', { ...after, afterSeconds: 0 }, 'afterSeconds must be a positive safe integer'],
    ['afterSeconds 1.5', { ...after, afterSeconds: 1.5 }, 'afterSeconds must be a positive safe integer'],
    ['afterSeconds "60"', { ...after, afterSeconds: '60' }, 'afterSeconds must be a positive safe integer'],
    ['everySeconds 299', { ...every, everySeconds: 299 }, 'everySeconds must be a safe integer of at least 300'],
    ['everySeconds 300.5', { ...every, everySeconds: 300.5 }, 'everySeconds must be a safe integer of at least 300'],
  ])('refuses a record with %s', (_name, schedule, reason) => {
    expect(create(schedule)).toEqual(refused(reason))
  })
})

describe('decodeScheduleChange: delete and dispatch', () => {
  it.each([
    ['delete with an extra key', { version: 1, operation: 'delete', id: 'schedule-1', reason: 'x' }, 'a delete change must have exactly the keys version, operation, id'],
    ['delete without id', { version: 1, operation: 'delete' }, 'a delete change must have exactly the keys version, operation, id'],
    ['delete with a malformed id', { version: 1, operation: 'delete', id: 'schedule-x' }, 'change id must be schedule-<n>'],
    ['dispatch with an extra key', { version: 1, operation: 'dispatch', id: 'schedule-1', at: 'x' }, 'a dispatch change must have exactly the keys version, operation, id, optionally acceptedAt, and missed only with acceptedAt'],
    ['dispatch with missed but no acceptedAt', { version: 1, operation: 'dispatch', id: 'schedule-1', missed: 2 }, 'a dispatch change must have exactly the keys version, operation, id, optionally acceptedAt, and missed only with acceptedAt'],
    ['dispatch with missed 0', { version: 1, operation: 'dispatch', id: 'schedule-1', acceptedAt: '2026-07-15T09:05:00.000Z', missed: 0 }, 'missed must be a positive safe integer'],
    ['dispatch with missed 1.5', { version: 1, operation: 'dispatch', id: 'schedule-1', acceptedAt: '2026-07-15T09:05:00.000Z', missed: 1.5 }, 'missed must be a positive safe integer'],
    ['update with an extra key', { version: 1, operation: 'update', id: 'schedule-1', schedule: { id: 'schedule-1', kind: 'at', prompt: 'x', scheduledAt: '2026-07-15T09:05:00.000Z' }, note: 1 }, 'an update change must have exactly the keys version, operation, id, schedule'],
    ['update changing the id', { version: 1, operation: 'update', id: 'schedule-1', schedule: { id: 'schedule-2', kind: 'at', prompt: 'x', scheduledAt: '2026-07-15T09:05:00.000Z' } }, 'an update of "schedule-1" must keep its id'],
    ['dispatch with a malformed id', { version: 1, operation: 'dispatch', id: 7 }, 'change id must be schedule-<n>'],
    ['dispatch with acceptedAt null', { version: 1, operation: 'dispatch', id: 'schedule-1', acceptedAt: null }, 'acceptedAt must be a canonical UTC instant between years 0001 and 9999'],
    ['dispatch with a non-canonical acceptedAt', { version: 1, operation: 'dispatch', id: 'schedule-1', acceptedAt: '2026-07-15T09:05:00Z' }, 'acceptedAt must be a canonical UTC instant between years 0001 and 9999'],
  ])('refuses %s', (_name, data, reason) => {
    expect(decodeScheduleChange(data)).toEqual(refused(reason))
  })
})

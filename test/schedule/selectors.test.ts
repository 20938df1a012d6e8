import { describe, expect, it } from 'vitest'
import { canonicalTimeZone } from '../../src/protocol/time-zone.ts'
import { MAX_INSTANT_MS } from '../../src/schedule/absolute-time.ts'
import { timezoneConfirmationRequired } from '../../src/schedule/errors.ts'
import type { ImplicitZoneResult } from '../../src/schedule/implicit-zone.ts'
import {
  createRecord,
  parseCreateArgs,
  parseDeleteArgs,
  parseListArgs,
  type CreateContext,
} from '../../src/schedule/selectors.ts'

const NOW = Date.parse('2026-07-15T09:00:00.000Z')
const AT_FORMS =
  'an RFC 3339 timestamp such as "2026-07-15T09:30:00Z" or "2026-07-15T09:30:00+08:00", or an object {"date": "YYYY-MM-DD", "time": "HH:mm:ss", "time_zone"?: IANA zone}'
const ONE_SELECTOR = 'exactly one of after_seconds, at, every_seconds, rrule is required'

type Probe = { context: CreateContext; calls: () => number }

function probe(result: ImplicitZoneResult = { ok: true, timeZone: 'Asia/Shanghai' }, now = NOW): Probe {
  let calls = 0
  return {
    context: {
      now,
      nextId: 'schedule-4',
      implicitZone: () => {
        calls += 1
        return result
      },
    },
    calls: () => calls,
  }
}

function create(args: unknown, context: CreateContext = probe().context): unknown {
  const result = createRecord(args, context)
  return result.ok ? result.value : result.error.toToolError()
}

const error = (code: string, message: string): unknown => ({ code, message })

describe('createRecord: argument shape', () => {
  it.each([null, [], 'remind me', 5, true, undefined, new Date(0)])('rejects %j as arguments', (args) => {
    expect(create(args)).toEqual(error('invalid_selector', 'schedule_create arguments must be a JSON object'))
  })

  it('rejects unknown top-level keys, naming every one, before anything else', () => {
    expect(create({ foo: 1, prompt: '', bar: 2 })).toEqual(
      error(
        'invalid_selector',
        'schedule_create does not accept "foo", "bar"; it takes prompt, exactly one of after_seconds, at, every_seconds, rrule, and for a recurring reminder time_zone, starts, catch_up',
      ),
    )
  })

  it('accepts an object without a prototype', () => {
    const args = Object.assign(Object.create(null) as Record<string, unknown>, { prompt: 'x', after_seconds: 1 })
    expect(create(args)).toEqual({
      id: 'schedule-4',
      kind: 'after',
      prompt: 'x',
      afterSeconds: 1,
      scheduledAt: '2026-07-15T09:00:01.000Z',
    })
  })
})

describe('createRecord: prompt', () => {
  it.each([
    ['missing', {}],
    ['empty', { prompt: '' }],
    ['blank', { prompt: ' \n\t ' }],
    ['a number', { prompt: 5 }],
    ['null', { prompt: null }],
    ['an array', { prompt: ['x'] }],
  ])('rejects a prompt that is %s', (_name, args) => {
    expect(create({ ...args, after_seconds: 60 })).toEqual(error('invalid_prompt', 'prompt must be a non-empty string'))
  })

  it('rejects a prompt holding U+0000, as a message and a title do (on the code before, it was kept)', () => {
    expect(create({ prompt: 'water\u0000the plants', after_seconds: 60 })).toEqual(error('invalid_prompt', 'prompt must not contain the character U+0000'))
  })

  it('is checked before the selectors', () => {
    expect(create({ prompt: ' ' })).toEqual(error('invalid_prompt', 'prompt must be a non-empty string'))
  })

  it('stores the prompt trimmed and keeps inner whitespace', () => {
    expect(create({ prompt: '  stand up\n  and stretch \n', after_seconds: 60 })).toEqual({
      id: 'schedule-4',
      kind: 'after',
      prompt: 'stand up\n  and stretch',
      afterSeconds: 60,
      scheduledAt: '2026-07-15T09:01:00.000Z',
    })
  })
})

describe('createRecord: exactly one selector', () => {
  it('rejects none', () => {
    expect(create({ prompt: 'x' })).toEqual(error('invalid_selector', `${ONE_SELECTOR}, got none`))
  })

  it('rejects two or three, naming them', () => {
    expect(create({ prompt: 'x', every_seconds: 300, after_seconds: 60 })).toEqual(
      error('invalid_selector', `${ONE_SELECTOR}, got after_seconds, every_seconds`),
    )
    expect(create({ prompt: 'x', at: '2027-01-01T00:00:00Z', after_seconds: 60, every_seconds: 300 })).toEqual(
      error('invalid_selector', `${ONE_SELECTOR}, got after_seconds, at, every_seconds`),
    )
  })

  it('counts a selector given as null as given', () => {
    expect(create({ prompt: 'x', after_seconds: 60, at: null })).toEqual(
      error('invalid_selector', `${ONE_SELECTOR}, got after_seconds, at`),
    )
  })
})

describe('createRecord: after_seconds', () => {
  it('targets now plus the delay', () => {
    expect(create({ prompt: 'tea', after_seconds: 600 })).toEqual({
      id: 'schedule-4',
      kind: 'after',
      prompt: 'tea',
      afterSeconds: 600,
      scheduledAt: '2026-07-15T09:10:00.000Z',
    })
  })

  it.each([
    [0, '0'],
    [-60, '-60'],
    [1.5, '1.5'],
    ['60', '"60"'],
    [null, 'null'],
    [true, 'true'],
    [2 ** 53, '9007199254740992'],
    [Number.NaN, 'null'],
  ])('rejects %j as invalid_rule', (value, shown) => {
    expect(create({ prompt: 'x', after_seconds: value })).toEqual(
      error('invalid_rule', `after_seconds must be a positive safe integer, got ${shown}`),
    )
  })

  it('accepts a delay landing exactly on the last accepted instant and rejects one past it', () => {
    const now = Date.parse('2026-07-15T09:00:00.999Z')
    const seconds = (MAX_INSTANT_MS - now) / 1000
    expect(create({ prompt: 'x', after_seconds: seconds }, probe(undefined, now).context)).toEqual({
      id: 'schedule-4',
      kind: 'after',
      prompt: 'x',
      afterSeconds: seconds,
      scheduledAt: '9999-12-31T23:59:59.999Z',
    })
    expect(create({ prompt: 'x', after_seconds: seconds + 1 }, probe(undefined, now).context)).toEqual(
      error('time_out_of_range', 'the target must lie between 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z'),
    )
  })

  it('rejects the largest safe integer as time_out_of_range', () => {
    expect(create({ prompt: 'x', after_seconds: Number.MAX_SAFE_INTEGER })).toEqual(
      error('time_out_of_range', 'the target must lie between 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z'),
    )
  })
})

describe('createRecord: every_seconds', () => {
  it('targets now plus one interval', () => {
    expect(create({ prompt: 'water', every_seconds: 300 })).toEqual({
      id: 'schedule-4',
      kind: 'every',
      prompt: 'water',
      everySeconds: 300,
      scheduledAt: '2026-07-15T09:05:00.000Z',
      catchUp: 'latest',
    })
  })

  it.each([299, 60, 1])('rejects %i as frequency_too_high', (value) => {
    expect(create({ prompt: 'x', every_seconds: value })).toEqual(
      error('frequency_too_high', `every_seconds must be at least 300, got ${value}`),
    )
  })

  it.each([
    [0, '0'],
    [-300, '-300'],
    [300.5, '300.5'],
    ['300', '"300"'],
    [{}, '{}'],
  ])('rejects %j as invalid_rule', (value, shown) => {
    expect(create({ prompt: 'x', every_seconds: value })).toEqual(
      error('invalid_rule', `every_seconds must be a positive safe integer, got ${shown}`),
    )
  })

  it('rejects an interval whose first target is out of range', () => {
    expect(create({ prompt: 'x', every_seconds: 300_000_000_000 })).toEqual(
      error('time_out_of_range', 'the target must lie between 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z'),
    )
  })
})

describe('createRecord: string at', () => {
  it('stores the canonical UTC instant', () => {
    expect(create({ prompt: 'call', at: '2026-07-15T17:30:00.5+08:00' })).toEqual({
      id: 'schedule-4',
      kind: 'at',
      prompt: 'call',
      scheduledAt: '2026-07-15T09:30:00.500Z',
    })
  })

  it('accepts a target one millisecond after now', () => {
    expect(create({ prompt: 'x', at: '2026-07-15T09:00:00.001Z' })).toEqual({
      id: 'schedule-4',
      kind: 'at',
      prompt: 'x',
      scheduledAt: '2026-07-15T09:00:00.001Z',
    })
  })

  it('rejects now and the past as not_future', () => {
    expect(create({ prompt: 'x', at: '2026-07-15T09:00:00Z' })).toEqual(
      error('not_future', 'the target 2026-07-15T09:00:00.000Z is not in the future (now is 2026-07-15T09:00:00.000Z)'),
    )
    expect(create({ prompt: 'x', at: '2026-07-15T10:00:00+02:00' })).toEqual(
      error('not_future', 'the target 2026-07-15T08:00:00.000Z is not in the future (now is 2026-07-15T09:00:00.000Z)'),
    )
  })

  it('rejects instants without a four-digit UTC year as time_out_of_range', () => {
    for (const at of ['0000-06-01T00:00:00Z', '9999-12-31T23:59:59.999-00:01', '0001-01-01T00:00:00+00:01']) {
      expect(create({ prompt: 'x', at })).toEqual(
        error('time_out_of_range', 'the target must lie between 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z'),
      )
    }
  })

  it('accepts the last accepted instant', () => {
    expect(create({ prompt: 'x', at: '9999-12-31T23:59:59.999Z' })).toEqual({
      id: 'schedule-4',
      kind: 'at',
      prompt: 'x',
      scheduledAt: '9999-12-31T23:59:59.999Z',
    })
  })

  it.each([
    ['2026-07-15T09:30:00', '"2026-07-15T09:30:00"'],
    ['2026-07-15t09:30:00z', '"2026-07-15t09:30:00z"'],
    ['2026-02-30T09:30:00Z', '"2026-02-30T09:30:00Z"'],
    ['2026-07-15T09:30:00-00:00', '"2026-07-15T09:30:00-00:00"'],
    ['tomorrow at 9', '"tomorrow at 9"'],
  ])('rejects malformed %j as invalid_rule', (at, shown) => {
    expect(create({ prompt: 'x', at })).toEqual(error('invalid_rule', `at must be ${AT_FORMS}, got ${shown}`))
  })

  it.each([
    [1_800_000_000_000, '1800000000000'],
    [null, 'null'],
    [['2027-01-01T00:00:00Z'], '["2027-01-01T00:00:00Z"]'],
  ])('rejects %j of the wrong type as invalid_rule', (at, shown) => {
    expect(create({ prompt: 'x', at })).toEqual(error('invalid_rule', `at must be ${AT_FORMS}, got ${shown}`))
  })

  it('never asks for the implicit zone', () => {
    const p = probe()
    create({ prompt: 'x', at: '2027-01-01T00:00:00Z' }, p.context)
    create({ prompt: 'x', after_seconds: 60 }, p.context)
    create({ prompt: 'x', every_seconds: 600 }, p.context)
    expect(p.calls()).toBe(0)
  })
})

describe('createRecord: local at with an explicit time_zone', () => {
  it('converts the wall time in that zone without asking for the implicit zone', () => {
    const p = probe()
    expect(create({ prompt: 'x', at: { date: '2026-07-16', time: '09:30:00', time_zone: 'Asia/Kathmandu' } }, p.context)).toEqual({
      id: 'schedule-4',
      kind: 'at',
      prompt: 'x',
      scheduledAt: '2026-07-16T03:45:00.000Z',
      timeZone: canonicalTimeZone('Asia/Kathmandu'),
    })
    expect(p.calls()).toBe(0)
  })

  it('accepts an alias and canonicalises it', () => {
    expect(create({ prompt: 'x', at: { date: '2026-12-01', time: '09:00:00', time_zone: 'US/Eastern' } })).toEqual({
      id: 'schedule-4',
      kind: 'at',
      prompt: 'x',
      scheduledAt: '2026-12-01T14:00:00.000Z',
      timeZone: 'America/New_York',
    })
  })

  it.each([
    ['CST', '"CST"'],
    ['PST', '"PST"'],
    ['GMT', '"GMT"'],
    ['+08:00', '"+08:00"'],
    ['', '""'],
    [' UTC', '" UTC"'],
    ['Not/A_Real_Zone', '"Not/A_Real_Zone"'],
    [null, 'null'],
    [480, '480'],
  ])('rejects %j as invalid_time_zone', (zone, shown) => {
    const p = probe()
    expect(create({ prompt: 'x', at: { date: '2026-07-16', time: '09:30:00', time_zone: zone } }, p.context)).toEqual(
      error('invalid_time_zone', `at.time_zone must be an IANA time zone name such as "Europe/Berlin", got ${shown}`),
    )
    expect(p.calls()).toBe(0)
  })

  it('rejects a wall time in a DST gap as invalid_rule', () => {
    expect(create({ prompt: 'x', at: { date: '2026-10-04', time: '02:15:00', time_zone: 'Australia/Lord_Howe' } })).toEqual(
      error('invalid_rule', '2026-10-04T02:15:00 does not exist in Australia/Lord_Howe: a clock change skips it'),
    )
  })

  it('resolves a wall time in a DST overlap to the earlier instant', () => {
    expect(create({ prompt: 'x', at: { date: '2026-11-01', time: '01:30:00', time_zone: 'America/New_York' } })).toEqual({
      id: 'schedule-4',
      kind: 'at',
      prompt: 'x',
      scheduledAt: '2026-11-01T05:30:00.000Z',
      timeZone: 'America/New_York',
    })
  })

  it('rejects a local time in the past as not_future', () => {
    expect(create({ prompt: 'x', at: { date: '2026-07-15', time: '16:59:59', time_zone: 'Asia/Shanghai' } })).toEqual(
      error('not_future', 'the target 2026-07-15T08:59:59.000Z is not in the future (now is 2026-07-15T09:00:00.000Z)'),
    )
  })

  it('rejects a local time whose instant has no four-digit year as time_out_of_range', () => {
    for (const at of [
      { date: '0001-01-01', time: '00:00:00', time_zone: 'Asia/Tokyo' },
      { date: '0000-06-01', time: '00:00:00', time_zone: 'UTC' },
    ]) {
      expect(create({ prompt: 'x', at })).toEqual(
        error('time_out_of_range', 'the target must lie between 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z'),
      )
    }
  })
})

describe('createRecord: local at shape', () => {
  it('rejects unknown keys in at as invalid_selector', () => {
    expect(create({ prompt: 'x', at: { date: '2026-07-16', time: '09:30:00', zone: 'UTC', tz: 'UTC' } })).toEqual(
      error('invalid_selector', 'at does not accept "zone", "tz"; a local at takes date, time and optionally time_zone'),
    )
  })

  it.each([
    [{ time: '09:30:00' }, 'undefined'],
    [{ date: '2026-02-29', time: '09:30:00' }, '"2026-02-29"'],
    [{ date: '2026-7-16', time: '09:30:00' }, '"2026-7-16"'],
    [{ date: 20260716, time: '09:30:00' }, '20260716'],
  ])('rejects a bad date in %j as invalid_rule', (at, shown) => {
    expect(create({ prompt: 'x', at })).toEqual(
      error('invalid_rule', `at.date must be a real calendar date in YYYY-MM-DD form, got ${shown}`),
    )
  })

  it.each([
    [{ date: '2026-07-16' }, 'undefined'],
    [{ date: '2026-07-16', time: '09:30' }, '"09:30"'],
    [{ date: '2026-07-16', time: '24:00:00' }, '"24:00:00"'],
    [{ date: '2026-07-16', time: '23:59:60' }, '"23:59:60"'],
    [{ date: '2026-07-16', time: '09:30:00Z' }, '"09:30:00Z"'],
  ])('rejects a bad time in %j as invalid_rule', (at, shown) => {
    expect(create({ prompt: 'x', at })).toEqual(
      error('invalid_rule', `at.time must be a real time of day in HH:mm:ss or HH:mm:ss.SSS form, got ${shown}`),
    )
  })
})

describe('createRecord: local at without time_zone', () => {
  it('asks for the implicit zone exactly once and converts in it', () => {
    const p = probe({ ok: true, timeZone: 'Asia/Shanghai' })
    expect(create({ prompt: 'x', at: { date: '2026-07-16', time: '09:30:00.25' } }, p.context)).toEqual({
      id: 'schedule-4',
      kind: 'at',
      prompt: 'x',
      scheduledAt: '2026-07-16T01:30:00.250Z',
      timeZone: 'Asia/Shanghai',
    })
    expect(p.calls()).toBe(1)
  })

  it('returns the implicit-zone error unchanged', () => {
    const refusal = timezoneConfirmationRequired('Asia/Shanghai', ['America/New_York'])
    const p = probe({ ok: false, error: refusal })
    const result = createRecord({ prompt: 'x', at: { date: '2026-07-16', time: '09:30:00' } }, p.context)
    expect(result).toEqual({ ok: false, error: refusal })
    expect(p.calls()).toBe(1)
  })

  it('does not ask for the zone when the date or time is malformed', () => {
    const p = probe()
    create({ prompt: 'x', at: { date: '2026-02-30', time: '09:30:00' } }, p.context)
    create({ prompt: 'x', at: { date: '2026-07-16', time: '9:30' } }, p.context)
    expect(p.calls()).toBe(0)
  })

  it('rejects a DST gap in the implicit zone', () => {
    const p = probe({ ok: true, timeZone: 'Europe/Berlin' })
    expect(create({ prompt: 'x', at: { date: '2027-03-28', time: '02:30:00' } }, p.context)).toEqual(
      error('invalid_rule', '2027-03-28T02:30:00 does not exist in Europe/Berlin: a clock change skips it'),
    )
  })
})

describe('parseCreateArgs', () => {
  it('normalises each selector form', () => {
    expect(parseCreateArgs({ prompt: ' a ', after_seconds: 5 })).toEqual({ ok: true, value: { kind: 'after', prompt: 'a', afterSeconds: 5 } })
    expect(parseCreateArgs({ prompt: 'a', every_seconds: 900 })).toEqual({ ok: true, value: { kind: 'every', prompt: 'a', everySeconds: 900, catchUp: 'latest' } })
    expect(parseCreateArgs({ prompt: 'a', at: '2027-01-01T00:00:00+01:00' })).toEqual({
      ok: true,
      value: { kind: 'at-instant', prompt: 'a', at: Date.parse('2026-12-31T23:00:00Z') },
    })
    expect(parseCreateArgs({ prompt: 'a', at: { date: '2027-01-01', time: '08:00:00', time_zone: 'Etc/UTC' } })).toEqual({
      ok: true,
      value: {
        kind: 'at-local',
        prompt: 'a',
        at: { date: { year: 2027, month: 1, day: 1 }, time: { hour: 8, minute: 0, second: 0, millisecond: 0 }, timeZone: 'UTC' },
      },
    })
    expect(parseCreateArgs({ prompt: 'a', at: { date: '2027-01-01', time: '08:00:00' } })).toEqual({
      ok: true,
      value: {
        kind: 'at-local',
        prompt: 'a',
        at: { date: { year: 2027, month: 1, day: 1 }, time: { hour: 8, minute: 0, second: 0, millisecond: 0 }, timeZone: null },
      },
    })
  })
})

describe('parseListArgs', () => {
  it('accepts an empty object', () => {
    expect(parseListArgs({})).toEqual({ ok: true, value: {} })
  })

  it('rejects anything else as invalid_selector', () => {
    const list = (args: unknown): unknown => {
      const result = parseListArgs(args)
      return result.ok ? result.value : result.error.toToolError()
    }
    expect(list(null)).toEqual(error('invalid_selector', 'schedule_list arguments must be a JSON object'))
    expect(list({ all: true })).toEqual(error('invalid_selector', 'schedule_list does not accept "all"; it takes no arguments'))
  })
})

describe('parseDeleteArgs', () => {
  const del = (args: unknown): unknown => {
    const result = parseDeleteArgs(args)
    return result.ok ? result.value : result.error.toToolError()
  }

  it('accepts exactly { id: string }', () => {
    expect(del({ id: 'schedule-1' })).toEqual({ id: 'schedule-1' })
    expect(del({ id: 'anything' })).toEqual({ id: 'anything' })
  })

  it('rejects other shapes as invalid_selector', () => {
    expect(del('schedule-1')).toEqual(error('invalid_selector', 'schedule_delete arguments must be a JSON object'))
    expect(del({ id: 'schedule-1', force: true })).toEqual(
      error('invalid_selector', 'schedule_delete does not accept "force"; it takes id'),
    )
    expect(del({})).toEqual(error('invalid_selector', 'schedule_delete needs id as a string, got undefined'))
    expect(del({ id: 1 })).toEqual(error('invalid_selector', 'schedule_delete needs id as a string, got 1'))
  })
})

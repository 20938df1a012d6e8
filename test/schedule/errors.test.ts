import { describe, expect, it } from 'vitest'
import {
  corruptScheduleLog,
  describeValue,
  fail,
  frequencyTooHigh,
  internalError,
  invalidPrompt,
  invalidRule,
  invalidSelector,
  invalidTimeZone,
  isScheduleError,
  notFuture,
  ok,
  persistenceUncertain,
  ScheduleError,
  timeOutOfRange,
  timezoneConfirmationRequired,
} from '../../src/schedule/errors.ts'

describe('ScheduleError', () => {
  it('is an Error with a name, a code, a message and details', () => {
    const error = corruptScheduleLog(7, 'bad')
    expect(error).toBeInstanceOf(Error)
    expect(error).toBeInstanceOf(ScheduleError)
    expect(error.name).toBe('ScheduleError')
    expect(error.code).toBe('corrupt_schedule_log')
    expect(error.message).toBe('schedule log is corrupt at seq 7: bad')
    expect(error.details).toEqual({ seq: 7 })
  })

  it('serialises as { code, message, ...details } with code and message first', () => {
    expect(JSON.stringify(corruptScheduleLog(7, 'bad').toToolError())).toBe(
      '{"code":"corrupt_schedule_log","message":"schedule log is corrupt at seq 7: bad","seq":7}',
    )
  })

  it('is recognised by isScheduleError and nothing else is', () => {
    expect(isScheduleError(invalidPrompt())).toBe(true)
    expect(isScheduleError(new Error('x'))).toBe(false)
    expect(isScheduleError({ code: 'invalid_prompt', message: 'x' })).toBe(false)
  })

  it('wraps values and failures', () => {
    const error = invalidPrompt()
    expect(ok(3)).toEqual({ ok: true, value: 3 })
    expect(fail(error)).toEqual({ ok: false, error })
  })
})

describe('error factories', () => {
  it('invalid_prompt', () => {
    expect(invalidPrompt().toToolError()).toEqual({ code: 'invalid_prompt', message: 'prompt must be a non-empty string' })
  })

  it('invalid_selector carries the given message', () => {
    expect(invalidSelector('m').toToolError()).toEqual({ code: 'invalid_selector', message: 'm' })
  })

  it('invalid_rule carries the given message', () => {
    expect(invalidRule('r').toToolError()).toEqual({ code: 'invalid_rule', message: 'r' })
  })

  it('invalid_time_zone names the field and the value', () => {
    expect(invalidTimeZone('at.time_zone', 'CST').toToolError()).toEqual({
      code: 'invalid_time_zone',
      message: 'at.time_zone must be an IANA time zone name such as "Europe/Berlin", got "CST"',
    })
  })

  it('timezone_confirmation_required carries the Session zone and the client zones', () => {
    const zones = ['America/New_York', 'Asia/Shanghai']
    const error = timezoneConfirmationRequired('Asia/Shanghai', zones)
    zones.push('UTC')
    expect(error.toToolError()).toEqual({
      code: 'timezone_confirmation_required',
      message:
        'a local at without time_zone needs the Session time zone and the client time zone of this request to be one and the same zone; ask the user which IANA time zone they mean and pass it as at.time_zone',
      sessionTimeZone: 'Asia/Shanghai',
      clientTimeZones: ['America/New_York', 'Asia/Shanghai'],
    })
  })

  it('not_future names the target and now', () => {
    expect(notFuture('2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z').toToolError()).toEqual({
      code: 'not_future',
      message: 'the target 2026-01-01T00:00:00.000Z is not in the future (now is 2026-01-02T00:00:00.000Z)',
    })
  })

  it('time_out_of_range names the accepted range', () => {
    expect(timeOutOfRange().toToolError()).toEqual({
      code: 'time_out_of_range',
      message: 'the target must lie between 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z',
    })
  })

  it('frequency_too_high names the value', () => {
    expect(frequencyTooHigh(299).toToolError()).toEqual({
      code: 'frequency_too_high',
      message: 'every_seconds must be at least 300, got 299',
    })
  })

  it('corrupt_schedule_log carries the seq', () => {
    expect(corruptScheduleLog(0, 'why').toToolError()).toEqual({
      code: 'corrupt_schedule_log',
      message: 'schedule log is corrupt at seq 0: why',
      seq: 0,
    })
  })

  it('persistence_uncertain carries the operation', () => {
    expect(persistenceUncertain('delete').toToolError()).toEqual({
      code: 'persistence_uncertain',
      message: 'the delete was written but could not be confirmed durable; it may be lost if the server crashes',
      operation: 'delete',
    })
  })

  it('internal_error', () => {
    expect(internalError().toToolError()).toEqual({
      code: 'internal_error',
      message: 'the schedule tool failed unexpectedly',
    })
  })
})

describe('describeValue', () => {
  it('renders JSON', () => {
    expect(describeValue('a"b')).toBe('"a\\"b"')
    expect(describeValue(1.5)).toBe('1.5')
    expect(describeValue(null)).toBe('null')
    expect(describeValue({ a: [1] })).toBe('{"a":[1]}')
  })

  it('renders values JSON cannot', () => {
    expect(describeValue(undefined)).toBe('undefined')
    expect(describeValue(10n)).toBe('10')
  })

  it('shortens long values to 80 characters and an ellipsis', () => {
    expect(describeValue('x'.repeat(200))).toBe(`"${'x'.repeat(79)}…`)
  })
})

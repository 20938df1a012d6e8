import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { processTimeZone, resolveTimeContextConfig } from '../../src/plugin/config.ts'
import { canonicalTimeZone } from '../../src/protocol/time-zone.ts'

const system = { systemTimeZone: () => 'Europe/Paris' }

function thrown(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('resolveTimeContextConfig', () => {
  it('defaults to the system zone and interval 0', () => {
    expect(resolveTimeContextConfig({}, system)).toEqual({ fallbackZone: 'Europe/Paris', refreshIntervalMs: 0 })
    expect(resolveTimeContextConfig(undefined, system)).toEqual({ fallbackZone: 'Europe/Paris', refreshIntervalMs: 0 })
  })

  it('keeps a valid interval, including 0 and the largest safe integer', () => {
    expect(resolveTimeContextConfig({ refreshIntervalMs: 0 }, system)).toEqual({ fallbackZone: 'Europe/Paris', refreshIntervalMs: 0 })
    expect(resolveTimeContextConfig({ refreshIntervalMs: 60_000 }, system)).toEqual({ fallbackZone: 'Europe/Paris', refreshIntervalMs: 60_000 })
    expect(resolveTimeContextConfig({ refreshIntervalMs: Number.MAX_SAFE_INTEGER }, system).refreshIntervalMs).toBe(Number.MAX_SAFE_INTEGER)
  })

  it('treats an undefined key as omitted', () => {
    expect(resolveTimeContextConfig({ timeZone: undefined, refreshIntervalMs: undefined }, system)).toEqual({
      fallbackZone: 'Europe/Paris',
      refreshIntervalMs: 0,
    })
  })

  it.each([
    ['-1', -1],
    ['1.5', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['9007199254740992', Number.MAX_SAFE_INTEGER + 1],
    ['1000', '1000'],
    ['null', null],
    ['true', true],
    ['5', [5]],
    ['[object Object]', {}],
    ['10', 10n],
  ])('rejects refreshIntervalMs %s with a TypeError', (shown, value) => {
    const error = thrown(() => resolveTimeContextConfig({ refreshIntervalMs: value }, system))
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toBe(`time-context: refreshIntervalMs must be a non-negative safe integer, got ${shown}`)
  })

  it('uses an explicit zone, canonicalised, as the fallback', () => {
    expect(resolveTimeContextConfig({ timeZone: 'Asia/Shanghai' }, system)).toEqual({ fallbackZone: 'Asia/Shanghai', refreshIntervalMs: 0 })
    expect(resolveTimeContextConfig({ timeZone: 'US/Eastern' }, system).fallbackZone).toBe('America/New_York')
    expect(resolveTimeContextConfig({ timeZone: 'Etc/UTC' }, system).fallbackZone).toBe('UTC')
    expect(resolveTimeContextConfig({ timeZone: 'Asia/Kolkata' }, system).fallbackZone).toBe(canonicalTimeZone('Asia/Kolkata'))
  })

  it('does not ask for the system zone when a zone is given', () => {
    const failing = { systemTimeZone: (): unknown => { throw new Error('not called') } }
    expect(resolveTimeContextConfig({ timeZone: 'UTC' }, failing).fallbackZone).toBe('UTC')
  })

  it.each([
    ['""', ''],
    ['" UTC"', ' UTC'],
    ['"CST"', 'CST'],
    ['"PST"', 'PST'],
    ['"GMT"', 'GMT'],
    ['"+08:00"', '+08:00'],
    ['"Not/A_Real_Zone"', 'Not/A_Real_Zone'],
    ['null', null],
    ['8', 8],
    ['["UTC"]', ['UTC']],
    ['{"zone":"UTC"}', { zone: 'UTC' }],
    ['10', 10n],
  ])('rejects timeZone %s with an Error', (shown, value) => {
    const error = thrown(() => resolveTimeContextConfig({ timeZone: value }, system))
    expect(error).toBeInstanceOf(Error)
    expect(error).not.toBeInstanceOf(TypeError)
    expect((error as Error).message).toBe(`time-context: invalid IANA timeZone ${shown}`)
  })

  it('checks refreshIntervalMs before timeZone', () => {
    const error = thrown(() => resolveTimeContextConfig({ timeZone: 'CST', refreshIntervalMs: -1 }, system))
    expect((error as Error).message).toBe('time-context: refreshIntervalMs must be a non-negative safe integer, got -1')
  })

  it('canonicalises the system zone', () => {
    expect(resolveTimeContextConfig({}, { systemTimeZone: () => 'US/Pacific' }).fallbackZone).toBe('America/Los_Angeles')
  })

  it.each([
    ['throws', (): unknown => { throw new RangeError('no zone') }],
    ['is not a zone', (): unknown => 'Local'],
    ['is not a string', (): unknown => undefined],
  ])('fails when the system zone %s', (_name, systemTimeZone) => {
    const error = thrown(() => resolveTimeContextConfig({}, { systemTimeZone }))
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toBe('time-context: failed to resolve the system time zone')
  })

  it('honours TZ when resolving the process zone', () => {
    const script = "import('./src/plugin/config.ts').then((m) => process.stdout.write(m.resolveTimeContextConfig({}).fallbackZone))"
    const output = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
      env: { ...process.env, TZ: 'Asia/Tokyo' },
      encoding: 'utf8',
    })
    expect(output).toBe('Asia/Tokyo')
  })

  it('resolves the real process zone by default', () => {
    expect(resolveTimeContextConfig({}).fallbackZone).toBe(canonicalTimeZone(processTimeZone()))
  })

  it.each([null, 5, 'UTC', [1]])('rejects a config that is not an object: %j', (raw) => {
    const error = thrown(() => resolveTimeContextConfig(raw, system))
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toBe(`time-context: config must be an object, got ${JSON.stringify(raw)}`)
  })
})

import { describe, expect, it } from 'vitest'
import { parseArgs, USAGE } from '../../src/server/cli-args.ts'

const DEFAULTS = { port: 4280, host: '127.0.0.1', dataDir: './.data', model: 'offline', build: true, leaseMs: 5000 }

describe('parseArgs: serve', () => {
  it('defaults to serve on 127.0.0.1:4280 with ./.data and the offline model', () => {
    expect(parseArgs([], {})).toEqual({ kind: 'serve', options: DEFAULTS })
    expect(parseArgs(['serve'], {})).toEqual({ kind: 'serve', options: DEFAULTS })
  })

  it('takes every flag, as `--flag value` and as `--flag=value`', () => {
    const argv = [
      'serve', '--port', '0', '--host=0.0.0.0', '--data-dir', '/tmp/x', '--model=openai:deepseek-chat', '--refresh-interval-ms', '60000',
      '--time-zone', 'Asia/Shanghai', '--token=kV9s-2Qx_7bLm.Tz', '--public-host', 'https://schedule.example.com', '--model-delay-ms=25',
      '--max-connections', '300', '--no-build', '--max-open-sessions=64', '--database-url', 'postgres://u:p@127.0.0.1:5432/db', '--replica-id', 'web-1',
      '--lease-ms=2000',
    ]
    expect(parseArgs(argv, {})).toEqual({
      kind: 'serve',
      options: {
        port: 0,
        host: '0.0.0.0',
        dataDir: '/tmp/x',
        model: 'openai:deepseek-chat',
        refreshIntervalMs: 60_000,
        timeZone: 'Asia/Shanghai',
        token: 'kV9s-2Qx_7bLm.Tz',
        publicHost: 'https://schedule.example.com',
        modelDelayMs: 25,
        maxConnections: 300,
        build: false,
        maxOpenSessions: 64,
        databaseUrl: 'postgres://u:p@127.0.0.1:5432/db',
        replicaId: 'web-1',
        leaseMs: 2000,
      },
    })
    expect(() => parseArgs(['--lease-ms', '100'], {})).toThrow('--lease-ms must be at least 300')
    expect(() => parseArgs(['--replica-id', 'no spaces'], {})).toThrow('--replica-id takes 1 to 64 letters, digits, dots, dashes or underscores')
  })

  it('lets the last of a repeated flag win', () => {
    expect(parseArgs(['--port', '1', '--port', '2'], {})).toEqual({ kind: 'serve', options: { ...DEFAULTS, port: 2 } })
  })

  it('reads PORT and SCHEDULE_WEB_TOKEN from the environment; flags win; empty values are unset', () => {
    expect(parseArgs([], { PORT: '5000', SCHEDULE_WEB_TOKEN: 'kV9s-2Qx_7bLm.Tz' })).toEqual({
      kind: 'serve',
      options: { ...DEFAULTS, port: 5000, token: 'kV9s-2Qx_7bLm.Tz' },
    })
    expect(parseArgs(['--port', '6000', '--token', 'other-token-0123456'], { PORT: '5000', SCHEDULE_WEB_TOKEN: 'kV9s-2Qx_7bLm.Tz' })).toEqual({
      kind: 'serve',
      options: { ...DEFAULTS, port: 6000, token: 'other-token-0123456' },
    })
    expect(parseArgs([], { PORT: '', SCHEDULE_WEB_TOKEN: '' })).toEqual({ kind: 'serve', options: DEFAULTS })
    // a blank (not empty) token is kept, so that the server refuses it as weak instead of running without one
    expect(parseArgs([], { SCHEDULE_WEB_TOKEN: ' ' })).toEqual({ kind: 'serve', options: { ...DEFAULTS, token: ' ' } })
  })

  it('takes --token-file instead of --token, over SCHEDULE_WEB_TOKEN, and never beside --token', () => {
    expect(parseArgs(['--token-file', '/run/secrets/token'], {})).toEqual({ kind: 'serve', options: { ...DEFAULTS, tokenFile: '/run/secrets/token' } })
    expect(parseArgs(['--token-file=/run/secrets/token'], { SCHEDULE_WEB_TOKEN: 'kV9s-2Qx_7bLm.Tz' })).toEqual({ kind: 'serve', options: { ...DEFAULTS, tokenFile: '/run/secrets/token' } })
    expect(() => parseArgs(['--token', 'kV9s-2Qx_7bLm.Tz', '--token-file', '/run/secrets/token'], {})).toThrow('give --token or --token-file, not both')
    expect(() => parseArgs(['--token-file'], {})).toThrow('--token-file needs a value')
  })

  it('takes a value that looks like a flag when one is required (as `--flag value` always did)', () => {
    expect(parseArgs(['--token', '--abcdefghijklmnop'], {})).toEqual({ kind: 'serve', options: { ...DEFAULTS, token: '--abcdefghijklmnop' } })
    expect(parseArgs(['--data-dir=--no-build'], {})).toEqual({ kind: 'serve', options: { ...DEFAULTS, dataDir: '--no-build' } })
  })

  it.each([
    [['--help'], { kind: 'help' }],
    [['-h'], { kind: 'help' }],
    [['serve', '--port', '1', '--help'], { kind: 'help' }],
    [['check', '--help'], { kind: 'help' }],
    [['check', 'a.jsonl', '-h'], { kind: 'help' }],
  ])('answers help for %j', (argv, expected) => {
    expect(parseArgs(argv, {})).toEqual(expected)
  })

  it.each([
    [['--port'], '--port needs a value'],
    [['--data-dir'], '--data-dir needs a value'],
    [['--token'], '--token needs a value'],
    [['--port', 'x'], '--port needs a non-negative integer, got "x"'],
    [['--port', '-1'], '--port needs a non-negative integer, got "-1"'],
    [['--port='], '--port needs a non-negative integer, got ""'],
    [['--port', '1.5'], '--port needs a non-negative integer, got "1.5"'],
    [['--port', '65536'], '--port must be at most 65535'],
    [['--port', '99999999999999999999'], '--port needs a non-negative integer, got "99999999999999999999"'],
    [['--refresh-interval-ms', '1e3'], '--refresh-interval-ms needs a non-negative integer, got "1e3"'],
    [['--model-delay-ms', ' 1'], '--model-delay-ms needs a non-negative integer, got " 1"'],
    [['--max-connections', '0'], '--max-connections must be at least 1'],
    // longer than a Node timer keeps: it fired at once (every step of the model timed out as it began)
    [['--model-timeout-ms', '3000000000'], '--model-timeout-ms must be at most 2147483647 (about 24 days)'],
    [['--model-delay-ms', '2147483648'], '--model-delay-ms must be at most 2147483647 (about 24 days)'],
    [['--lease-ms', '9999999999'], '--lease-ms must be at most 2147483647 (about 24 days)'],
    [['--no-build=yes'], '--no-build takes no value'],
    // one of this CLI's flags where a value belongs is a value left out (on the code before, a folder named --no-build)
    [['--data-dir', '--no-build'], '--data-dir needs a value, got the option --no-build (write --data-dir=--no-build if that is the value)'],
    [['--token', '--port', '1'], '--token needs a value, got the option --port (write --token=--port if that is the value)'],
    [['--data-dir', '-h'], '--data-dir needs a value, got the option -h (write --data-dir=-h if that is the value)'],
    [['check', '--database-url', '--data-dir=x'], '--database-url needs a value, got the option --data-dir=x (write --database-url=--data-dir=x if that is the value)'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArgs(argv, {})).toThrow(new Error(message))
  })

  it('refuses a bad PORT from the environment', () => {
    expect(() => parseArgs([], { PORT: 'eighty' })).toThrow(new Error('PORT needs a non-negative integer, got "eighty"'))
  })

  it.each([
    [['--nope'], '--nope'],
    [['--nope=1'], '--nope'],
    [['-p', '1'], '-p'],
    [['stray'], 'stray'],
    [['--port', '1', 'stray'], 'stray'],
    [['--', '--port', '1'], '--'],
    [['--Port', '1'], '--Port'],
  ])('refuses the unknown option in %j with the usage', (argv, name) => {
    expect(() => parseArgs(argv, {})).toThrow(new Error(`unknown option ${name}\n${USAGE}`))
  })
})

describe('parseArgs: check', () => {
  it('takes files and directories', () => {
    expect(parseArgs(['check', 'a.jsonl', 'dir/', '-'], {})).toEqual({ kind: 'check', paths: ['a.jsonl', 'dir/', '-'] })
    expect(parseArgs(['check', '--', '--odd-name.jsonl'], {})).toEqual({ kind: 'check', paths: ['--odd-name.jsonl'] })
  })

  it('needs at least one path and refuses options', () => {
    expect(() => parseArgs(['check'], {})).toThrow(new Error('check needs at least one file or directory'))
    expect(() => parseArgs(['check', 'a.jsonl', '--port', '1'], {})).toThrow(new Error(`unknown option --port\n${USAGE}`))
  })
})

describe('parseArgs: PostgreSQL', () => {
  const url = 'postgres://u:p@127.0.0.1:5433/db'

  it('serve takes --database-url, or DATABASE_URL from the environment; the flag wins, an empty value is unset', () => {
    expect(parseArgs(['--database-url', url], {})).toEqual({ kind: 'serve', options: { ...DEFAULTS, databaseUrl: url } })
    expect(parseArgs([], { DATABASE_URL: url })).toEqual({ kind: 'serve', options: { ...DEFAULTS, databaseUrl: url } })
    expect(parseArgs([`--database-url=${url}x`], { DATABASE_URL: url })).toEqual({ kind: 'serve', options: { ...DEFAULTS, databaseUrl: `${url}x` } })
    expect(parseArgs([], { DATABASE_URL: '' })).toEqual({ kind: 'serve', options: DEFAULTS })
    expect(() => parseArgs(['--database-url'], {})).toThrow(new Error('--database-url needs a value'))
  })

  it('check --database-url takes session ids (all sessions when none), never DATABASE_URL alone', () => {
    expect(parseArgs(['check', '--database-url', url], {})).toEqual({ kind: 'check-database', databaseUrl: url, sessionIds: [] })
    expect(parseArgs(['check', 'a', `--database-url=${url}`, 'b'], {})).toEqual({ kind: 'check-database', databaseUrl: url, sessionIds: ['a', 'b'] })
    expect(parseArgs(['check', 'x.jsonl'], { DATABASE_URL: url })).toEqual({ kind: 'check', paths: ['x.jsonl'] })
    expect(() => parseArgs(['check', '--database-url', url, '--data-dir', 'd'], {})).toThrow(new Error(`unknown option --data-dir\n${USAGE}`))
  })

  it('export and import take the URL (or DATABASE_URL), a data dir (default ./.data) and session ids', () => {
    expect(parseArgs(['export', '--database-url', url, '--data-dir', '/tmp/out', 'a'], {})).toEqual({
      kind: 'transfer',
      direction: 'export',
      databaseUrl: url,
      dataDir: '/tmp/out',
      sessionIds: ['a'],
    })
    expect(parseArgs(['import'], { DATABASE_URL: url })).toEqual({ kind: 'transfer', direction: 'import', databaseUrl: url, dataDir: './.data', sessionIds: [] })
    expect(() => parseArgs(['import'], {})).toThrow(new Error('import needs --database-url URL (or DATABASE_URL)'))
    expect(() => parseArgs(['export', '--database-url', url, '--port', '1'], {})).toThrow(new Error(`unknown option --port\n${USAGE}`))
  })

  it('db takes a data dir (default ./.data/postgres) and a port (default 5433)', () => {
    expect(parseArgs(['db'], {})).toEqual({ kind: 'db', dataDir: './.data/postgres', port: 5433 })
    expect(parseArgs(['db', '--port', '0', '--data-dir=/tmp/pg'], {})).toEqual({ kind: 'db', dataDir: '/tmp/pg', port: 0 })
    expect(() => parseArgs(['db', '--port', '70000'], {})).toThrow(new Error('--port must be at most 65535'))
    expect(() => parseArgs(['db', 'extra'], {})).toThrow(new Error('db takes no arguments, got "extra"'))
    expect(parseArgs(['db', '--help'], {})).toEqual({ kind: 'help' })
  })
})

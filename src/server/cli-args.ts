import { parseArgs as parseArgv } from 'node:util'

/** Options of `serve` (SPEC 11). */
export type ServeOptions = {
  port: number
  host: string
  dataDir: string
  model: string
  refreshIntervalMs?: number
  timeZone?: string
  token?: string
  publicHost?: string
  modelDelayMs?: number
  modelTimeoutMs?: number
  maxConnections?: number
  maxOpenSessions?: number
  build: boolean
}

/** A parsed command line. */
export type Command = { kind: 'serve'; options: ServeOptions } | { kind: 'check'; paths: string[] } | { kind: 'help' }

/** Usage text of the CLI. */
export const USAGE = `usage:
  serve [--port N] [--host H] [--data-dir DIR] [--model offline|openai:<model>|script:<file>]
        [--refresh-interval-ms N] [--time-zone ZONE] [--token T] [--public-host NAME|ORIGIN]
        [--model-delay-ms N] [--model-timeout-ms N] [--max-connections N] [--max-open-sessions N] [--no-build]
  check <session.jsonl|dir>...`

const SERVE_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  model: { type: 'string' },
  'refresh-interval-ms': { type: 'string' },
  'time-zone': { type: 'string' },
  token: { type: 'string' },
  'public-host': { type: 'string' },
  'model-delay-ms': { type: 'string' },
  'model-timeout-ms': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-open-sessions': { type: 'string' },
  'no-build': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

type ServeFlag = keyof typeof SERVE_OPTIONS

function isServeFlag(name: string): name is ServeFlag {
  return Object.hasOwn(SERVE_OPTIONS, name)
}

function integer(flag: string, value: string | undefined): number {
  if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new Error(`${flag} needs a non-negative integer, got ${JSON.stringify(value ?? '')}`)
  }
  return Number(value)
}

function applyFlag(options: ServeOptions, flag: ServeFlag, rawName: string, value: string | undefined): void {
  const text = (): string => {
    if (value === undefined) throw new Error(`${rawName} needs a value`)
    return value
  }
  switch (flag) {
    case 'port':
      options.port = integer(rawName, text())
      if (options.port > 65535) throw new Error('--port must be at most 65535')
      return
    case 'host':
      options.host = text()
      return
    case 'data-dir':
      options.dataDir = text()
      return
    case 'model':
      options.model = text()
      return
    case 'refresh-interval-ms':
      options.refreshIntervalMs = integer(rawName, text())
      return
    case 'time-zone':
      options.timeZone = text()
      return
    case 'token':
      options.token = text()
      return
    case 'public-host':
      options.publicHost = text()
      return
    case 'model-delay-ms':
      options.modelDelayMs = integer(rawName, text())
      return
    case 'model-timeout-ms':
      options.modelTimeoutMs = integer(rawName, text())
      if (options.modelTimeoutMs < 1) throw new Error('--model-timeout-ms must be at least 1')
      return
    case 'max-connections':
      options.maxConnections = integer(rawName, text())
      if (options.maxConnections < 1) throw new Error('--max-connections must be at least 1')
      return
    case 'max-open-sessions':
      options.maxOpenSessions = integer(rawName, text())
      if (options.maxOpenSessions < 1) throw new Error('--max-open-sessions must be at least 1')
      return
    case 'no-build':
      if (value !== undefined) throw new Error(`${rawName} takes no value`)
      options.build = false
      return
    case 'help':
      return
    default: {
      const never: never = flag
      throw new Error(`unknown option ${String(never)}`)
    }
  }
}

/** Parses argv (without node and script) with `node:util` `parseArgs`, environment defaults from PORT and SCHEDULE_WEB_TOKEN. */
export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): Command {
  const args = [...argv]
  let kind: 'serve' | 'check' = 'serve'
  if (args[0] === 'serve' || args[0] === 'check') kind = args.shift() as 'serve' | 'check'
  const { tokens } = parseArgv({ args, options: SERVE_OPTIONS, strict: false, allowPositionals: true, tokens: true })
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help')) return { kind: 'help' }
  if (kind === 'check') {
    const paths: string[] = []
    for (const token of tokens) {
      if (token.kind === 'option') throw new Error(`unknown option ${token.rawName}\n${USAGE}`)
      if (token.kind === 'positional') paths.push(token.value)
    }
    if (paths.length === 0) throw new Error('check needs at least one file or directory')
    return { kind: 'check', paths }
  }
  const options: ServeOptions = {
    port: env.PORT !== undefined && env.PORT !== '' ? integer('PORT', env.PORT) : 4280,
    host: '127.0.0.1',
    dataDir: './.data',
    model: 'offline',
    build: true,
    ...(env.SCHEDULE_WEB_TOKEN ? { token: env.SCHEDULE_WEB_TOKEN } : {}),
  }
  for (const token of tokens) {
    if (token.kind === 'positional') throw new Error(`unknown option ${token.value}\n${USAGE}`)
    if (token.kind === 'option-terminator') throw new Error(`unknown option --\n${USAGE}`)
    if (!isServeFlag(token.name) || (token.name !== 'help' && token.rawName !== `--${token.name}`)) {
      throw new Error(`unknown option ${token.rawName}\n${USAGE}`)
    }
    applyFlag(options, token.name, token.rawName, token.value)
  }
  return { kind: 'serve', options }
}

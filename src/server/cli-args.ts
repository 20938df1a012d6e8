import { parseArgs as parseArgv } from 'node:util'
import { MAX_TIMER_MS } from '../schedule/index.ts'

/** Options of `serve` (SPEC 11). */
export type ServeOptions = {
  port: number
  host: string
  dataDir: string
  model: string
  refreshIntervalMs?: number
  timeZone?: string
  token?: string
  /** A file holding the token (read at start, one trailing newline dropped), so that it shows neither in `ps` nor in the environment. */
  tokenFile?: string
  publicHost?: string
  modelDelayMs?: number
  modelTimeoutMs?: number
  maxConnections?: number
  maxOpenSessions?: number
  build: boolean
  /** The PostgreSQL store's URL; without it the JSONL store in `dataDir`. */
  databaseUrl?: string
  /** This replica's name in session leases (PostgreSQL), and how long a lease lasts unless renewed. */
  replicaId?: string
  leaseMs: number
}

/** Which way `export` (database → files) and `import` (files → database) move sessions. */
export type TransferDirection = 'export' | 'import'

/** A parsed command line. */
export type Command =
  | { kind: 'serve'; options: ServeOptions }
  | { kind: 'check'; paths: string[] }
  | { kind: 'check-database'; databaseUrl: string; sessionIds: string[] }
  | { kind: 'transfer'; direction: TransferDirection; databaseUrl: string; dataDir: string; sessionIds: string[] }
  | { kind: 'db'; dataDir: string; port: number }
  | { kind: 'help' }

/** Usage text of the CLI. */
export const USAGE = `usage:
  serve [--port N] [--host H] [--data-dir DIR] [--database-url URL] [--replica-id NAME] [--lease-ms N] [--model offline|openai:<model>|script:<file>]
        [--refresh-interval-ms N] [--time-zone ZONE] [--token T | --token-file PATH] [--public-host NAME|ORIGIN]
        [--model-delay-ms N] [--model-timeout-ms N] [--max-connections N] [--max-open-sessions N] [--no-build]
  check <session.jsonl|dir>...
  check --database-url URL [sessionId...]
  export --database-url URL [--data-dir DIR] [sessionId...]   (PostgreSQL → JSONL files)
  import --database-url URL [--data-dir DIR] [sessionId...]   (JSONL files → PostgreSQL)
  db [--data-dir DIR] [--port N]                              (embedded PostgreSQL for development)
DATABASE_URL stands in for --database-url of serve, export and import; SCHEDULE_WEB_TOKEN for --token.`

/** Default data directory of `npm run db`. */
export const DEFAULT_DB_DIR = './.data/postgres'

/** Default port of `npm run db` (beside a system PostgreSQL on 5432). */
export const DEFAULT_DB_PORT = 5433

/** SPEC 11: a session's lease lasts 5 s unless its replica renews it. */
export const DEFAULT_LEASE_MS = 5000

const SERVE_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  model: { type: 'string' },
  'refresh-interval-ms': { type: 'string' },
  'time-zone': { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'public-host': { type: 'string' },
  'model-delay-ms': { type: 'string' },
  'model-timeout-ms': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-open-sessions': { type: 'string' },
  'no-build': { type: 'boolean' },
  'database-url': { type: 'string' },
  'replica-id': { type: 'string' },
  'lease-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

type ServeFlag = keyof typeof SERVE_OPTIONS

function isServeFlag(name: string): name is ServeFlag {
  return Object.hasOwn(SERVE_OPTIONS, name)
}

const COMMANDS = ['serve', 'check', 'export', 'import', 'db'] as const

type CommandName = (typeof COMMANDS)[number]

/** The flags each command other than serve takes. */
const COMMAND_FLAGS: Record<Exclude<CommandName, 'serve'>, readonly ServeFlag[]> = {
  check: ['database-url'],
  export: ['database-url', 'data-dir'],
  import: ['database-url', 'data-dir'],
  db: ['data-dir', 'port'],
}

function envUrl(env: NodeJS.ProcessEnv): string | undefined {
  return env.DATABASE_URL !== undefined && env.DATABASE_URL !== '' ? env.DATABASE_URL : undefined
}

function portNumber(flag: string, value: string): number {
  const port = integer(flag, value)
  if (port > 65535) throw new Error(`${flag} must be at most 65535`)
  return port
}

function integer(flag: string, value: string | undefined): number {
  if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new Error(`${flag} needs a non-negative integer, got ${JSON.stringify(value ?? '')}`)
  }
  return Number(value)
}

/** A length of time in ms that a timer waits: from `min` to what one timer holds (`MAX_TIMER_MS`; a longer one fired at once, so every step timed out). */
function timerMs(flag: string, value: string, min: number): number {
  const ms = integer(flag, value)
  if (ms < min) throw new Error(`${flag} must be at least ${min}`)
  if (ms > MAX_TIMER_MS) throw new Error(`${flag} must be at most ${MAX_TIMER_MS} (about 24 days)`)
  return ms
}

function applyFlag(options: ServeOptions, flag: ServeFlag, rawName: string, value: string | undefined): void {
  const text = (): string => {
    if (value === undefined) throw new Error(`${rawName} needs a value`)
    return value
  }
  switch (flag) {
    case 'port':
      options.port = portNumber(rawName, text())
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
    case 'token-file':
      options.tokenFile = text()
      return
    case 'public-host':
      options.publicHost = text()
      return
    case 'model-delay-ms':
      options.modelDelayMs = timerMs(rawName, text(), 0)
      return
    case 'model-timeout-ms':
      options.modelTimeoutMs = timerMs(rawName, text(), 1)
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
    case 'database-url':
      options.databaseUrl = text()
      return
    case 'replica-id':
      options.replicaId = text()
      if (!/^[A-Za-z0-9_.-]{1,64}$/.test(options.replicaId)) throw new Error('--replica-id takes 1 to 64 letters, digits, dots, dashes or underscores')
      return
    case 'lease-ms':
      options.leaseMs = timerMs(rawName, text(), 300)
      return
    case 'help':
      return
    default: {
      const never: never = flag
      throw new Error(`unknown option ${String(never)}`)
    }
  }
}

type Token = ReturnType<typeof parseArgv>['tokens'] extends (infer T)[] | undefined ? T : never

/**
 * The value of an option token. A value that looks like a flag is taken (a token may start with `--`), unless it is
 * one of this CLI's own flags (`-h` too): `--data-dir --no-build` meant a missing value, not a folder named `--no-build`.
 */
function valueOf(token: Extract<Token, { kind: 'option' }>): string | undefined {
  const { value, rawName } = token
  if (value === undefined || token.inlineValue === true || !value.startsWith('-')) return value
  const named = value === '-h' ? 'help' : value.startsWith('--') ? value.slice(2).split('=')[0] : ''
  if (isServeFlag(named)) throw new Error(`${rawName} needs a value, got the option ${value} (write ${rawName}=${value} if that is the value)`)
  return value
}

/** The flags (name → value) and positionals of a command that takes only `allowed` flags. */
function commandArgs(tokens: readonly Token[], allowed: readonly ServeFlag[]): { flags: Map<ServeFlag, string>; positionals: string[] } {
  const flags = new Map<ServeFlag, string>()
  const positionals: string[] = []
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value)
    if (token.kind !== 'option') continue
    if (!isServeFlag(token.name) || !allowed.includes(token.name) || token.rawName !== `--${token.name}`) {
      throw new Error(`unknown option ${token.rawName}\n${USAGE}`)
    }
    const value = valueOf(token)
    if (value === undefined) throw new Error(`${token.rawName} needs a value`)
    flags.set(token.name, value)
  }
  return { flags, positionals }
}

/** Parses argv (without node and script) with `node:util` `parseArgs`, environment defaults from PORT, SCHEDULE_WEB_TOKEN and DATABASE_URL. */
export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): Command {
  const args = [...argv]
  let kind: CommandName = 'serve'
  if ((COMMANDS as readonly string[]).includes(args[0])) kind = args.shift() as CommandName
  const { tokens } = parseArgv({ args, options: SERVE_OPTIONS, strict: false, allowPositionals: true, tokens: true })
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help')) return { kind: 'help' }
  switch (kind) {
    case 'serve':
      return { kind: 'serve', options: serveOptions(tokens, env) }
    case 'check': {
      const { flags, positionals } = commandArgs(tokens, COMMAND_FLAGS.check)
      const databaseUrl = flags.get('database-url')
      if (databaseUrl !== undefined) return { kind: 'check-database', databaseUrl, sessionIds: positionals }
      if (positionals.length === 0) throw new Error('check needs at least one file or directory')
      return { kind: 'check', paths: positionals }
    }
    case 'export':
    case 'import': {
      const { flags, positionals } = commandArgs(tokens, COMMAND_FLAGS[kind])
      const databaseUrl = flags.get('database-url') ?? envUrl(env)
      if (databaseUrl === undefined) throw new Error(`${kind} needs --database-url URL (or DATABASE_URL)`)
      return { kind: 'transfer', direction: kind, databaseUrl, dataDir: flags.get('data-dir') ?? './.data', sessionIds: positionals }
    }
    case 'db': {
      const { flags, positionals } = commandArgs(tokens, COMMAND_FLAGS.db)
      if (positionals.length > 0) throw new Error(`db takes no arguments, got ${JSON.stringify(positionals[0])}`)
      const port = flags.get('port')
      return { kind: 'db', dataDir: flags.get('data-dir') ?? DEFAULT_DB_DIR, port: port === undefined ? DEFAULT_DB_PORT : portNumber('--port', port) }
    }
    default: {
      const never: never = kind
      throw new Error(`unknown command ${String(never)}`)
    }
  }
}

function serveOptions(tokens: readonly Token[], env: NodeJS.ProcessEnv): ServeOptions {
  const databaseUrl = envUrl(env)
  const options: ServeOptions = {
    port: env.PORT !== undefined && env.PORT !== '' ? integer('PORT', env.PORT) : 4280,
    host: '127.0.0.1',
    dataDir: './.data',
    model: 'offline',
    build: true,
    leaseMs: DEFAULT_LEASE_MS,
    ...(env.SCHEDULE_WEB_TOKEN ? { token: env.SCHEDULE_WEB_TOKEN } : {}),
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
  }
  for (const token of tokens) {
    if (token.kind === 'positional') throw new Error(`unknown option ${token.value}\n${USAGE}`)
    if (token.kind === 'option-terminator') throw new Error(`unknown option --\n${USAGE}`)
    if (!isServeFlag(token.name) || (token.name !== 'help' && token.rawName !== `--${token.name}`)) {
      throw new Error(`unknown option ${token.rawName}\n${USAGE}`)
    }
    applyFlag(options, token.name, token.rawName, valueOf(token))
  }
  if (options.tokenFile !== undefined) {
    if (tokens.some((t) => t.kind === 'option' && t.name === 'token')) throw new Error('give --token or --token-file, not both')
    // the file named on the command line wins over SCHEDULE_WEB_TOKEN, as every flag wins over the environment
    delete options.token
  }
  return options
}

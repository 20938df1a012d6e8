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
  build: boolean
}

/** A parsed command line. */
export type Command = { kind: 'serve'; options: ServeOptions } | { kind: 'check'; paths: string[] } | { kind: 'help' }

/** Usage text of the CLI. */
export const USAGE = `usage:
  serve [--port N] [--host H] [--data-dir DIR] [--model offline|openai:<model>|script:<file>]
        [--refresh-interval-ms N] [--time-zone ZONE] [--token T] [--public-host NAME]
        [--model-delay-ms N] [--no-build]
  check <session.jsonl|dir>...`

function integer(flag: string, value: string | undefined): number {
  if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new Error(`${flag} needs a non-negative integer, got ${JSON.stringify(value ?? '')}`)
  }
  return Number(value)
}

/** Parses argv (without node and script) with environment defaults (PORT, SCHEDULE_WEB_TOKEN). */
export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): Command {
  const args = [...argv]
  let kind: 'serve' | 'check' = 'serve'
  if (args[0] === 'serve' || args[0] === 'check') kind = args.shift() as 'serve' | 'check'
  if (args.includes('--help') || args.includes('-h')) return { kind: 'help' }
  if (kind === 'check') {
    if (args.length === 0) throw new Error('check needs at least one file or directory')
    return { kind: 'check', paths: args }
  }
  const options: ServeOptions = {
    port: env.PORT !== undefined && env.PORT !== '' ? integer('PORT', env.PORT) : 4280,
    host: '127.0.0.1',
    dataDir: './.data',
    model: 'offline',
    build: true,
    ...(env.SCHEDULE_WEB_TOKEN ? { token: env.SCHEDULE_WEB_TOKEN } : {}),
  }
  while (args.length > 0) {
    const flag = args.shift() as string
    const [name, inline] = flag.includes('=') ? [flag.slice(0, flag.indexOf('=')), flag.slice(flag.indexOf('=') + 1)] : [flag, undefined]
    const value = (): string => {
      const v = inline ?? args.shift()
      if (v === undefined) throw new Error(`${name} needs a value`)
      return v
    }
    switch (name) {
      case '--port':
        options.port = integer(name, value())
        if (options.port > 65535) throw new Error('--port must be at most 65535')
        break
      case '--host':
        options.host = value()
        break
      case '--data-dir':
        options.dataDir = value()
        break
      case '--model':
        options.model = value()
        break
      case '--refresh-interval-ms':
        options.refreshIntervalMs = integer(name, value())
        break
      case '--time-zone':
        options.timeZone = value()
        break
      case '--token':
        options.token = value()
        break
      case '--public-host':
        options.publicHost = value()
        break
      case '--model-delay-ms':
        options.modelDelayMs = integer(name, value())
        break
      case '--no-build':
        options.build = false
        break
      default:
        throw new Error(`unknown option ${name}\n${USAGE}`)
    }
  }
  return { kind: 'serve', options }
}

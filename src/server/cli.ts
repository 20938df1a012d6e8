import { existsSync } from 'node:fs'
import { errorMessage } from '../protocol/index.ts'
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import { DEFAULT_MAX_OPEN_SESSIONS, JsonlStore, PostgresStore, type Store } from '../host/index.ts'
import { parseArgs, USAGE, type TransferDirection } from './cli-args.ts'
import { runCheck, runStoreCheck } from './check.ts'
import { checkFolds, compose } from './compose.ts'
import { EmbeddedDatabase } from './embedded-database.ts'
import { ensureOverlayBuilt } from './overlay-build.ts'
import { assertSafeToStart, listen } from './serve.ts'
import { descriptorLimit, openSessionCap } from './connection-cap.ts'
import { readTokenFile } from './token.ts'
import { transferSessions } from './transfer.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')

async function main(): Promise<number> {
  const command = parseArgs(process.argv.slice(2))
  switch (command.kind) {
    case 'help':
      console.log(USAGE)
      return 0
    case 'check':
      return (await runCheck(command.paths, await checkFolds())) ? 0 : 1
    case 'check-database': {
      const store = await PostgresStore.open({ url: command.databaseUrl, schema: 'verify' })
      try {
        return (await runStoreCheck(store, command.sessionIds, await checkFolds())) ? 0 : 1
      } finally {
        await store.close()
      }
    }
    case 'transfer':
      return transfer(command.direction, command.databaseUrl, command.dataDir, command.sessionIds)
    case 'db':
      return runDatabase(command.dataDir, command.port)
    case 'serve': {
      const o = command.options
      if (o.tokenFile !== undefined) o.token = await readTokenFile(o.tokenFile)
      assertSafeToStart({
        bindHost: o.host,
        ...(o.token === undefined ? {} : { token: o.token }),
        ...(o.publicHost === undefined ? {} : { publicHost: o.publicHost }),
      })
      const store =
        o.databaseUrl === undefined
          ? undefined
          : await PostgresStore.open({
              url: o.databaseUrl,
              log: (line) => console.error(line),
              // every process is its own lease owner: a restarted replica never writes on a dead one's leases
              replica: { owner: `${o.replicaId ?? hostname()}.${process.pid}.${randomBytes(3).toString('hex')}`, leaseMs: o.leaseMs },
            })
      if (o.build) await ensureOverlayBuilt(root, (line) => console.error(line))
      const { host, schedules } = await compose({
        ...(store ? { store } : {}),
        dataDir: o.dataDir,
        model: o.model,
        ...(o.modelDelayMs === undefined ? {} : { modelDelayMs: o.modelDelayMs }),
        ...(o.modelTimeoutMs === undefined ? {} : { modelTimeoutMs: o.modelTimeoutMs }),
        ...(o.refreshIntervalMs === undefined ? {} : { refreshIntervalMs: o.refreshIntervalMs }),
        ...(o.timeZone === undefined ? {} : { timeZone: o.timeZone }),
        maxOpenSessions: o.maxOpenSessions ?? openSessionCap(descriptorLimit(), DEFAULT_MAX_OPEN_SESSIONS),
      })
      const server = await listen({
        host,
        bindHost: o.host,
        port: o.port,
        overlayRoot: root,
        schedules,
        ...(o.token === undefined ? {} : { token: o.token }),
        ...(o.publicHost === undefined ? {} : { publicHost: o.publicHost }),
        ...(o.maxConnections === undefined ? {} : { maxConnections: o.maxConnections }),
      })
      if (o.publicHost !== undefined && o.token === undefined) console.error(publicWithoutToken(o.publicHost))
      console.log(`listening on ${server.url}`)
      void host.start()
      const stop = (): void => {
        void server.close().finally(() => process.exit(0))
      }
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
      return -1
    }
    default: {
      const never: never = command
      throw new Error(`unknown command ${JSON.stringify(never)}`)
    }
  }
}

/** The startup warning of a public host served without a token (SPEC 12.3 requires one only off loopback, but a proxy in front of loopback opens the API to whoever reaches the proxy). */
function publicWithoutToken(publicHost: string): string {
  return `warning: ${publicHost} is served without a token: anyone who reaches it can read and write every Session (set --token, --token-file or SCHEDULE_WEB_TOKEN)`
}

/** `export` (PostgreSQL → JSONL files) or `import` (JSONL files → PostgreSQL). */
async function transfer(direction: TransferDirection, databaseUrl: string, dataDir: string, sessionIds: string[]): Promise<number> {
  if (direction === 'import' && !existsSync(join(dataDir, 'sessions'))) throw new Error(`${dataDir} holds no sessions folder to import from`)
  const database = await PostgresStore.open({ url: databaseUrl, schema: direction === 'import' ? 'migrate' : 'verify', log: (line) => console.error(line) })
  let files: Store | null = null
  try {
    files = await JsonlStore.open({ dataDir, log: (line) => console.error(line) })
    const [from, to] = direction === 'export' ? [database, files] : [files, database]
    const summary = await transferSessions({ from, to, sessionIds, folds: await checkFolds(), label: direction })
    return summary.failed === 0 ? 0 : 1
  } finally {
    await files?.close()
    await database.close()
  }
}

/** `npm run db`: a real embedded PostgreSQL for development, until interrupted. */
async function runDatabase(dataDir: string, port: number): Promise<number> {
  const db = await EmbeddedDatabase.start({ dataDir, port })
  console.log(`database listening on ${db.url}`)
  console.error(`data in ${dataDir}; start the server on it with: npm start -- --database-url '${db.url}'`)
  const stop = (): void => {
    void db.stop().finally(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  db.onExit((unexpected) => {
    if (!unexpected) return
    console.error('the database server stopped unexpectedly')
    process.exit(1)
  })
  return -1
}

main().then(
  (code) => {
    if (code >= 0) process.exitCode = code
  },
  (error: unknown) => {
    console.error(errorMessage(error))
    process.exitCode = 2
  },
)

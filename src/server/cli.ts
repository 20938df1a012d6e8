import { errorMessage } from '../protocol/index.ts'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import { parseArgs, USAGE } from './cli-args.ts'
import { runCheck } from './check.ts'
import { checkFolds, compose } from './compose.ts'
import { ensureOverlayBuilt } from './overlay-build.ts'
import { assertSafeToStart, listen } from './serve.ts'
import { descriptorLimit, openSessionCap } from './connection-cap.ts'
import { DEFAULT_MAX_OPEN_SESSIONS } from '../host/index.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')

async function main(): Promise<number> {
  const command = parseArgs(process.argv.slice(2))
  switch (command.kind) {
    case 'help':
      console.log(USAGE)
      return 0
    case 'check':
      return (await runCheck(command.paths, await checkFolds())) ? 0 : 1
    case 'serve': {
      const o = command.options
      assertSafeToStart({
        bindHost: o.host,
        ...(o.token === undefined ? {} : { token: o.token }),
        ...(o.publicHost === undefined ? {} : { publicHost: o.publicHost }),
      })
      if (o.build) await ensureOverlayBuilt(root, (line) => console.error(line))
      const { host, schedules } = await compose({
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

main().then(
  (code) => {
    if (code >= 0) process.exitCode = code
  },
  (error: unknown) => {
    console.error(errorMessage(error))
    process.exitCode = 2
  },
)

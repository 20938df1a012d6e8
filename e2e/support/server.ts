import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')

/** Options of a test server. */
export type ServerOptions = { args?: string[]; script?: unknown[]; dataDir?: string; port?: number }

/**
 * The offline script of a reminder asked for in chat that comes due `seconds` later: the model
 * creates it, says `ack`, and says `relay` when the follow-up of the due reminder runs.
 */
export function dueSoonScript(prompt: string, seconds: number, ack: string, relay: string): unknown[] {
  return [{ toolCalls: [{ name: 'schedule_create', arguments: { prompt, after_seconds: seconds } }] }, { text: ack }, { text: relay }]
}

/** A real server process on a free port with a temp data dir. */
export type TestServer = {
  url: string
  dataDir: string
  /** kill -9, or SIGTERM when graceful. */
  stop(graceful?: boolean): Promise<void>
  /** Stops and starts again on the same data dir: a new port, or the same one (and, when given, another model script or flags). */
  restart(options?: { samePort?: boolean; script?: unknown[]; args?: string[] }): Promise<TestServer>
  /** Stops the server (kill -9) and removes its data dir. */
  dispose(): Promise<void>
  /** What the server wrote to stderr so far (for failure messages). */
  stderr(): string
}

const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/** Starts `src/server/cli.ts serve` on port 0 and resolves once it prints its listening line. */
export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'sw-e2e-')))
  const args = [...(options.args ?? [])]
  if (options.script) {
    const path = join(dataDir, 'script.json')
    await writeFile(path, JSON.stringify(options.script))
    args.push('--model', `script:${path}`)
  }
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'src/server/cli.ts'), 'serve', '--port', String(options.port ?? 0), '--data-dir', dataDir, '--no-build', ...args],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATABASE_URL: '' } },
  )
  running.add(child)
  child.once('exit', () => running.delete(child))
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 20_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening on (http:\/\/\S+)/.exec(out)
      if (match) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`server exited (${String(code)}): ${stderr}`))
    })
  })
  const stop = async (graceful = false): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill(graceful ? 'SIGTERM' : 'SIGKILL')
    await exited
  }
  return {
    url,
    dataDir,
    stop,
    stderr: () => stderr,
    dispose: async () => {
      await stop()
      await rm(dataDir, { recursive: true, force: true })
    },
    restart: async (again = {}) => {
      await stop(true)
      return startServer({
        dataDir,
        args: again.args ?? options.args,
        script: again.script ?? (again.args === undefined ? options.script : undefined),
        port: again.samePort === true ? Number(new URL(url).port) : undefined,
      })
    },
  }
}

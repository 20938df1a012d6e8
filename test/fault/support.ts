import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'

/** Root of the repository (the CLI runs from here). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The seeded PRNG (mulberry32) shared with the bench: the same seed gives the same plan on every run. */
export { Prng as Rng } from '../support/prng.ts'

/** A child process of the CLI with its captured output. */
export type CliProcess = {
  child: ChildProcessByStdio<null, Readable, Readable>
  stdout: () => string
  stderr: () => string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Runs `node --import tsx src/server/cli.ts <args>` as one process (so SIGKILL lands on the server itself). */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SCHEDULE_WEB_TOKEN: '', PORT: '', DATABASE_URL: '', ...env },
  })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  return { child, stdout: () => out, stderr: () => err, exited }
}

/** Starts `serve` on a free loopback port and resolves once it printed its listening line. */
export async function startServer(dataDir: string, extra: string[] = []): Promise<CliProcess & { url: string }> {
  const running = cli(['serve', '--port', '0', '--data-dir', dataDir, '--no-build', ...extra])
  const deadline = Date.now() + 20_000
  while (!running.stdout().includes('\n')) {
    if (running.child.exitCode !== null || running.child.signalCode !== null || Date.now() > deadline) {
      running.child.kill('SIGKILL')
      throw new Error(`server did not start: ${running.stdout()} ${running.stderr()}`)
    }
    await sleep(10)
  }
  const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(running.stdout())
  if (!match) throw new Error(`unexpected first output ${JSON.stringify(running.stdout())}`)
  return { ...running, url: match[1] }
}

/** Runs `check` over paths and resolves with its exit code and output. */
export async function runCheckCli(paths: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const running = cli(['check', ...paths])
  const { code } = await running.exited
  return { code, stdout: running.stdout(), stderr: running.stderr() }
}

/** Waits ms. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * Every file under a directory (relative path → bytes), for "nothing was written" comparisons. The
 * store's catalog of session summaries (and its journal) is left out: it is derived data the store rewrites in the
 * background, not something a request writes.
 */
export async function snapshotDir(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>()
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(dir, rel), { withFileTypes: true })
    for (const entry of entries) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`
      if (/^catalog\.(json|journal)(\.\d+\.tmp)?$/.test(child)) continue
      if (entry.isDirectory()) {
        out.set(`${child}/`, Buffer.alloc(0))
        await walk(child)
      } else out.set(child, await readFile(join(dir, child)))
    }
  }
  await walk('')
  return out
}

/** Describes how two snapshots differ, or null when they are identical. */
export function diffSnapshots(before: Map<string, Buffer>, after: Map<string, Buffer>): string | null {
  const changes: string[] = []
  for (const [name, bytes] of after) {
    const old = before.get(name)
    if (old === undefined) changes.push(`new ${name} (${bytes.length} bytes)`)
    else if (!old.equals(bytes)) changes.push(`changed ${name} (${old.length} → ${bytes.length} bytes)`)
  }
  for (const name of before.keys()) if (!after.has(name)) changes.push(`removed ${name}`)
  return changes.length === 0 ? null : changes.join('; ')
}

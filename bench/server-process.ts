import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'

/** Root of the repository (the CLI runs from here). */
const ROOT = fileURLToPath(new URL('..', import.meta.url))

const TICKS_PER_SECOND = 100

/** A process started by the bench, with its output, its start time and its resource figures. */
export type BenchProcess = {
  child: ChildProcessByStdio<null, Readable, Readable>
  pid: number
  /** performance.now() when the process was spawned. */
  spawnedAt: number
  stdout: () => string
  stderr: () => string
  /** Resident set size now, in bytes. */
  rss: () => number
  /** CPU time used so far (user + system, all threads), in ms. */
  cpuMs: () => number
  /** SIGTERM, then SIGKILL after 10 s; resolves once it exited. */
  stop: () => Promise<void>
}

/** A process that printed a line matching its ready pattern. */
export type ReadyProcess = BenchProcess & { line: RegExpExecArray; readyMs: number }

/** The resident set size of a live process in bytes, from /proc. */
export function rssOf(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (match === null) throw new Error(`no VmRSS for process ${pid}`)
  return Number(match[1]) * 1024
}

/** The CPU time of a live process (utime + stime of every thread) in ms, from /proc. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND
}

/**
 * Spawns `node <args>` from the repository root and resolves once a stdout line matches `ready`
 * (with the time from the spawn to that line); rejects when it exits first or after `timeoutMs`.
 */
export function spawnReady(args: string[], ready: RegExp, options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<ReadyProcess> {
  const spawnedAt = performance.now()
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SCHEDULE_WEB_TOKEN: '', PORT: '', ...options.env },
  })
  let out = ''
  let err = ''
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const pid = child.pid as number
  const proc: BenchProcess = {
    child,
    pid,
    spawnedAt,
    stdout: () => out,
    stderr: () => err,
    rss: () => rssOf(pid),
    cpuMs: () => cpuMsOf(pid),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      child.kill('SIGTERM')
      await exited
      clearTimeout(killer)
    },
  }
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
  return new Promise<ReadyProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${args.join(' ')} did not get ready in time: ${out} ${err}`))
    }, options.timeoutMs ?? 60_000)
    let seen = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const line = seen ? null : ready.exec(out)
      if (line === null) return
      seen = true
      clearTimeout(timer)
      resolve({ ...proc, line, readyMs: performance.now() - spawnedAt })
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${args.join(' ')} exited (${code ?? signal}) before it was ready: ${out} ${err}`))
    })
  })
}

/** A running `serve` of the real CLI. */
export type ServerProcess = ReadyProcess & { url: string }

/** How to start the CLI: extra `serve` flags, environment, flags of node itself (e.g. `--cpu-prof`). */
export type CliOptions = { args?: string[]; env?: NodeJS.ProcessEnv; nodeArgs?: string[] }

/** Starts the real CLI (`node --import tsx src/server/cli.ts serve --port 0 --data-dir DIR --no-build …`) and resolves once it listens. */
export async function startCli(dataDir: string, options: CliOptions = {}): Promise<ServerProcess> {
  const ready = await spawnReady(
    [...(options.nodeArgs ?? []), '--import', 'tsx', 'src/server/cli.ts', 'serve', '--port', '0', '--data-dir', dataDir, '--no-build', ...(options.args ?? [])],
    /listening on (http:\/\/\S+)\n/,
    { env: options.env ?? {} },
  )
  return { ...ready, url: ready.line[1] }
}

/** Starts the bare floor server (bench/bare-server.ts) writing into `dir` and resolves once it listens. */
export async function startBare(dir: string): Promise<ServerProcess> {
  const ready = await spawnReady(['--import', 'tsx', 'bench/bare-server.ts', dir], /listening on (http:\/\/\S+)\n/)
  return { ...ready, url: ready.line[1] }
}

/**
 * Waits until a process has been idle (under `busyMs` of CPU in each `windowMs`) for `quietWindows`
 * windows in a row; resolves with the time from `since` to the start of the quiet stretch, or null
 * when it did not settle within `timeoutMs`.
 */
export async function settle(
  proc: BenchProcess,
  since: number,
  options: { windowMs?: number; busyMs?: number; quietWindows?: number; timeoutMs?: number } = {},
): Promise<number | null> {
  const windowMs = options.windowMs ?? 100
  const busyMs = options.busyMs ?? 5
  const quietWindows = options.quietWindows ?? 3
  const deadline = performance.now() + (options.timeoutMs ?? 30_000)
  let quiet = 0
  let quietSince = performance.now()
  let cpu = proc.cpuMs()
  while (performance.now() < deadline) {
    const windowStart = performance.now()
    await new Promise((resolve) => setTimeout(resolve, windowMs))
    const now = proc.cpuMs()
    if (now - cpu <= busyMs) {
      if (quiet === 0) quietSince = windowStart
      quiet++
      if (quiet >= quietWindows) return quietSince - since
    } else quiet = 0
    cpu = now
  }
  return null
}

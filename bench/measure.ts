import { loadavg } from 'node:os'

/** One timed run: wall-clock and this process's CPU time (user + system, all threads). */
export type Timing = { wallMs: number; cpuMs: number }

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Nearest-rank percentile (p in 0..100) of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)))
  return sorted[rank - 1]
}

/** Runs a full GC when the process was started with --expose-gc. */
export function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc) gc()
}

/** Times one async call after a full GC. */
export async function timed<T>(run: () => Promise<T> | T): Promise<{ value: T; timing: Timing }> {
  collect()
  const cpu = process.cpuUsage()
  const start = performance.now()
  const value = await run()
  const wallMs = performance.now() - start
  const used = process.cpuUsage(cpu)
  return { value, timing: { wallMs, cpuMs: (used.user + used.system) / 1000 } }
}

/** Median wall and CPU time of several timings. */
export function medianTiming(timings: readonly Timing[]): Timing {
  return { wallMs: median(timings.map((t) => t.wallMs)), cpuMs: median(timings.map((t) => t.cpuMs)) }
}

/** Human label of an event count. */
export function sizeLabel(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`
  return String(n)
}

/** A number with a fixed count of significant decimals for tables. */
export function fmt(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—'
  if (Math.abs(value) >= 100) return value.toFixed(0)
  return value.toFixed(digits)
}

/** The machine's 1, 5 and 15 minute load averages, as printed in the report. */
export function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
}

/** What a long CLI run has done so far. */
export type ProgressState = {
  label: string
  /** Sessions or files done, and how many there are. */
  done: number
  total: number
  unit: string
  events: number
  elapsedMs: number
}

function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const rest = String(s % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`
}

/** The progress line (SPEC 11): items and events done, the event rate, and the time left at the rate so far. */
export function progressLine(state: ProgressState): string {
  const seconds = state.elapsedMs / 1000
  const rate = seconds > 0 ? Math.round(state.events / seconds) : 0
  const eta = state.done > 0 && state.done < state.total ? `, ETA ${clock((seconds * (state.total - state.done)) / state.done)}` : ''
  return `${state.label}: ${state.done.toLocaleString('en-US')}/${state.total.toLocaleString('en-US')} ${state.unit}, ${state.events.toLocaleString('en-US')} events, ${rate.toLocaleString('en-US')} events/s${eta}`
}

/** Where progress goes: a terminal stream (progress shows only on a TTY). */
export type ProgressStream = { isTTY?: boolean; write(text: string): unknown }

/**
 * Progress of a long CLI run (check, export, import) on one rewritten terminal line, at most every
 * `intervalMs`; nothing at all when the stream is not a TTY.
 */
export class Progress {
  private done = 0
  private events = 0
  private lastDraw = -Infinity
  private drawn = false
  private readonly started: number

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly unit: string,
    private readonly stream: ProgressStream = process.stderr,
    private readonly now: () => number = () => performance.now(),
    private readonly intervalMs = 200,
  ) {
    this.started = now()
  }

  /** Counts events read or written within the current item. */
  addEvents(count: number): void {
    this.events += count
    this.draw()
  }

  /** Counts one finished item. */
  finishItem(): void {
    this.done++
    this.draw()
  }

  /** Clears the line before other output, so it never mixes with result lines. */
  clear(): void {
    if (!this.drawn) return
    this.stream.write('\r\x1b[2K')
    this.drawn = false
    this.lastDraw = -Infinity
  }

  /** Clears the progress line at the end of the run. */
  end(): void {
    this.clear()
  }

  private draw(): void {
    if (this.stream.isTTY !== true) return
    const at = this.now()
    if (at - this.lastDraw < this.intervalMs) return
    this.lastDraw = at
    this.drawn = true
    const line = progressLine({ label: this.label, done: this.done, total: this.total, unit: this.unit, events: this.events, elapsedMs: at - this.started })
    this.stream.write(`\r\x1b[2K${line}`)
  }
}

/**
 * Runs `run` over items one by one, printing each result line (never mixed with the progress line)
 * and counting finished items; resolves true iff every item was ok.
 */
export async function eachWithProgress<T>(
  progress: Progress,
  items: readonly T[],
  run: (item: T) => Promise<{ ok: boolean; line: string }>,
  print: (line: string) => void,
): Promise<boolean> {
  let allOk = true
  for (const item of items) {
    const result = await run(item)
    progress.clear()
    print(result.line)
    progress.finishItem()
    allOk &&= result.ok
  }
  progress.end()
  return allOk
}

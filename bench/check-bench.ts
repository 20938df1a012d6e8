import { readFile } from 'node:fs/promises'
import type { SessionEvent } from '../src/protocol/events.ts'
import { loadSessionFile as loadFile, nodeFiles } from '../src/host/index.ts'

const loadSessionFile = (path: string) => loadFile(path, nodeFiles)
import { checkSessionLog } from '../src/invariant/check-session-log.ts'
import { isTimeContextSource } from '../src/protocol/index.ts'
import { foldSchedule } from '../src/schedule/index.ts'
import { checkFile } from '../src/server/check.ts'
import type { SessionFold } from '../src/host/index.ts'
import { medianTiming, timed, type Timing } from './measure.ts'
import { naiveCheckSessionLog } from './naive.ts'

/** Median timings of whole-log validation of one file beside the time to read it and parse every line. */
export type CheckRow = {
  floor: Timing
  check: Timing
  naive: Timing | null
}

/** The floor: read the file and `JSON.parse` every line (decoded from the Buffer one line at a time), keeping nothing. */
export async function readAndParse(path: string): Promise<number> {
  const buf = await readFile(path)
  let pos = 0
  let lines = 0
  while (pos < buf.length) {
    let nl = buf.indexOf(0x0a, pos)
    if (nl === -1) nl = buf.length
    JSON.parse(buf.toString('utf8', pos, nl))
    lines++
    pos = nl + 1
  }
  return lines
}

/** The floor of opening (SPEC 12.1): read the file and `JSON.parse` every line, keeping the objects. */
export async function readAndParseKeeping(path: string): Promise<unknown[]> {
  const buf = await readFile(path)
  const kept: unknown[] = []
  let pos = 0
  while (pos < buf.length) {
    let nl = buf.indexOf(0x0a, pos)
    if (nl === -1) nl = buf.length
    kept.push(JSON.parse(buf.toString('utf8', pos, nl)))
    pos = nl + 1
  }
  return kept
}

async function ok(label: string, run: () => Promise<{ ok: boolean }>): Promise<Timing> {
  const { value, timing } = await timed(run)
  if (!value.ok) throw new Error(`${label} rejects a generated session: ${JSON.stringify(value)}`)
  return timing
}

/** Times read+parse and `checkFile` (interleaved) and, optionally, the naive checker. */
export async function measureCheck(path: string, reps: number, naiveReps: number, folds: readonly SessionFold<unknown>[]): Promise<CheckRow> {
  const floor: Timing[] = []
  const check: Timing[] = []
  for (let r = 0; r < reps; r++) {
    floor.push((await timed(() => readAndParse(path))).timing)
    check.push(await ok('checkFile', () => checkFile(path, folds)))
  }
  const naive: Timing[] = []
  for (let r = 0; r < naiveReps; r++) {
    naive.push(
      await ok('naive checker', async () => {
        const { header, events } = await loadSessionFile(path)
        const invariant = naiveCheckSessionLog(header, events)
        return { ok: invariant.ok && foldSchedule(events).ok }
      }),
    )
  }
  return {
    floor: medianTiming(floor),
    check: medianTiming(check),
    naive: naive.length > 0 ? medianTiming(naive) : null,
  }
}

/**
 * Guards the naive checker: on a valid log it accepts, and on logs with one reading tampered
 * (client zone, elapsed value, baseline label) it fails at the same seq with the same message as
 * the project's checker. Returns the disagreements.
 */
export async function naiveCheckerDisagreements(path: string): Promise<string[]> {
  const { header, events } = await loadSessionFile(path)
  const out: string[] = []
  const clean = naiveCheckSessionLog(header, events)
  if (!clean.ok) out.push(`naive checker rejects a valid log: ${clean.message}`)
  const readings = events.filter(
    (e): e is SessionEvent<'user/message'> => e.type === 'user/message' && isTimeContextSource(e.data.source),
  )
  const target = readings[Math.floor(readings.length / 2)]
  const tampers: [string, (text: string) => string][] = [
    ['client zone', (t) => t.replace(/request: [^\n]*\./, 'request: Europe/Paris.')],
    ['elapsed', (t) => t.replace(/: ([^\n]*)\.$/, ': 9d 9s.')],
    [
      'baseline',
      (t) =>
        t.includes('model-visible message') ? t.replace('model-visible message', 'step context') : t.replace('step context', 'model-visible message'),
    ],
  ]
  for (const [what, change] of tampers) {
    const text = change(target.data.content[0].text)
    const source = { ...target.data.source, sections: [{ name: 'time-context', text }] }
    const tampered = { ...target, data: { ...target.data, content: [{ type: 'text' as const, text }], source } }
    const copy = events.map((e) => (e === target ? tampered : e))
    const a = checkSessionLog(header, copy)
    const b = naiveCheckSessionLog(header, copy)
    if (a.ok || b.ok || a.seq !== b.seq || a.message !== b.message) {
      out.push(`naive and project checkers disagree on a tampered ${what}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`)
    }
  }
  return out
}

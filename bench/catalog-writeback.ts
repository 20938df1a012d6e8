/**
 * The JSONL catalog's write back at 10,000 sessions (`node --import tsx bench/catalog-writeback.ts`):
 * a whole rewrite of the catalog beside the journal append of 100 changed sessions, in-process,
 * on real files in a temp dir. Not part of `npm run bench` (no SPEC 12.1 target); a figure for notes.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Catalog } from '../src/host/store/jsonl/catalog.ts'
import { nodeFiles } from '../src/host/store/jsonl/file-layer.ts'
import type { StoredSummary } from '../src/host/store/store.ts'
import { median, timed } from './measure.ts'

const SESSIONS = 10_000
const CHANGED = 100
const REPS = 7

const file = { ino: 2_286_164, size: 4_122, mtimeMs: 1_796_142_334_775.432 }
const checkpoint = { bytes: 4_122, events: 17, sha256: 'd04175b4961eab66d7be8fbb63dbb530246ed9a9bef865f2ddee81a1f546ecce', ino: 2_286_164, key: '1|tz 2025c|time-context/invariant,schedule/state' }

function summary(eventCount: number): StoredSummary {
  return { title: 'What time is it?', eventCount, lastEventAt: 1_796_142_334_780, openTurn: false, pendingInbox: 0, nextDueAt: null }
}

/** A catalog of `SESSIONS` sessions with summaries like the server keeps, not yet written. */
function filled(dir: string): Catalog {
  const catalog = new Catalog(nodeFiles, join(dir, 'sessions'), join(dir, 'catalog.json'), () => undefined, 60_000)
  for (let i = 0; i < SESSIONS; i++) {
    const id = `session-${i}`
    catalog.add({ type: 'session', version: 1, id, createdAt: 1_796_142_332_533 + i, timeZone: 'Asia/Shanghai' })
    catalog.setSummary(id, summary(17), file, checkpoint)
  }
  return catalog
}

const dir = await mkdtemp(join(tmpdir(), 'catalog-writeback-'))
try {
  const whole: number[] = []
  const journal: number[] = []
  for (let r = 0; r < REPS; r++) {
    // a catalog that has not written yet writes itself whole
    const catalog = filled(dir)
    whole.push((await timed(() => catalog.flush())).timing.wallMs)
    for (let k = 0; k < CHANGED; k++) catalog.setSummary(`session-${(r * CHANGED + k) % SESSIONS}`, summary(18 + r), file, checkpoint)
    journal.push((await timed(() => catalog.flush())).timing.wallMs)
  }
  console.log(
    `catalog write back at ${SESSIONS.toLocaleString('en-US')} sessions (median of ${REPS}): whole rewrite ${median(whole).toFixed(1)} ms, ` +
      `${CHANGED} changed sessions through the journal ${median(journal).toFixed(1)} ms`,
  )
} finally {
  await rm(dir, { recursive: true, force: true })
}

import { createHash, type Hash } from 'node:crypto'
import { FoldingVisitor, isStoreError, type SessionFold, type SessionWriter, type Store } from '../host/index.ts'
import type { SessionEvent, SessionHeader } from '../protocol/index.ts'
import { failLine, sessionsToVisit } from './check.ts'
import { eachWithProgress, Progress } from './progress.ts'

const PAGE_EVENTS = 2000

/** `1 event`, `2 events`. */
function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

/** What moving sessions between two stores did. */
export type TransferSummary = { copied: number; upToDate: number; failed: number; events: number }

/** A session the destination already holds differently: it is never overwritten. */
class Diverged extends Error {}

type Destination = { count: number; digest: string; writer: SessionWriter | null }

function hashEvent(hash: Hash, event: SessionEvent): void {
  hash.update(JSON.stringify(event))
  hash.update('\n')
}

const EMPTY_DIGEST = createHash('sha256').digest('hex')

/** What the destination holds of a session: its event count, their digest, and its writer (null when it has none yet). */
async function destinationOf(to: Store, header: SessionHeader): Promise<Destination> {
  let existing: SessionHeader
  try {
    existing = await to.readHeader(header.id)
  } catch (error) {
    if (isStoreError(error) && error.code === 'not-found') return { count: 0, digest: EMPTY_DIGEST, writer: null }
    throw error
  }
  if (JSON.stringify(existing) !== JSON.stringify(header)) throw new Diverged(`the destination holds session ${header.id} with another header`)
  const hash = createHash('sha256')
  let count = 0
  const writer = await to.openSession(header.id, {
    header: () => undefined,
    event: (event) => {
      hashEvent(hash, event)
      count++
    },
  })
  return { count, digest: hash.digest('hex'), writer }
}

/**
 * Copies one session so the destination holds exactly the source's events, byte for byte: the
 * source is first read whole through the validating folds (a session `check` refuses is not
 * copied), a destination that already holds a prefix of it gets the rest in pages by seq (each
 * durable before the next is read), and one that holds anything else is left alone. Resolves
 * with the number of events copied, or null when the destination held them all already.
 */
async function transferOne(from: Store, to: Store, id: string, validating: readonly SessionFold<unknown>[], progress: Progress): Promise<number | null> {
  const header = await from.readHeader(id)
  const destination = await destinationOf(to, header)
  let writer = destination.writer
  try {
    const validator = new FoldingVisitor(id, validating, false)
    const prefix = createHash('sha256')
    let count = 0
    let prefixDigest = destination.count === 0 ? EMPTY_DIGEST : null
    await from.scanSession(id, {
      header: (h) => validator.header(h),
      event: (event) => {
        validator.event(event)
        if (count < destination.count) hashEvent(prefix, event)
        count++
        if (count === destination.count) prefixDigest = prefix.digest('hex')
      },
    })
    if (count < destination.count || prefixDigest !== destination.digest) {
      throw new Diverged(`the destination holds session ${id} with other events (${destination.count} of them)`)
    }
    // a session with no events yet is copied too (its header): on the code before it was taken as up to date
    if (count === destination.count && writer !== null) return null
    if (writer === null) {
      await to.createSession(header)
      writer = await to.openSession(id, { header: () => undefined, event: () => undefined })
    }
    for (let next = destination.count; next < count; ) {
      const { events } = await from.readEvents(id, { after: next - 1, limit: Math.min(PAGE_EVENTS, count - next) })
      if (events.length === 0) throw new Error(`session ${id} ends at seq ${next - 1} while it was copied`)
      writer.append(events)
      await writer.barrier()
      progress.addEvents(events.length)
      next += events.length
    }
    return count - destination.count
  } finally {
    await writer?.close()
  }
}

/**
 * Moves sessions from one store to another (`export`: PostgreSQL → JSONL, `import`: JSONL →
 * PostgreSQL; SPEC 11, 14.2): every session the source lists, or the ids given. Prints one line per
 * session (`copied`, `up to date` or `FAIL … seq <n>: <reason>`) and a summary; progress on a TTY.
 */
export async function transferSessions(options: {
  from: Store
  to: Store
  sessionIds: readonly string[]
  folds: readonly SessionFold<unknown>[]
  label: 'export' | 'import'
  print?: (line: string) => void
}): Promise<TransferSummary> {
  const print = options.print ?? console.log
  const validating = options.folds.filter((fold) => fold.validate !== undefined)
  const entries = await sessionsToVisit(options.from, options.sessionIds)
  const progress = new Progress(options.label, entries.length, 'sessions')
  const summary: TransferSummary = { copied: 0, upToDate: 0, failed: 0, events: 0 }
  const one = async (entry: { id: string; problem: unknown }): Promise<{ ok: boolean; line: string }> => {
    if (entry.problem !== null) {
      summary.failed++
      return { ok: false, line: failLine(entry.id, entry.problem) }
    }
    try {
      const copied = await transferOne(options.from, options.to, entry.id, validating, progress)
      if (copied === null) {
        summary.upToDate++
        return { ok: true, line: `up to date ${entry.id}` }
      }
      summary.events += copied
      summary.copied++
      return { ok: true, line: `copied ${entry.id}: ${plural(copied, 'event')}` }
    } catch (error) {
      summary.failed++
      return { ok: false, line: error instanceof Diverged ? `FAIL ${entry.id} seq -1: ${error.message}` : failLine(entry.id, error) }
    }
  }
  await eachWithProgress(progress, entries, one, print)
  const verb = options.label === 'export' ? 'exported' : 'imported'
  print(`${verb} ${plural(summary.copied, 'session')} (${plural(summary.events, 'event')}); ${summary.upToDate} already up to date; ${summary.failed} failed`)
  return summary
}

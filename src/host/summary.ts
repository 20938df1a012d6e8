import { inboxFold, loopFold, titleFold } from './folds.ts'
import type { FoldReader } from './plugin-api.ts'
import type { PluginRegistry } from './registry.ts'
import type { StoredSummary } from './store/index.ts'

/** The summary a store keeps of a session (SPEC 14.1), from its fold states and its last event. */
export function summarize(folds: FoldReader, eventCount: number, lastEventAt: number | null, registry: PluginRegistry): StoredSummary {
  let nextDueAt: number | null = null
  for (const provider of registry.nextDue) {
    if (provider.owner.disposed) continue
    const at = provider.value(folds)
    if (at !== null && (nextDueAt === null || at < nextDueAt)) nextDueAt = at
  }
  return {
    title: folds.fold(titleFold).title,
    eventCount,
    lastEventAt,
    openTurn: folds.fold(loopFold).openTurn !== null,
    pendingInbox: folds.fold(inboxFold).size,
    nextDueAt,
  }
}

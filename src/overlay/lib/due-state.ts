import type { LogSnooze } from './conversation.ts'

/**
 * Where one occurrence come due stands in this browser, which its due card and its toast both say: `due` (Snooze and
 * Done offered), snoozed until `until` (ISO), its snooze deleted since, or Done.
 */
export type DueState = { kind: 'due' } | { kind: 'snoozed'; until: string } | { kind: 'snooze-deleted' } | { kind: 'done' }

/** One occurrence come due: its key (`noticeKey`), its reminder and when it came due. */
export type DueOccurrence = { key: string; scheduleId: string; occurrenceAt: string }

/** The marks this browser keeps by occurrence key: Done, and Snoozed with when the snooze is due (ISO). */
export type DueMarks = { done: ReadonlySet<string>; snoozed: Readonly<Record<string, string>> }

/**
 * Where an occurrence stands, from this browser's marks and the snoozes of its Session's log this browser holds
 * (`ConversationFold.snoozes`, none when it holds no log): an occurrence whose last snooze the log shows deleted is no
 * longer snoozed, whatever was marked here, and is offered neither Snooze nor Done.
 */
export function dueState(occurrence: DueOccurrence, marks: DueMarks, snoozes: readonly LogSnooze[]): DueState {
  if (lastSnoozeDeleted(occurrence, snoozes)) return { kind: 'snooze-deleted' }
  const until = marks.snoozed[occurrence.key]
  if (until !== undefined) return { kind: 'snoozed', until }
  return marks.done.has(occurrence.key) ? { kind: 'done' } : { kind: 'due' }
}

function lastSnoozeDeleted({ scheduleId, occurrenceAt }: DueOccurrence, snoozes: readonly LogSnooze[]): boolean {
  for (let i = snoozes.length - 1; i >= 0; i--) {
    const snooze = snoozes[i]
    if (snooze.scheduleId === scheduleId && snooze.occurrenceAt === occurrenceAt) return snooze.deleted
  }
  return false
}

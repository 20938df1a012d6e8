import { useRef } from 'react'
import { useSchedules } from '../data/queries.ts'
import { dueReminderZone } from '../lib/reminder-row.ts'

/**
 * The zone a due occurrence of a reminder is read in (see `dueReminderZone`); a zone once read from the reminders listed
 * is kept, so a one-off leaving the list as it is delivered does not move its time to the Session's clock.
 */
export function useDueReminderZone(sessionId: string, scheduleId: string, logged: ReadonlyMap<string, string | null> | undefined, sessionZone: string | null): string | null {
  const views = useSchedules(sessionId).data
  const listed = useRef<string | null>(null)
  const listedNow = views?.some((v) => v.id === scheduleId) === true ? dueReminderZone(scheduleId, views, undefined, sessionZone) : null
  if (listedNow !== null) listed.current = listedNow
  return listed.current ?? dueReminderZone(scheduleId, undefined, logged, sessionZone)
}

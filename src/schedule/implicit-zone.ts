import type { SessionEvent, SessionHeader } from '../protocol/index.ts'
import { canonicalTimeZone, decodeTimeContextReading, nextTurnZones, sameTimeZone, turnClientZones } from '../protocol/index.ts'
import { timezoneConfirmationRequired, type ScheduleError } from './errors.ts'

/** The outcome of the implicit-zone check (SPEC 7.2). */
export type ImplicitZoneResult = { ok: true; timeZone: string } | { ok: false; error: ScheduleError }

/** Index of the `turn/start` of the turn whose step is open at the end of the log, or -1 (SPEC 7.2 step 1). */
export function openTurnStartIndex(events: readonly SessionEvent[]): number {
  let stepStart = -1
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const type = events[i].type
    if (type === 'step/end' || type === 'turn/end') return -1
    if (type === 'step/start') {
      stepStart = i
      break
    }
  }
  if (stepStart === -1) return -1
  const stepEvent = events[stepStart]
  if (stepEvent.type !== 'step/start') return -1
  for (let i = stepStart - 1; i >= 0; i -= 1) {
    const event = events[i]
    if (event.type === 'turn/end') return -1
    if (event.type === 'turn/start') return event.data.turn === stepEvent.data.turn ? i : -1
  }
  return -1
}

/**
 * The zone a local `at` or an rrule without `time_zone` means, failing closed (SPEC 7.2): accepted iff the
 * open turn has an exact time-context reading, the Session zone exists, the turn's user-rpc
 * messages resolve to one client zone, and the two zones are equal. Never reads the process zone.
 */
export function resolveImplicitZone(
  header: SessionHeader,
  events: readonly SessionEvent[],
  subject: 'at' | 'rrule' = 'at',
): ImplicitZoneResult {
  const sessionZone = header.timeZone
  const sessionTimeZone = sessionZone === undefined ? 'unavailable' : sessionZone
  const start = openTurnStartIndex(events)
  let turnZones: readonly string[] = []
  let hasReading = false
  if (start !== -1) {
    for (let i = start + 1; i < events.length; i += 1) {
      const event = events[i]
      turnZones = nextTurnZones(turnZones, event, true)
      if (!hasReading && event.type === 'user/message' && decodeTimeContextReading(event.data) !== null) hasReading = true
    }
  }
  const client = hasReading ? turnClientZones(turnZones) : { kind: 'missing' as const }
  if (client.kind === 'resolved' && sessionZone !== undefined && sameTimeZone(sessionZone, client.timeZone)) {
    const timeZone = canonicalTimeZone(sessionZone)
    if (timeZone !== null) return { ok: true, timeZone }
  }
  const clientTimeZones = client.kind === 'missing' ? [] : client.kind === 'resolved' ? [client.timeZone] : client.timeZones
  return { ok: false, error: timezoneConfirmationRequired(sessionTimeZone, clientTimeZones, subject) }
}

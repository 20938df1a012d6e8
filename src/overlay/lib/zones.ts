import { canonicalTimeZone, sameTimeZone } from '../../protocol/index.ts'

/** How the open Session's zone relates to this browser's zone. */
export type ZoneAgreement =
  | { kind: 'same' }
  | { kind: 'different'; sessionZone: string; browserZone: string }
  | { kind: 'headerless'; browserZone: string }
  | { kind: 'browser-unknown'; sessionZone: string | null }

/** Compares the Session zone with the browser zone canonically (SPEC 4.1). */
export function compareZones(sessionZone: string | null, browserZone: string | null): ZoneAgreement {
  if (browserZone === null || canonicalTimeZone(browserZone) === null) return { kind: 'browser-unknown', sessionZone }
  if (sessionZone === null) return { kind: 'headerless', browserZone }
  return sameTimeZone(sessionZone, browserZone) ? { kind: 'same' } : { kind: 'different', sessionZone, browserZone }
}


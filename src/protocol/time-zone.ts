import { memoized } from './memo.ts'

const ZONE_PATTERN = /^[A-Za-z][A-Za-z0-9_+.-]*(?:\/[A-Za-z0-9_+.-]+)+$/

/** True iff a name has the shape of an accepted zone: `UTC` or the SPEC 4.1 pattern (not checked against Intl). */
export function isZoneShape(name: string): boolean {
  return name === 'UTC' || ZONE_PATTERN.test(name)
}

function resolve(value: string): string | null {
  if (value.length === 0 || value !== value.trim() || !isZoneShape(value)) return null
  let resolved: string
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone
  } catch {
    return null
  }
  return typeof resolved === 'string' && isZoneShape(resolved) ? resolved : null
}

/** Zones resolved lately: every message and request names one, through Intl. */
const resolved = memoized(resolve, 4096)

/** Canonical IANA name of a zone value (SPEC 4.1), or null when the value is not an accepted zone. */
export function canonicalTimeZone(value: unknown): string | null {
  return typeof value === 'string' ? resolved(value) : null
}

/** Zone equality by canonical form recomputed by this runtime; invalid zones are never equal. */
export function sameTimeZone(a: unknown, b: unknown): boolean {
  const ca = canonicalTimeZone(a)
  return ca !== null && ca === canonicalTimeZone(b)
}

const ZONE_PATTERN = /^[A-Za-z][A-Za-z0-9_+.-]*(?:\/[A-Za-z0-9_+.-]+)+$/
const cache = new Map<string, string | null>()
const CACHE_LIMIT = 4096

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

/** Canonical IANA name of a zone value (SPEC 4.1), or null when the value is not an accepted zone. */
export function canonicalTimeZone(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const hit = cache.get(value)
  if (hit !== undefined) return hit
  const result = resolve(value)
  if (cache.size >= CACHE_LIMIT) cache.clear()
  cache.set(value, result)
  return result
}

/** Zone equality by canonical form recomputed by this runtime; invalid zones are never equal. */
export function sameTimeZone(a: unknown, b: unknown): boolean {
  const ca = canonicalTimeZone(a)
  return ca !== null && ca === canonicalTimeZone(b)
}

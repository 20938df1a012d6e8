/** A sorted, de-duplicated zone list that is copied only when a new zone joins it. */
export function addZone(zones: readonly string[], zone: string): readonly string[] {
  let low = 0
  let high = zones.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (zones[mid] < zone) low = mid + 1
    else high = mid
  }
  if (zones[low] === zone) return zones
  return [...zones.slice(0, low), zone, ...zones.slice(low)]
}

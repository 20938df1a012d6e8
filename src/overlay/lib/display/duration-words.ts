const UNITS: ReadonlyArray<readonly [seconds: number, one: string, many: string]> = [
  [86_400, 'day', 'days'],
  [3_600, 'h', 'h'],
  [60, 'min', 'min'],
  [1, 's', 's'],
]

/** A span of whole seconds in words a person reads: `15 min`, `1 h 30 min`, `2 days`, `45 s` (zero parts left out). */
export function durationWords(totalSeconds: number): string {
  let rest = Math.max(0, Math.floor(totalSeconds))
  if (rest === 0) return '0 s'
  const parts: string[] = []
  for (const [size, one, many] of UNITS) {
    const count = Math.floor(rest / size)
    rest -= count * size
    if (count > 0) parts.push(`${count} ${count === 1 ? one : many}`)
  }
  return parts.join(' ')
}

/** How an interval repeats: `Every 15 min`, `Every day`, `Every 2 days`, `Every 1 h 30 min`. */
export function everyWords(totalSeconds: number): string {
  return totalSeconds === 86_400 ? 'Every day' : `Every ${durationWords(totalSeconds)}`
}

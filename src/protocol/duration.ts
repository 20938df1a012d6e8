const UNITS: ReadonlyArray<readonly [suffix: string, seconds: number]> = [
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
]
const DURATION = /^(?:([1-9][0-9]*)d )?(?:([1-9]|1[0-9]|2[0-3])h )?(?:([1-9]|[1-5][0-9])m )?([0-9]|[1-5][0-9])s$/

/** Whole seconds as `Nd Nh Nm Ns`, leaving out zero days/hours/minutes, seconds always present (SPEC 5.4). */
export function formatSeconds(totalSeconds: number): string {
  let rest = Math.max(0, Math.floor(totalSeconds))
  const parts: string[] = []
  for (const [suffix, size] of UNITS) {
    const count = Math.floor(rest / size)
    rest -= count * size
    if (count > 0) parts.push(`${count}${suffix}`)
  }
  parts.push(`${rest}s`)
  return parts.join(' ')
}

/** Whole-second compact duration `Nd Nh Nm Ns` of a millisecond span, or `unavailable` for null (SPEC 5.4). */
export function formatDuration(ms: number | null): string {
  if (ms === null) return 'unavailable'
  if (!Number.isFinite(ms)) throw new RangeError(`time-context: duration must be finite, got ${String(ms)}`)
  return formatSeconds(Math.max(0, ms) / 1000)
}

/** True iff the text has the exact shape `formatSeconds` renders (any day count). */
export function isDurationText(text: string): boolean {
  return DURATION.test(text)
}

/** Whole seconds of a duration exactly as `formatDuration` renders it, or null for any other text. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text)
  if (match === null) return null
  const [, d, h, m, s] = match
  const seconds = Number(d ?? 0) * 86_400 + Number(h ?? 0) * 3_600 + Number(m ?? 0) * 60 + Number(s)
  return Number.isSafeInteger(seconds) ? seconds : null
}

/** How a failed model request is retried: tries in all, and the capped exponential backoff between them. */
export type RetryPolicy = { tries: number; baseDelayMs: number; maxDelayMs: number }

/** At most 3 tries; waits of 0.5–1 s, then 1–2 s (doubling, capped at 8 s). */
export const DEFAULT_RETRY: RetryPolicy = { tries: 3, baseDelayMs: 1_000, maxDelayMs: 8_000 }

/** Whether an HTTP status is worth another try (rate limited or a server error). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599)
}

/** The wait before retry n (1-based): the capped exponential step, its upper half picked by `random` in [0, 1). */
export function backoffDelayMs(policy: RetryPolicy, retry: number, random: number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1))
  return Math.round(step / 2 + (random * step) / 2)
}

/** The wait a `Retry-After` header asks for (delay-seconds or an HTTP date, against `now`), or undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined
  const value = header.trim()
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1_000)
  if (!/[a-z]/i.test(value)) return undefined
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

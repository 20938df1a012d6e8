import { HostError } from '../host/index.ts'

/** How many keyed requests a server remembers (the newest, over all sessions). */
export const KEYED_KEPT = 10_000

type Held = { request: string; answer: Promise<unknown>; id: () => string | null }

/** A request's fields as one string, the same whatever order the sender put their keys in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined)
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/**
 * The reminder requests a person sent with an `Idempotency-Key`, held by the server that runs them (the one that holds
 * the session): a request sent again under its key, after an answer that was lost, answers what the first did and
 * does nothing more; the same key with another request is refused. An answer that failed is not held, so the request
 * can be sent again. Kept in memory only: the durable change format has no place for a key (SPEC 7.6).
 */
export class KeyedRequests {
  private readonly held = new Map<string, Held>()

  constructor(private readonly kept = KEYED_KEPT) {}

  /**
   * Runs `request` once per `key` in `sessionId`; `idOf` names what a successful answer made or changed, for the
   * refusal of a reused key. Without a key, simply runs it.
   */
  async once<T>(
    sessionId: string,
    key: string | undefined,
    request: unknown,
    idOf: (answer: T) => string | null,
    run: () => Promise<T>,
    /** What a repeat answers, from the first answer (by default the first answer itself); null: what the first made is gone, so the repeat runs as a new request. */
    repeat: (first: T) => T | null = (first) => first,
  ): Promise<T> {
    if (key === undefined) return run()
    const slot = `${sessionId} ${key}`
    const fields = canonical(request)
    const earlier = this.held.get(slot)
    if (earlier !== undefined) {
      const first = (await earlier.answer.catch(() => undefined)) as T | undefined
      if (this.held.get(slot) === earlier) {
        if (earlier.request !== fields) {
          throw new HostError('idempotency-key-reused', `Idempotency-Key ${JSON.stringify(key)} was already used for a different request`, {
            scheduleId: earlier.id(),
          })
        }
        const answer = repeat(first as T)
        if (answer !== null) return answer
        this.held.delete(slot)
      }
      // the first failed and was let go (or what it made is gone): this one runs as a new request
      return this.once(sessionId, key, request, idOf, run, repeat)
    }
    let made: string | null = null
    const answer = run()
    const entry: Held = { request: fields, answer, id: () => made }
    this.held.set(slot, entry)
    while (this.held.size > this.kept) this.held.delete(this.held.keys().next().value as string)
    const forget = () => {
      if (this.held.get(slot) === entry) this.held.delete(slot)
    }
    try {
      const result = await answer
      made = idOf(result)
      if (made === null) forget()
      return result
    } catch (error) {
      forget()
      throw error
    }
  }
}

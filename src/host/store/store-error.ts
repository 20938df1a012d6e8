/** The typed failures of a store (SPEC 14.1), mapped to HTTP by the server (SPEC 2.5, 2.6). */
export type StoreErrorCode = 'unavailable' | 'corrupt' | 'conflict' | 'not-found'

/** Where a corrupt session's log stops making sense: the seq (-1 for the header) and why. */
export type CorruptDetails = { seq: number; reason: string }

/** A failure of a store with a stable code; `corrupt` carries where and why, `unavailable` when to retry. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'StoreError'
  }
}

/** True for a StoreError (also across module copies). */
export function isStoreError(error: unknown): error is StoreError {
  return error instanceof StoreError || (error instanceof Error && error.name === 'StoreError' && 'code' in error)
}

/** A corrupt-session error naming the seq and reason. */
export function corruptSession(sessionId: string, seq: number, reason: string): StoreError {
  return new StoreError('corrupt', `session ${sessionId} is corrupt at seq ${seq}: ${reason}`, { seq, reason })
}

/** An unavailable-storage error wrapping the cause. */
export function storageUnavailable(sessionId: string, cause: unknown): StoreError {
  const what = cause instanceof Error ? cause.message : String(cause)
  return new StoreError('unavailable', `storage for session ${sessionId} is unavailable: ${what}`, undefined, { cause })
}

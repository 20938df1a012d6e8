/** Stable error codes of the host. */
export type HostErrorCode =
  | 'session-not-found'
  | 'session-conflict'
  | 'session-busy'
  | 'session-elsewhere'
  | 'idempotency-key-reused'

/** An error of the host with a stable code and optional details. */
export class HostError extends Error {
  constructor(
    readonly code: HostErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'HostError'
  }
}

/** An error thrown by a command on another replica, carried back by its name, code, message and details. */
export class ReplicaError extends Error {
  constructor(
    name: string,
    readonly code: string | undefined,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
    this.name = name
  }
}

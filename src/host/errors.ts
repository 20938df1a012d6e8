/** Stable error codes of the host. */
export type HostErrorCode =
  | 'session-not-found'
  | 'session-conflict'
  | 'session-busy'

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

/** Stable codes of a failed model step (SPEC 10). */
export type ModelErrorCode =
  | 'model-http'
  | 'model-unreachable'
  | 'model-stream-broken'
  | 'model-malformed-chunk'
  | 'model-provider-error'
  | 'model-timeout'
  | 'model-config'

/** A model step that failed; its message is what the turn ends with. */
export class ModelError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
    readonly details?: { status?: number; tries?: number },
  ) {
    super(message)
    this.name = 'ModelError'
  }
}

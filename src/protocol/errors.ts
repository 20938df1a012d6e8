/** The message of any thrown value: an Error's `message`, anything else as `String(value)`. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

import { errorMessage } from '../../../protocol/index.ts'
import { StoreError } from '../store-error.ts'

/** The SQLSTATE of an error the server sent, if it is one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

/**
 * True when the server answered the statement with an ERROR: the statement's transaction did not
 * commit. A lost connection (or a FATAL/PANIC, which may follow a commit) leaves the outcome unknown.
 */
export function refusedByServer(error: unknown): boolean {
  const severity = (error as { severity?: unknown } | null)?.severity
  return sqlState(error) !== undefined && severity === 'ERROR'
}

/** One line for a driver or server failure (a refused connection to several addresses is one AggregateError). */
export function failureText(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    return [...new Set(error.errors.map((inner) => errorMessage(inner)))].join('; ')
  }
  return errorMessage(error)
}

/** The store failure of a database call: `unavailable` naming what failed (every database failure is retried, SPEC 2.6). */
export function unavailable(what: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error
  return new StoreError('unavailable', `storage for ${what} is unavailable: ${failureText(error)}`, sqlState(error) ? { sqlState: sqlState(error) } : undefined, {
    cause: error,
  })
}

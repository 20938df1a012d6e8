/** Why a PostgreSQL store refuses to open (the CLI prints the message as its one line). */
export type DatabaseSetupCode = 'bad-url' | 'connect-failed' | 'schema-too-new' | 'schema-too-old'

/** A refusal to open a PostgreSQL store: a bad URL, an unreachable database, or a schema this code cannot use. */
export class DatabaseSetupError extends Error {
  constructor(
    readonly code: DatabaseSetupCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'DatabaseSetupError'
  }
}

import type pg from 'pg'
import { DatabaseSetupError } from './setup-error.ts'

/** The PostgreSQL schema (namespace) that holds every table of the store. */
export const SCHEMA = 'schedule_web'

/** One step of the schema's history; `sql` runs once, in the transaction that records it. */
export type Migration = { version: number; name: string; sql: string }

/**
 * The schema's history (SPEC 14.2), oldest first; a released step is never edited, only followed.
 * Sessions hold the header exactly as written, the durable event count (also the append fence) and
 * the summary the host writes with each append (`summary_count` is the event count it describes:
 * a summary behind the log is stale), its next due reminder indexed for the due query. Events hold each
 * event's exact JSON text under `(session_id, seq)`, with `time` and `type` beside it for queries.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, events and the due index',
    sql: `
      CREATE TABLE ${SCHEMA}.sessions (
        id text PRIMARY KEY,
        header_json text NOT NULL,
        created_at bigint NOT NULL,
        event_count bigint NOT NULL DEFAULT 0 CHECK (event_count >= 0),
        summary_count bigint,
        title text,
        last_event_at bigint,
        open_turn boolean NOT NULL DEFAULT false,
        pending_inbox integer NOT NULL DEFAULT 0,
        next_due_at bigint
      );
      CREATE INDEX sessions_created_at ON ${SCHEMA}.sessions (created_at DESC, id);
      CREATE INDEX sessions_next_due_at ON ${SCHEMA}.sessions (next_due_at) WHERE next_due_at IS NOT NULL;
      CREATE TABLE ${SCHEMA}.events (
        session_id text NOT NULL REFERENCES ${SCHEMA}.sessions (id),
        seq bigint NOT NULL CHECK (seq >= 0),
        time bigint NOT NULL,
        type text NOT NULL,
        event_json text NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
    `,
  },
  {
    version: 2,
    name: 'leases and commands of replicas',
    sql: `
      CREATE TABLE ${SCHEMA}.leases (
        session_id text PRIMARY KEY REFERENCES ${SCHEMA}.sessions (id),
        owner text NOT NULL,
        token bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE TABLE ${SCHEMA}.commands (
        id bigserial PRIMARY KEY,
        session_id text NOT NULL REFERENCES ${SCHEMA}.sessions (id),
        body text NOT NULL,
        result text,
        created_at bigint NOT NULL
      );
      CREATE INDEX commands_waiting ON ${SCHEMA}.commands (session_id, id) WHERE result IS NULL;
    `,
  },
  {
    version: 3,
    name: 'runs of forwarded commands',
    // written outside the transaction that takes a command (so an owner that dies leaves it behind):
    // no foreign key, whose check would wait on that transaction's row lock
    sql: `
      CREATE TABLE ${SCHEMA}.command_runs (
        command_id bigint PRIMARY KEY,
        from_seq bigint NOT NULL
      );
    `,
  },
]

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version

const LOCK_KEY = `hashtext('${SCHEMA}.schema_migrations')`

/** The recorded schema version of the connected database (0 when it has none). */
async function recordedVersion(client: pg.ClientBase): Promise<number> {
  const table = await client.query<{ present: boolean }>(`SELECT to_regclass('${SCHEMA}.schema_migrations') IS NOT NULL AS present`)
  if (!table.rows[0].present) return 0
  const found = await client.query<{ version: number }>(`SELECT coalesce(max(version), 0)::int AS version FROM ${SCHEMA}.schema_migrations`)
  return found.rows[0].version
}

function tooNew(found: number, known: number): DatabaseSetupError {
  return new DatabaseSetupError(
    'schema-too-new',
    `the database schema is at version ${found}, newer than version ${known} of this Schedule Web: run a newer Schedule Web (a schema is never migrated down)`,
  )
}

/**
 * Brings the schema up to the newest migration, each step in one transaction with its record
 * (idempotent: a migrated database is left as it is). Concurrent starts wait on one advisory lock,
 * so a step runs once. A schema newer than the code is refused, never migrated down.
 */
export async function migrate(
  client: pg.ClientBase,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<{ from: number; to: number }> {
  const known = migrations[migrations.length - 1].version
  await client.query('BEGIN')
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`)
    let from = await recordedVersion(client)
    if (from === 0) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`)
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${SCHEMA}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      )
      from = await recordedVersion(client)
    }
    if (from > known) throw tooNew(from, known)
    for (const step of migrations) {
      if (step.version <= from) continue
      await client.query(step.sql)
      await client.query(`INSERT INTO ${SCHEMA}.schema_migrations (version, name) VALUES ($1, $2)`, [step.version, step.name])
    }
    await client.query('COMMIT')
    return { from, to: known }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
}

/** Checks, without changing anything, that the database's schema is exactly the one this code uses. */
export async function verifySchema(client: pg.ClientBase, migrations: readonly Migration[] = MIGRATIONS): Promise<void> {
  const known = migrations[migrations.length - 1].version
  const found = await recordedVersion(client)
  if (found > known) throw tooNew(found, known)
  if (found < known) {
    throw new DatabaseSetupError(
      'schema-too-old',
      `the database schema is at version ${found}, older than version ${known} of this Schedule Web: start the server on it once (or import into it) to migrate it`,
    )
  }
}

import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject, onTestFinished } from 'vitest'
import { APP_ROLE } from '../../src/server/embedded-database.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { port: number; password: string }
  }
}

/** A database of its own on the test run's PostgreSQL server, owned by the app role. */
export type TestDatabase = {
  name: string
  /** The app role's URL (what `--database-url` gets). */
  url: string
  /** Runs SQL as the superuser in this database (to break or inspect it). */
  admin(sql: string, values?: unknown[]): Promise<pg.QueryResult>
}

/** The URL of a database on a server at `port` for a role (default the app role). */
export function databaseUrl(port: number, password: string, database: string, role: string = APP_ROLE): string {
  return `postgres://${role}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`
}

async function asSuperuser<T>(port: number, password: string, database: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl(port, password, database, 'postgres') })
  client.on('error', () => undefined)
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

/** Creates a fresh empty database on the run's server (or the server at `server`), dropped after the test. */
export async function freshDatabase(server: { port: number; password: string } = inject('postgres')): Promise<TestDatabase> {
  const { port, password } = server
  const name = `sw_test_${randomBytes(6).toString('hex')}`
  await asSuperuser(port, password, 'postgres', (c) => c.query(`CREATE DATABASE ${name} OWNER ${APP_ROLE}`))
  let admin: pg.Client | null = null
  onTestFinished(async () => {
    await admin?.end().catch(() => undefined)
    admin = null
    await asSuperuser(port, password, 'postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => undefined)
  })
  return {
    name,
    url: databaseUrl(port, password, name),
    admin: async (sql, values) => {
      if (admin === null) {
        const client = new pg.Client({ connectionString: databaseUrl(port, password, name, 'postgres') })
        client.on('error', () => {
          if (admin === client) admin = null
        })
        await client.connect()
        admin = client
      }
      return admin.query(sql, values)
    },
  }
}

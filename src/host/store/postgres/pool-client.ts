import type pg from 'pg'

const guarded = new WeakSet<pg.PoolClient>()

/**
 * Checks a client out of the pool for statements of its own. A connection lost while the client is
 * checked out rejects the statement in flight; its `error` event is taken here so that it never
 * crashes the process (the pool only listens while a client is idle).
 */
export async function checkout(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect()
  if (!guarded.has(client)) {
    guarded.add(client)
    client.on('error', () => undefined)
  }
  return client
}

import { afterEach } from 'vitest'
import { PostgresStore, SCHEMA } from '../../src/host/index.ts'
import { APP_ROLE } from '../../src/server/embedded-database.ts'
import { freshDatabase } from '../support/postgres.ts'
import { TcpProxy } from '../support/tcp-proxy.ts'
import { storeContract } from './contract.ts'

const proxies: TcpProxy[] = []
afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close()
})

/**
 * The store contract on a real PostgreSQL, a fresh database per test. A failed `write` is the
 * server refusing the insert (INSERT revoked from the app role); a failed `barrier` is the
 * connection lost while the committing statement is on its way (a proxy between store and server
 * cuts it), so the transaction never commits.
 */
storeContract('PostgreSQL', async () => {
  const db = await freshDatabase()
  const port = Number(new URL(db.url).port)
  const proxy = await TcpProxy.start(port)
  proxies.push(proxy)
  const url = proxy.rewrite(db.url)
  const opened: PostgresStore[] = []
  const openStore = async (): Promise<PostgresStore> => {
    const store = await PostgresStore.open({ url })
    opened.push(store)
    return store
  }
  let revoked = false
  return {
    store: await openStore(),
    fail: async (where) => {
      if (where === 'write') {
        await db.admin(`REVOKE INSERT ON ${SCHEMA}.events FROM ${APP_ROLE}`)
        revoked = true
      } else proxy.fault = 'cut-requests'
    },
    heal: async () => {
      proxy.heal()
      if (revoked) await db.admin(`GRANT INSERT ON ${SCHEMA}.events TO ${APP_ROLE}`)
      revoked = false
    },
    damage: async (id, seq, text) => {
      if (seq === -1) await db.admin(`UPDATE ${SCHEMA}.sessions SET header_json = $2 WHERE id = $1`, [id, text])
      else await db.admin(`UPDATE ${SCHEMA}.events SET event_json = $3 WHERE session_id = $1 AND seq = $2`, [id, seq, text])
    },
    reopen: openStore,
    dispose: async () => {
      for (const store of opened) await store.close()
    },
  }
})

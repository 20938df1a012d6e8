import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { JsonlStore } from '../../src/host/index.ts'
import { FailingFiles } from '../support/failing-files.ts'
import { tempDir } from '../support/temp-dir.ts'
import { storeContract } from './contract.ts'

storeContract('JSONL', async () => {
  const dataDir = await tempDir('sw-store-')
  const files = new FailingFiles()
  const opened: JsonlStore[] = []
  const openStore = async (): Promise<JsonlStore> => {
    const store = await JsonlStore.open({ dataDir, files })
    opened.push(store)
    return store
  }
  return {
    store: await openStore(),
    fail: (where) => files.inject({ op: where === 'write' ? 'write' : 'datasync', code: where === 'write' ? 'ENOSPC' : 'EIO' }),
    heal: () => files.heal(),
    damage: async (id, seq, text) => {
      const path = join(dataDir, 'sessions', `${id}.jsonl`)
      const lines = (await readFile(path, 'utf8')).split('\n')
      lines[seq + 1] = text
      await writeFile(path, lines.join('\n'))
    },
    reopen: openStore,
    dispose: async () => {
      for (const store of opened) await store.close()
    },
  }
})

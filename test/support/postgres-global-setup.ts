import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { EmbeddedDatabase } from '../../src/server/embedded-database.ts'

/** One real embedded PostgreSQL for the whole test run (tests make a fresh database each, see postgres.ts). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sw-pg-'))
  const db = await EmbeddedDatabase.start({ dataDir, port: 0, ephemeral: true })
  project.provide('postgres', { port: db.port, password: db.password })
  return async () => {
    await db.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
}

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'

/** A real temporary directory, removed after the test. */
export async function tempDir(prefix = 'sw-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  return dir
}

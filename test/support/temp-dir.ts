import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'

/** A real temporary directory, removed when the test that made it (or whose `beforeEach` made it) finishes. */
export async function tempDir(prefix = 'sw-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  return dir
}

import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureOverlayBuilt } from '../../src/server/overlay-build.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')

/** Builds the overlay once before any browser test starts a server. */
export default async function globalSetup(): Promise<void> {
  await ensureOverlayBuilt(root, (line) => console.log(line))
}

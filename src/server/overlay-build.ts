import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'

async function newestMtime(path: string): Promise<number> {
  const info = await stat(path)
  if (!info.isDirectory()) return info.mtimeMs
  let newest = info.mtimeMs
  for (const name of await readdir(path)) newest = Math.max(newest, await newestMtime(join(path, name)))
  return newest
}

/** True when the built overlay is missing or older than its sources. */
export async function overlayIsStale(root: string): Promise<boolean> {
  let built: number
  try {
    built = (await stat(join(root, 'dist/overlay/index.html'))).mtimeMs
  } catch {
    return true
  }
  const sources = ['src/overlay', 'src/protocol', 'vite.config.ts', 'package-lock.json']
  for (const source of sources) {
    try {
      if ((await newestMtime(join(root, source))) > built) return true
    } catch {
      continue
    }
  }
  return false
}

/** Builds the overlay with Vite when it is missing or stale. */
export async function ensureOverlayBuilt(root: string, log: (line: string) => void): Promise<void> {
  if (!(await overlayIsStale(root))) return
  log('building the overlay…')
  const vite = await import('vite')
  await vite.build({ root: join(root, 'src/overlay'), configFile: join(root, 'vite.config.ts'), logLevel: 'warn' })
}

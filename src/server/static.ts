import { readFile, stat } from 'node:fs/promises'
import { extname, join, normalize, sep } from 'node:path'
import type { Context } from 'hono'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
}

const PLACEHOLDER =
  '<!doctype html><meta charset="utf-8"><title>Schedule Web</title><p>The overlay is not built. Run <code>npm run build</code>.</p>'

/** Serves the built overlay from a folder; unknown paths get index.html so app URLs survive reloads. */
export function staticOverlay(root: string): (c: Context) => Promise<Response> {
  const base = normalize(root)
  const headers = (type: string, immutable: boolean): Record<string, string> => ({
    'content-type': type,
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    'x-content-type-options': 'nosniff',
  })
  return async (c) => {
    let path: string
    try {
      path = decodeURIComponent(new URL(c.req.url).pathname)
    } catch {
      path = '/'
    }
    const target = normalize(join(base, path))
    if ((target === base || target.startsWith(base + sep)) && extname(target) !== '') {
      try {
        const info = await stat(target)
        if (info.isFile()) {
          const body = await readFile(target)
          return c.body(body, 200, headers(TYPES[extname(target)] ?? 'application/octet-stream', path.startsWith('/assets/')))
        }
      } catch {
        return c.body('not found', 404, { 'content-type': 'text/plain; charset=utf-8' })
      }
    }
    try {
      const index = await readFile(join(base, 'index.html'))
      return c.body(index, 200, headers(TYPES['.html'], false))
    } catch {
      return c.body(PLACEHOLDER, 200, headers(TYPES['.html'], false))
    }
  }
}

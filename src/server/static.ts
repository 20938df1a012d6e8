import { serveStatic } from '@hono/node-server/serve-static'
import { existsSync } from 'node:fs'
import { extname } from 'node:path'
import type { Context, MiddlewareHandler } from 'hono'

const PLACEHOLDER =
  '<!doctype html><meta charset="utf-8"><title>Schedule Web</title><p>The overlay is not built. Run <code>npm run build</code>.</p>'

async function served(handler: MiddlewareHandler, c: Context, cacheControl: string): Promise<Response | null> {
  const response = await handler(c, async () => undefined)
  if (!(response instanceof Response)) return null
  response.headers.set('Cache-Control', cacheControl)
  return response
}

/**
 * Serves the built overlay from a folder with `@hono/node-server`'s `serveStatic` (which refuses
 * dot segments, escapes and backslashes, so nothing outside the folder is reachable); hashed assets
 * are immutable, and unknown paths without an extension get index.html so app URLs survive reloads.
 */
export function staticOverlay(root: string): (c: Context) => Promise<Response> {
  if (!existsSync(root)) {
    // no overlay built (tests of the API alone): every page is the placeholder, and serveStatic is never asked about a missing root
    return async (c) => {
      if (extname(c.req.path) !== '') return c.text('not found', 404)
      c.header('Cache-Control', 'no-cache')
      return c.html(PLACEHOLDER)
    }
  }
  const files = serveStatic({ root })
  const index = serveStatic({ root, path: 'index.html' })
  return async (c) => {
    const file = await served(files, c, c.req.path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache')
    if (file !== null) return file
    if (extname(c.req.path) !== '') return c.text('not found', 404)
    const page = await served(index, c, 'no-cache')
    if (page !== null) return page
    c.header('Cache-Control', 'no-cache')
    return c.html(PLACEHOLDER)
  }
}

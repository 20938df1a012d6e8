import { serve, type ServerType } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Host } from '../host/host.ts'
import { createApp, type ScheduleApi } from './app.ts'
import { isLoopbackHost } from './security.ts'
import { staticOverlay } from './static.ts'

/** A listening server. */
export type RunningServer = { url: string; port: number; host: Host; close(): Promise<void> }

/** Listens on host:port with the app; refuses a non-loopback bind without a token (SPEC 12.3). */
export async function listen(options: {
  host: Host
  bindHost: string
  port: number
  token?: string
  publicHost?: string
  overlayRoot?: string
  schedules?: ScheduleApi
}): Promise<RunningServer> {
  const bracketed = options.bindHost.includes(':') ? `[${options.bindHost}]` : options.bindHost
  if (!isLoopbackHost(bracketed) && !options.token) {
    throw new Error(`refusing to bind to ${options.bindHost} without a token (--token or SCHEDULE_WEB_TOKEN)`)
  }
  const app = createApp({
    host: options.host,
    ...(options.schedules ? { schedules: options.schedules } : {}),
    security: {
      ...(options.token ? { token: options.token } : {}),
      publicHost: options.publicHost ?? (isLoopbackHost(bracketed) ? undefined : options.bindHost),
    },
    ...(options.overlayRoot ? { staticHandler: staticOverlay(join(options.overlayRoot, 'dist/overlay')) } : {}),
  })
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port, hostname: options.bindHost }, () => resolve(s))
    s.once('error', reject)
  })
  const address = server.address() as AddressInfo
  return {
    url: `http://${bracketed}:${address.port}`,
    port: address.port,
    host: options.host,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
      })
      await options.host.close()
    },
  }
}

import type { Hono } from 'hono'
import type { Host } from '../../src/host/host.ts'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import { createApp, type AppDeps } from '../../src/server/app.ts'
import { composeHost } from '../../src/server/compose.ts'
import { FakeClock } from '../support/fake-clock.ts'

/** The app of SPEC 8 on a composed host (time-context + invariant) over a real data dir. */
export async function makeApp(
  dataDir: string,
  options: { model?: ScriptedModel | 'offline'; clock?: FakeClock; security?: AppDeps['security']; staticHandler?: AppDeps['staticHandler'] } = {},
): Promise<{ app: Hono; host: Host; model: ScriptedModel | 'offline'; clock: FakeClock; logs: string[] }> {
  const clock = options.clock ?? new FakeClock()
  const model = options.model ?? new ScriptedModel()
  const logs: string[] = []
  const host = await composeHost({ dataDir, model, clock, log: (line) => logs.push(line) })
  const app = createApp({ host, ...(options.security ? { security: options.security } : {}), ...(options.staticHandler ? { staticHandler: options.staticHandler } : {}) })
  return { app, host, model, clock, logs }
}

/** A parsed API answer. */
export type Answer = { status: number; body: unknown }

/** Calls the app without a port; `body` is sent as is when a string, JSON-encoded otherwise. */
export async function call(
  app: Hono,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const init: RequestInit = { method, headers: { ...headers } }
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body)
    ;(init.headers as Record<string, string>)['content-type'] ??= 'application/json'
  }
  const url = path.startsWith('http') ? path : `http://127.0.0.1:4280${path}`
  const response = await app.request(url, init)
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // non-JSON bodies are compared as text
  }
  return { status: response.status, body: parsed }
}

/** An API error body. */
export function apiError(code: string, message: string, details?: Record<string, unknown>): { error: Record<string, unknown> } {
  return { error: { code, message, ...(details === undefined ? {} : { details }) } }
}

import { vi } from 'vitest'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { Host } from '../../src/host/host.ts'
import type { Plugin } from '../../src/host/plugin-api.ts'
import type { FileLayer } from '../../src/host/index.ts'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import type { Session } from '../../src/host/session/session.ts'
import { FakeClock } from './fake-clock.ts'

/** A host on a real temp dir with the scripted model and a fake clock. */
export async function makeHost(
  dataDir: string,
  options: { plugins?: Plugin[]; clock?: FakeClock; model?: ScriptedModel; compactThresholdChars?: number; files?: FileLayer } = {},
): Promise<{ host: Host; model: ScriptedModel; clock: FakeClock; logs: string[] }> {
  const clock = options.clock ?? new FakeClock()
  const model = options.model ?? new ScriptedModel()
  const logs: string[] = []
  const host = await Host.create({
    dataDir,
    model,
    clock,
    plugins: options.plugins ?? [],
    compactThresholdChars: options.compactThresholdChars ?? 0,
    log: (line) => logs.push(line),
    ...(options.files ? { files: options.files } : {}),
  })
  return { host, model, clock, logs }
}

/** Waits until the session is idle with nothing queued. */
export async function settle(session: Session): Promise<void> {
  for (let i = 0; i < 200; i++) {
    await new Promise((resolve) => setImmediate(resolve))
    await session.whenIdle()
    await session.flush()
    await new Promise((resolve) => setImmediate(resolve))
    if (session.status === 'idle') return
  }
  throw new Error('session did not settle')
}

/** Event types of a log, for order assertions. */
export function types(events: readonly SessionEvent[]): string[] {
  return events.map((e) => e.type)
}

/** Waits until a predicate over the session's events holds (vi.waitFor: polls, fails with the event types seen). */
export async function waitFor(session: Session, predicate: (events: readonly SessionEvent[]) => boolean): Promise<void> {
  await vi.waitFor(
    () => {
      const events = session.events()
      if (!predicate(events)) throw new Error(`condition not reached; events: ${types(events).join(' ')}`)
    },
    { timeout: 5_000, interval: 5 },
  )
}

import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { compose } from '../src/server/compose.ts'
import { timed, type Timing } from './measure.ts'

/**
 * Time of `Host.openSession` on an existing session file with the server's plugins mounted
 * (load + every fold rebuilt + open hooks). Asserts the open appended nothing.
 */
export async function timeOpenSession(dataDir: string, id: string, expectedEvents: number): Promise<Timing> {
  const path = join(dataDir, 'sessions', `${id}.jsonl`)
  const before = (await stat(path)).size
  const { host } = await compose({ dataDir, model: 'offline', log: () => undefined })
  try {
    const { value: session, timing } = await timed(() => host.openSession(id))
    await new Promise((resolve) => setTimeout(resolve, 20))
    if (session.length !== expectedEvents) throw new Error(`open of ${id}: ${session.length} events, expected ${expectedEvents}`)
    if (session.running) throw new Error(`open of ${id} started work (a pending inbox message or a due reminder)`)
    const after = (await stat(path)).size
    if (after !== before) throw new Error(`open of ${id} wrote to the session file (${before} → ${after} bytes)`)
    return timing
  } finally {
    await host.close()
  }
}

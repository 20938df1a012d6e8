import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SessionEvent, SessionHeader } from '../../src/protocol/events.ts'

/** A session file as written on disk: its raw lines and their parsed header and events. */
export type SessionFile = { lines: string[]; headerLine: string; header: SessionHeader; events: SessionEvent[] }

/** Reads `<dataDir>/sessions/<id>.jsonl` (the durable truth, SPEC 2.5). */
export async function readSessionFile(dataDir: string, id: string): Promise<SessionFile> {
  const raw = await readFile(join(dataDir, 'sessions', `${id}.jsonl`), 'utf8')
  const lines = raw.split('\n').filter((line) => line.length > 0)
  const [headerLine, ...rest] = lines
  return {
    lines,
    headerLine,
    header: JSON.parse(headerLine) as SessionHeader,
    events: rest.map((line) => JSON.parse(line) as SessionEvent),
  }
}

/** The events the server serves over `GET /api/sessions/:id/events`. */
export async function fetchEvents(url: string, id: string): Promise<{ header: SessionHeader; events: SessionEvent[] }> {
  const response = await fetch(`${url}/api/sessions/${encodeURIComponent(id)}/events`)
  if (response.status !== 200) throw new Error(`events of ${id}: HTTP ${response.status} ${await response.text()}`)
  return (await response.json()) as { header: SessionHeader; events: SessionEvent[] }
}

/** The active reminders the server reports for a session. */
export async function fetchSchedules(url: string, id: string): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(`${url}/api/sessions/${encodeURIComponent(id)}/schedules`)
  if (response.status !== 200) throw new Error(`schedules of ${id}: HTTP ${response.status} ${await response.text()}`)
  return ((await response.json()) as { schedules: Array<Record<string, unknown>> }).schedules
}

/** The text of a message event's content blocks. */
export function textOf(event: SessionEvent<'user/message'> | SessionEvent<'assistant/message'>): string {
  return event.data.content.map((block) => block.text).join('\n')
}

function pluginOf(event: SessionEvent<'user/message'>): string | null {
  const source = event.data.source as Record<string, unknown>
  return source.kind === 'plugin' && typeof source.plugin === 'string' ? source.plugin : null
}

/** `user/message` events. */
export function userMessageEvents(events: readonly SessionEvent[]): SessionEvent<'user/message'>[] {
  return events.filter((event): event is SessionEvent<'user/message'> => event.type === 'user/message')
}

/** Messages people sent (user-rpc sources), in log order. */
export function personMessages(events: readonly SessionEvent[]): SessionEvent<'user/message'>[] {
  return userMessageEvents(events).filter((event) => event.data.source.kind === 'user')
}

/** The texts of the time-context readings, in log order. */
export function readingTexts(events: readonly SessionEvent[]): string[] {
  return userMessageEvents(events)
    .filter((event) => pluginOf(event) === 'time-context')
    .map(textOf)
}

/** Messages a plugin made (e.g. `schedule` follow-ups). */
export function pluginMessages(events: readonly SessionEvent[], plugin: string): SessionEvent<'user/message'>[] {
  return userMessageEvents(events).filter((event) => pluginOf(event) === plugin)
}

/** The assistant's non-empty texts, in log order. */
export function assistantTexts(events: readonly SessionEvent[]): string[] {
  return events
    .filter((event): event is SessionEvent<'assistant/message'> => event.type === 'assistant/message')
    .map(textOf)
    .filter((text) => text.trim().length > 0)
}

/** `schedule/change` data objects, in log order. */
export function scheduleChanges(events: readonly SessionEvent[]): Array<Record<string, unknown>> {
  return events
    .filter((event): event is SessionEvent<'schedule/change'> => event.type === 'schedule/change')
    .map((event) => event.data)
}

/** The `turn/end` events, in log order. */
export function turnEnds(events: readonly SessionEvent[]): SessionEvent<'turn/end'>[] {
  return events.filter((event): event is SessionEvent<'turn/end'> => event.type === 'turn/end')
}

/** Sends a message the way a browser in `clientTimeZone` would, straight to the API (for building up a conversation fast). */
export async function postMessage(url: string, id: string, text: string, clientTimeZone: string): Promise<void> {
  const response = await fetch(`${url}/api/sessions/${encodeURIComponent(id)}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text, clientTimeZone }),
  })
  if (response.status !== 202) throw new Error(`message to ${id}: HTTP ${response.status} ${await response.text()}`)
}

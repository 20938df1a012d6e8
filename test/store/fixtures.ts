import type { SessionEvent, SessionHeader } from '../../src/protocol/index.ts'

/** The instant the store tests' sessions start at. */
export const T0 = Date.UTC(2026, 6, 15, 1, 1, 1)

/** A version 1 session header, with a zone when one is given. */
export function header(id: string, timeZone?: string): SessionHeader {
  return { type: 'session', version: 1, id, createdAt: T0, ...(timeZone === undefined ? {} : { timeZone }) }
}

/** A user message event at `seq` with the given text. */
export function event(seq: number, text = `message ${seq}`): SessionEvent {
  return {
    seq,
    time: T0 + seq,
    type: 'user/message',
    data: { id: `m${seq}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } },
    surfaceOp: 'append',
  }
}

import { expect } from 'vitest'
import { checkSessionLog } from '../../src/invariant/check-session-log.ts'
import { InvariantError } from '../../src/invariant/invariant-error.ts'
import { invariantFold } from '../../src/invariant/invariant-fold.ts'
import type { InvariantState } from '../../src/invariant/invariant-fold.ts'
import { buildReadingMessage } from '../../src/protocol/index.ts'
import type { SessionEvent, SessionHeader, UserMessage } from '../../src/protocol/events.ts'
import { LogBuilder } from '../support/log-builder.ts'

export { LogBuilder, header, plainMessage, pluginMessage, rpcMessage } from '../support/log-builder.ts'

/** The four lines of a reading, `\n`-joined. */
export function text(...lines: string[]): string {
  return lines.join('\n')
}

/** A reading message with this text in the exact SPEC 5.5 shape. */
export function reading(readingText: string, turn = 1, step = 1): UserMessage {
  return buildReadingMessage(turn, step, readingText)
}

/** A user/message event that would be appended next, carrying any data (shape not checked). */
export function readingEvent(log: LogBuilder, data: unknown, time: number): SessionEvent {
  return log.draft({ type: 'user/message', data: data as UserMessage, surfaceOp: 'append' }, time)
}

/** The invariant state after folding a log. */
export function stateOf(hdr: SessionHeader, events: readonly SessionEvent[]): InvariantState {
  let state = invariantFold.init(hdr)
  for (const event of events) state = invariantFold.apply(state, event)
  return state
}

/**
 * Validates `candidate` after `log` on append and on open; both must agree.
 * Returns `ok` or the InvariantError message.
 */
export function verdict(hdr: SessionHeader, log: LogBuilder, candidate: SessionEvent): string {
  let onAppend = 'ok'
  try {
    invariantFold.validate?.(stateOf(hdr, log.events), candidate, hdr)
  } catch (error) {
    expect(error).toBeInstanceOf(InvariantError)
    const failure = error as InvariantError
    expect(failure.seq).toBe(candidate.seq)
    expect(failure.message).toBe(`invariant violated by "time-context": ${failure.reason}`)
    onAppend = failure.message
  }
  const onOpen = checkSessionLog(hdr, [...log.events, candidate])
  expect(onOpen).toEqual(onAppend === 'ok' ? { ok: true } : { ok: false, seq: candidate.seq, message: onAppend })
  return onAppend
}

/** The full InvariantError message of a reason. */
export function violation(reason: string): string {
  return `invariant violated by "time-context": ${reason}`
}

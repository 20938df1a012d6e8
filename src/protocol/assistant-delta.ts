// Its own module (not wire.ts, which builds zod schemas): the overlay imports it, and zod in the bundle probes `Function`, which the CSP refuses.
/** A piece of an answer still being generated (SPEC 9 `assistant-delta`): never stored; the durable `assistant/message` replaces it. */
export type AssistantDelta = { turn: number; step: number; text: string }

/** The text streamed so far of one step with one more piece; a piece of another step starts it again. */
export function appendDelta(current: AssistantDelta | null, piece: AssistantDelta): AssistantDelta {
  return current !== null && current.turn === piece.turn && current.step === piece.step ? { ...current, text: current.text + piece.text } : piece
}

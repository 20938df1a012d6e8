import { useSyncExternalStore } from 'react'
import { appendDelta, type AssistantDelta } from '../../protocol/index.ts'

/** Text a model is generating right now, per step (SPEC 9 "Streaming text"); never stored, replaced by `assistant/message`. */
export type StreamingText = AssistantDelta

const bySession = new Map<string, StreamingText[]>()
const listeners = new Set<() => void>()
const EMPTY: StreamingText[] = []

function emit(): void {
  for (const listener of listeners) listener()
}

/** Adds one `assistant-delta` to a Session's streaming text. */
export function addDelta(sessionId: string, delta: StreamingText): void {
  const list = bySession.get(sessionId) ?? EMPTY
  const index = list.findIndex((s) => s.turn === delta.turn && s.step === delta.step)
  const next = index === -1 ? [...list, delta] : list.map((s, i) => (i === index ? appendDelta(s, delta) : s))
  bySession.set(sessionId, next)
  emit()
}

/** Drops streaming text that a durable message replaced (`step` given) or that ended with its turn (no `step`). */
export function settleStreaming(sessionId: string, turn: number | null, step?: number): void {
  const list = bySession.get(sessionId)
  if (list === undefined) return
  const next = turn === null ? EMPTY : list.filter((s) => s.turn !== turn || (step !== undefined && s.step !== step))
  if (next.length === list.length && turn !== null) return
  if (next.length === 0) bySession.delete(sessionId)
  else bySession.set(sessionId, next)
  emit()
}

/**
 * What a turn had written when Stop or a failure ended it, per Session and turn: the person was reading it, so it stays
 * on screen with that turn's end, in this tab only (it is never stored, SPEC 9), for the last few turns.
 */
const cutBySession = new Map<string, Map<number, string>>()
const CUT_TURNS_KEPT = 10

/** A turn ended: its streaming text goes, and when the turn did not complete (`cut`), what it had written is kept. */
export function endStreaming(sessionId: string, turn: number, cut: boolean): void {
  const text = (bySession.get(sessionId) ?? EMPTY)
    .filter((s) => s.turn === turn && s.text.trim() !== '')
    .map((s) => s.text)
    .join('\n\n')
  if (cut && text !== '') {
    const kept = new Map(cutBySession.get(sessionId))
    kept.set(turn, text)
    for (const old of kept.keys()) if (kept.size > CUT_TURNS_KEPT) kept.delete(old)
    cutBySession.set(sessionId, kept)
  }
  // the turn's streaming text goes, which tells the hooks (the kept text among them) once
  settleStreaming(sessionId, turn)
}

/** What a turn had written when it was stopped or failed, in this tab; null when nothing (the hook's snapshot). */
export function cutTextOf(sessionId: string, turn: number): string | null {
  return cutBySession.get(sessionId)?.get(turn) ?? null
}

/** What a turn had written when it was stopped or failed, in this tab; null when nothing. */
export function useCutText(sessionId: string, turn: number): string | null {
  return useSyncExternalStore(subscribe, () => cutTextOf(sessionId, turn))
}

/** The text a Session's model is streaming now, oldest step first (the hook's snapshot). */
export function streamingTextOf(sessionId: string): StreamingText[] {
  return bySession.get(sessionId) ?? EMPTY
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** The text the model of a Session is streaming now, oldest step first. */
export function useStreamingText(sessionId: string): StreamingText[] {
  return useSyncExternalStore(subscribe, () => streamingTextOf(sessionId))
}

import { blocksText, type InboxTarget, type SessionEvent, type UserMessage } from '../protocol/index.ts'
import type { SessionFold } from './plugin-api.ts'

/** Where the loop stands in the log: last turn number, the open turn and step, the last request header. */
export type LoopState = {
  lastTurn: number
  openTurn: number | null
  openStep: number | null
  lastHeader: { model: string; tools: string[] } | null
}

/** Folds the loop position out of the log. */
export const loopFold: SessionFold<LoopState> = {
  name: 'host/loop',
  init: () => ({ lastTurn: 0, openTurn: null, openStep: null, lastHeader: null }),
  apply(state, event) {
    switch (event.type) {
      case 'turn/start':
        state.lastTurn = event.data.turn
        state.openTurn = event.data.turn
        state.openStep = null
        break
      case 'step/start':
        state.openStep = event.data.step
        break
      case 'step/end':
        state.openStep = null
        break
      case 'turn/end':
        state.openTurn = null
        state.openStep = null
        break
      case 'request/header':
        state.lastHeader = { model: event.data.model, tools: event.data.tools }
        break
      default:
        break
    }
    return state
  },
}

/** A message accepted into the inbox that has neither entered nor been dropped. */
export type PendingMessage = { target: InboxTarget; message: UserMessage }

/** Folds the durable inbox: accepted messages still waiting, in acceptance order. */
export const inboxFold: SessionFold<Map<string, PendingMessage>> = {
  name: 'host/inbox',
  init: () => new Map(),
  apply(state, event) {
    switch (event.type) {
      case 'inbox/enqueued':
        state.set(event.data.message.id, { target: event.data.target, message: event.data.message })
        break
      case 'user/message':
        state.delete(event.data.id)
        break
      case 'inbox/dropped':
        for (const id of event.data.ids) state.delete(id)
        break
      default:
        break
    }
    return state
  },
}

/** The model-visible surface: seqs of message events not shadowed by compaction, their sizes (`sizes[i]` is the size of `seqs[i]`), and how many arrived since the last compaction. */
export type SurfaceState = { seqs: number[]; chars: number; sizes: number[]; sinceCompaction: number }

function isSurfaceMessage(event: SessionEvent): boolean {
  return event.type === 'user/message' || event.type === 'assistant/message' || event.type === 'tool/result'
}

function textSize(content: readonly { text: string }[]): number {
  let n = 0
  for (const block of content) n += block.text.length
  return n
}

function eventSize(event: SessionEvent): number {
  switch (event.type) {
    case 'user/message':
    case 'tool/result':
      return textSize(event.data.content)
    case 'assistant/message': {
      let n = textSize(event.data.content)
      for (const call of event.data.toolCalls ?? []) n += call.arguments.length + call.name.length
      return n
    }
    default:
      return 0
  }
}

/** Folds the surface (SPEC 2.4): message events, minus the ranges a compaction replaced. */
export const surfaceFold: SessionFold<SurfaceState> = {
  name: 'host/surface',
  init: () => ({ seqs: [], chars: 0, sizes: [], sinceCompaction: 0 }),
  apply(state, event) {
    if (!isSurfaceMessage(event)) return state
    const op = event.surfaceOp
    if (op !== undefined && op !== 'append') {
      const seqs: number[] = []
      const sizes: number[] = []
      for (let i = 0; i < state.seqs.length; i++) {
        const seq = state.seqs[i] as number
        const size = state.sizes[i] as number
        if (seq >= op.start && seq <= op.end) state.chars -= size
        else {
          seqs.push(seq)
          sizes.push(size)
        }
      }
      state.seqs = seqs
      state.sizes = sizes
      state.sinceCompaction = -1
    }
    state.sinceCompaction++
    const size = eventSize(event)
    state.seqs.push(event.seq)
    state.sizes.push(size)
    state.chars += size
    return state
  },
}

/** What a person's message carried when it entered the inbox, kept to tell a repeat of its send from a different message. */
export type SentRecord = { messageId: string; target: InboxTarget; text: string; clientTimeZone: string }

/** The rpcId of a message sent with idempotency key `key` (server-made rpcIds start `rpc-`, so the two never meet). */
export function keyedRpcId(key: string): string {
  return `key-${key}`
}

/** How many of the newest sent messages a session remembers; a repeat of an older one enters as a new message. */
export const SENT_KEPT = 1000

/**
 * Folds the newest SENT_KEPT messages a person sent (with a browser zone, so with an rpcId), by rpcId: a send that
 * comes again — under the same Idempotency-Key, or the same command run again after its replica died — is known
 * (SPEC 8, 14.3: it enters once).
 */
export const sentFold: SessionFold<Map<string, SentRecord>> = {
  name: 'host/sent',
  init: () => new Map(),
  apply(state, event) {
    if (event.type !== 'inbox/enqueued') return state
    const { message, target } = event.data
    const source = message.source
    if (source.kind !== 'user' || !('rpcId' in source)) return state
    state.delete(source.rpcId)
    state.set(source.rpcId, { messageId: message.id, target, text: blocksText(message.content), clientTimeZone: source.clientTimeZone })
    if (state.size > SENT_KEPT) state.delete(state.keys().next().value as string)
    return state
  },
}

/** Title of a session: the latest rename (`session/title`), else the start of the first message a person sent, else null. */
export const titleFold: SessionFold<{ title: string | null; renamed: boolean }> = {
  name: 'host/title',
  init: () => ({ title: null, renamed: false }),
  apply(state, event) {
    if (event.type === 'session/title') return { title: event.data.title, renamed: true }
    if (state.title === null && event.type === 'user/message' && event.data.source.kind === 'user') {
      const text = blocksText(event.data.content).replace(/\s+/g, ' ').trim()
      if (text !== '') return { title: text.length > 60 ? `${text.slice(0, 59)}…` : text, renamed: false }
    }
    return state
  },
}

/** Folds every host-owned view. */
export const hostFolds = [loopFold, inboxFold, surfaceFold, titleFold, sentFold] as const

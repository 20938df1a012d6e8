/** One text content block. */
export type TextBlock = { type: 'text'; text: string }

/** The text of a message's blocks, joined with nothing between them (a single block, the usual case, as it is). */
export function blocksText(content: readonly { text: string }[]): string {
  if (content.length === 1) return (content[0] as { text: string }).text
  let text = ''
  for (const block of content) text += block.text
  return text
}

/** Source of a message a person typed in a browser or sent through the HTTP API. */
export type UserRpcSource = { kind: 'user'; rpcId: string; clientTimeZone: string }
/** Source of a person's message without a browser (e.g. the CLI). */
export type PlainUserSource = { kind: 'user' }
/** Source of a plugin-made message; plugins add their own keys. */
export type PluginSource = { kind: 'plugin'; plugin: string; [key: string]: unknown }
/** Every message source kind (SPEC 2.2). */
export type MessageSource = UserRpcSource | PlainUserSource | PluginSource

/** A user-role message as it enters a step. */
export type UserMessage = { id: string; role: 'user'; content: TextBlock[]; source: MessageSource }

/** How an event changes the model-visible surface (SPEC 2.4). */
export type SurfaceOp = 'append' | { op: 'replace'; start: number; end: number }

/** First line of a session file; never changes (SPEC 2.1). */
export type SessionHeader = {
  type: 'session'
  version: 1
  id: string
  createdAt: number
  timeZone?: string
}

/** A tool call the model asked for; `arguments` is the raw JSON string. */
export type ToolCall = { callId: string; name: string; arguments: string }

/** Token usage reported by a model, when it reports one. */
export type Usage = { inputTokens?: number; outputTokens?: number }

/** Why a turn ended. */
export type TurnEndReason = 'completed' | 'aborted' | 'blocked' | 'error'

/** Which inbox queue a message waits in. */
export type InboxTarget = 'next-turn' | 'next-step'

/** The data of every event type (SPEC 2.2). */
export type EventDataMap = {
  'turn/start': { turn: number }
  'step/start': { turn: number; step: number }
  'user/message': UserMessage
  'request/header': { model: string; tools: string[]; reason: 'initial' | 'change' }
  'assistant/message': {
    turn: number
    step: number
    id: string
    content: TextBlock[]
    toolCalls?: ToolCall[]
    usage?: Usage
  }
  'tool/call': { turn: number; step: number; callId: string; name: string; arguments: string }
  'tool/result': { turn: number; step: number; callId: string; content: TextBlock[]; isError?: boolean }
  'step/end': { turn: number; step: number }
  'turn/end': { turn: number; reason: TurnEndReason; message?: string }
  'compact/summary': { shadowedFrom: number; shadowedTo: number; summary: string }
  'schedule/change': Record<string, unknown>
  'inbox/enqueued': { target: InboxTarget; message: UserMessage }
  'inbox/dropped': { ids: string[]; reason: string }
  'session/title': { title: string }
}

/** Every event type name. */
export type EventType = keyof EventDataMap

/** An event as proposed for appending: the store adds seq and time. */
export type EventDraft<K extends EventType = EventType> = K extends EventType
  ? { type: K; data: EventDataMap[K]; surfaceOp?: SurfaceOp }
  : never

/** One durable event line (SPEC 2.2). */
export type SessionEvent<K extends EventType = EventType> = K extends EventType
  ? { seq: number; time: number; type: K; data: EventDataMap[K]; surfaceOp?: SurfaceOp }
  : never

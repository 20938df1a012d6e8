import type { PluginSource, UserMessage } from './events.ts'
import { TIME_CONTEXT_PLUGIN } from './plugin-names.ts'

/** The exact source of a reading (SPEC 5.5). */
export type TimeContextSource = {
  kind: 'plugin'
  plugin: typeof TIME_CONTEXT_PLUGIN
  form: 'snapshot'
  sections: [{ name: typeof TIME_CONTEXT_PLUGIN; text: string }]
}

/** Id of the reading of one step. */
export function readingMessageId(turn: number, step: number): string {
  return `time-context-${turn}-${step}`
}

/** The reading message of one step carrying the rendered four-line text (SPEC 5.5). */
export function buildReadingMessage(turn: number, step: number, text: string): UserMessage {
  const source: TimeContextSource = {
    kind: 'plugin',
    plugin: TIME_CONTEXT_PLUGIN,
    form: 'snapshot',
    sections: [{ name: TIME_CONTEXT_PLUGIN, text }],
  }
  return {
    id: readingMessageId(turn, step),
    role: 'user',
    content: [{ type: 'text', text }],
    source: source satisfies PluginSource,
  }
}

/** True iff a message source claims to be a time-context reading (shape not yet checked). */
export function isTimeContextSource(source: unknown): boolean {
  if (typeof source !== 'object' || source === null) return false
  const s = source as Record<string, unknown>
  return s.kind === 'plugin' && s.plugin === TIME_CONTEXT_PLUGIN
}

function exactRecord(value: unknown, keys: readonly string[]): Record<string, unknown> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return null
  const own = Reflect.ownKeys(value)
  if (own.length !== keys.length) return null
  for (const key of keys) {
    if (!Object.prototype.propertyIsEnumerable.call(value, key)) return null
  }
  return value as Record<string, unknown>
}

function single(value: unknown): unknown {
  return Array.isArray(value) && value.length === 1 && Object.prototype.hasOwnProperty.call(value, 0)
    ? value[0]
    : undefined
}

/** The text of a message whose content is exactly one `{type:'text', text}` block, else null. */
export function decodeSingleTextContent(message: unknown): string | null {
  if (typeof message !== 'object' || message === null) return null
  const block = exactRecord(single((message as Record<string, unknown>).content), ['type', 'text'])
  if (block === null || block.type !== 'text' || typeof block.text !== 'string') return null
  return block.text
}

/**
 * The one shared decoder of a time-context reading: exact message and source shape (exact key sets,
 * real arrays, section text equal to the content text), or null (SPEC 5.5).
 */
export function decodeTimeContextReading(message: unknown): { text: string } | null {
  const text = decodeSingleTextContent(message)
  return text !== null && isReadingOf(message, text) ? { text } : null
}

/**
 * The rest of `decodeTimeContextReading` for a message whose single text content is already
 * decoded as `text`: role `user` and the exact reading source carrying that same text.
 */
export function isReadingOf(message: unknown, text: string): boolean {
  if (typeof message !== 'object' || message === null) return false
  const m = message as Record<string, unknown>
  if (m.role !== 'user') return false
  const source = exactRecord(m.source, ['kind', 'plugin', 'form', 'sections'])
  if (source === null) return false
  if (source.kind !== 'plugin' || source.plugin !== TIME_CONTEXT_PLUGIN || source.form !== 'snapshot') return false
  const section = exactRecord(single(source.sections), ['name', 'text'])
  return section !== null && section.name === TIME_CONTEXT_PLUGIN && section.text === text
}

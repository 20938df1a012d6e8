import { z } from 'zod'
import { ModelError } from './model-error.ts'

const toolCallDeltaSchema = z.object({
  index: z.number().int().nonnegative(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
})

const deltaSchema = z.object({
  role: z.string().nullish(),
  content: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  tool_calls: z.array(toolCallDeltaSchema).nullish(),
})

const usageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative().optional(),
  completion_tokens: z.number().int().nonnegative().optional(),
})

const chunkSchema = z.object({
  choices: z.array(z.object({ index: z.number().int().optional(), delta: deltaSchema.nullish(), finish_reason: z.string().nullish() })),
  usage: usageSchema.nullish(),
})

const errorSchema = z.object({ error: z.union([z.string(), z.object({ message: z.string() })]) })

/** One streamed chat-completions chunk, as decoded by its schema. */
export type Chunk = z.infer<typeof chunkSchema>

/** What one SSE data payload of the stream says. */
export type StreamItem = { kind: 'done' } | { kind: 'chunk'; chunk: Chunk } | { kind: 'error'; message: string }

function snippet(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

/** Decodes one SSE data payload: `[DONE]`, a chunk, or an error the provider sent in the stream; anything else is a malformed chunk. */
export function decodeStreamItem(payload: string): StreamItem {
  if (payload.trim() === '[DONE]') return { kind: 'done' }
  let json: unknown
  try {
    json = JSON.parse(payload)
  } catch {
    throw new ModelError('model-malformed-chunk', `model stream sent a malformed chunk (not JSON): ${snippet(payload)}`)
  }
  const chunk = chunkSchema.safeParse(json)
  if (chunk.success) return { kind: 'chunk', chunk: chunk.data }
  const error = errorSchema.safeParse(json)
  if (error.success) {
    const e = error.data.error
    return { kind: 'error', message: typeof e === 'string' ? e : e.message }
  }
  const issue = chunk.error.issues[0]
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''
  throw new ModelError('model-malformed-chunk', `model stream sent a malformed chunk (${where}${issue?.message ?? 'invalid'}): ${snippet(payload)}`)
}

/** The words of an HTML page (a proxy's or a gateway's error page): its text without markup, scripts or styles. */
function pageText(html: string): string {
  return html
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

/**
 * The provider's own words in an error answer's body (`{error: {message}}`, `{error}`, `{message}`), else the body
 * itself, an HTML page's text without its markup (a person reads it in the conversation).
 */
export function providerMessage(body: string, statusText: string): string {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    json = undefined
  }
  const error = errorSchema.safeParse(json)
  if (error.success) {
    const e = error.data.error
    return typeof e === 'string' ? e : e.message
  }
  const bare = z.object({ message: z.string() }).safeParse(json)
  if (bare.success) return bare.data.message
  const trimmed = body.trim()
  const text = trimmed.startsWith('<') ? pageText(trimmed) : trimmed
  if (text !== '') return text.length > 500 ? `${text.slice(0, 500)}…` : text
  return statusText === '' ? 'no message' : statusText
}

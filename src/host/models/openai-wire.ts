import type { ModelMessage, ModelRequest } from './model.ts'

type WireToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } }

/** A chat-completions message as sent: only these fields, so nothing a provider streamed besides the answer (DeepSeek's `reasoning_content`) goes back. */
export type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string }

/** Converts the surface's messages to chat-completions messages, system prompt first. */
export function toWireMessages(system: string, messages: ModelMessage[]): WireMessage[] {
  const out: WireMessage[] = [{ role: 'system', content: system }]
  for (const m of messages) {
    switch (m.role) {
      case 'user':
        out.push({ role: 'user', content: m.text })
        break
      case 'assistant':
        out.push({
          role: 'assistant',
          content: m.text,
          ...(m.toolCalls.length > 0
            ? {
                tool_calls: m.toolCalls.map((c) => ({
                  id: c.callId,
                  type: 'function' as const,
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        })
        break
      case 'tool':
        out.push({ role: 'tool', tool_call_id: m.callId, content: m.text })
        break
      default: {
        const never: never = m
        throw new Error(`unknown message ${JSON.stringify(never)}`)
      }
    }
  }
  return out
}

/** The body of a streaming chat-completions request (usage included in the stream); `thinking` is DeepSeek's switch. */
export function chatCompletionsBody(
  model: string,
  request: ModelRequest,
  options: { temperature?: number | undefined; thinking?: 'enabled' | 'disabled' | undefined } = {},
): Record<string, unknown> {
  const { temperature, thinking } = options
  return {
    model,
    messages: toWireMessages(request.system, request.messages),
    stream: true,
    stream_options: { include_usage: true },
    ...(temperature === undefined ? {} : { temperature }),
    ...(thinking === undefined ? {} : { thinking: { type: thinking } }),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((t) => ({
            type: 'function',
            function: { name: t.name, description: t.description, parameters: t.parameters },
          })),
        }
      : {}),
  }
}

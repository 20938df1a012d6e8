import type { ToolCall } from '../../protocol/index.ts'
import { errorMessage } from '../../protocol/index.ts'
import type { SessionView, ToolDefinition } from '../plugin-api.ts'

/** What a tool call produced: the result text and whether it is an error. */
export type ToolOutcome = { text: string; isError?: boolean }

/** Runs one tool call: unknown tools, bad JSON and throws become error results, never a crashed turn. */
export async function runTool(
  tools: ReadonlyMap<string, ToolDefinition>,
  call: ToolCall,
  context: { session: SessionView; turn: number; step: number; signal: AbortSignal },
): Promise<ToolOutcome> {
  if (context.signal.aborted) return { text: 'cancelled before the tool ran', isError: true }
  const tool = tools.get(call.name)
  if (!tool) return { text: `unknown tool ${JSON.stringify(call.name)}`, isError: true }
  let args: unknown
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments)
  } catch {
    return { text: `tool arguments are not valid JSON: ${call.arguments}`, isError: true }
  }
  try {
    return await tool.execute(args, { ...context, callId: call.callId })
  } catch (error) {
    return { text: errorMessage(error), isError: true }
  }
}

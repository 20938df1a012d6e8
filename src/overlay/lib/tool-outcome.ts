/** How a tool call ended for a person: still running, done, failed, or a question back to the person (not an error). */
export type ToolOutcome = 'running' | 'done' | 'error' | 'question'

/** Schedule's answer codes that ask the person something instead of failing (SPEC 7.2). */
const QUESTION_CODES = new Set(['timezone_confirmation_required'])

/** The code of a JSON error result (`{"code": …}`), or null. */
export function resultCode(text: string): string | null {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null
    const code = (value as Record<string, unknown>).code
    return typeof code === 'string' ? code : null
  } catch {
    return null
  }
}

/** The outcome of a tool result: a clarifying question (`timezone_confirmation_required`) is a question, not an error. */
export function toolOutcome(result: { text: string; isError: boolean } | null): ToolOutcome {
  if (result === null) return 'running'
  const code = resultCode(result.text)
  if (code !== null && QUESTION_CODES.has(code)) return 'question'
  return result.isError ? 'error' : 'done'
}

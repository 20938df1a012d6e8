import { memo } from 'react'
import type { ToolOutcome } from '../lib/tool-outcome.ts'

function pretty(raw: string): string {
  if (raw.trim().length === 0) return raw
  try {
    return JSON.stringify(JSON.parse(raw), null, 2)
  } catch {
    return raw
  }
}

const LABEL: Record<ToolOutcome, string> = { running: 'running', done: 'done', error: 'error', question: 'asked you' }

/** A collapsible tool call with its result; a clarifying question is shown as one, not as an error. */
export const ToolCall = memo(function ToolCall({
  name,
  args,
  result,
  outcome,
}: {
  name: string
  args: string
  result: { text: string; isError: boolean } | null
  outcome: ToolOutcome
}) {
  return (
    <details className={`tool tool-${outcome}`} data-testid="tool-call" data-tool={name} data-outcome={outcome}>
      <summary>
        <span className="tool-name">{name}</span>
        <span className={`badge badge-${outcome === 'error' ? 'warning' : 'neutral'}`}>{LABEL[outcome]}</span>
      </summary>
      {args.length > 0 && (
        <>
          <div className="tool-label">Arguments</div>
          <pre className="tool-pre">{pretty(args)}</pre>
        </>
      )}
      {result !== null && (
        <>
          <div className="tool-label">{outcome === 'error' ? 'Error' : outcome === 'question' ? 'Question' : 'Result'}</div>
          <pre className="tool-pre">{pretty(result.text)}</pre>
        </>
      )}
    </details>
  )
})

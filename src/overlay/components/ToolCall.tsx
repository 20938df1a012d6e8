function pretty(raw: string): string {
  if (raw.trim().length === 0) return raw
  try {
    return JSON.stringify(JSON.parse(raw), null, 2)
  } catch {
    return raw
  }
}

/** A collapsible tool call with its result. */
export function ToolCall({
  name,
  args,
  result,
}: {
  name: string
  args: string
  result: { text: string; isError: boolean } | null
}) {
  const status = result === null ? 'running' : result.isError ? 'error' : 'done'
  return (
    <details className={`tool tool-${status}`} data-testid="tool-call" data-tool={name}>
      <summary>
        <span className="tool-name">{name}</span>
        <span className={`badge badge-${status === 'error' ? 'warning' : 'neutral'}`}>{status}</span>
      </summary>
      {args.length > 0 && (
        <>
          <div className="tool-label">Arguments</div>
          <pre className="tool-pre">{pretty(args)}</pre>
        </>
      )}
      {result !== null && (
        <>
          <div className="tool-label">{result.isError ? 'Error' : 'Result'}</div>
          <pre className="tool-pre">{pretty(result.text)}</pre>
        </>
      )}
    </details>
  )
}

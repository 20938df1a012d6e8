import { errorMessage } from '../data/http.ts'

/** An error message with an optional retry button. */
export function ErrorNotice({ error, title, onRetry }: { error: unknown; title: string; onRetry?: () => void }) {
  return (
    <div className="notice notice-error" role="alert">
      <strong>{title}</strong>
      <span>{errorMessage(error)}</span>
      {onRetry !== undefined && (
        <button type="button" className="button button-small" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  )
}

import { useId, useState, type FormEvent, type KeyboardEvent } from 'react'
import { errorMessage } from '../data/http.ts'
import { useCancelTurn, useSendMessage, type SendMode } from '../data/queries.ts'

/** The message box: Enter queues, Shift+Enter adds a line; while a turn runs, Steer and Stop appear. */
export function Composer({ sessionId, running }: { sessionId: string; running: boolean }) {
  const [text, setText] = useState('')
  const send = useSendMessage(sessionId)
  const cancel = useCancelTurn(sessionId)
  const inputId = useId()
  const hintId = useId()
  const empty = text.trim().length === 0

  const submit = (mode: SendMode) => {
    if (empty || send.isPending) return
    const sent = text
    send.mutate(
      { text: sent, mode },
      { onSuccess: () => setText((current) => (current === sent ? '' : current)) },
    )
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    submit('queue')
  }

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return
    event.preventDefault()
    submit(running && (event.ctrlKey || event.metaKey) ? 'steer' : 'queue')
  }

  return (
    <form className="composer" onSubmit={onSubmit} aria-label="Send a message">
      <label htmlFor={inputId} className="visually-hidden">
        Message
      </label>
      <textarea
        id={inputId}
        className="composer-input"
        data-testid="composer-input"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        rows={2}
        placeholder={running ? 'Queue a message for the next turn, or steer this one…' : 'Message the assistant…'}
        aria-describedby={hintId}
      />
      <div className="composer-row">
        <p id={hintId} className="composer-hint muted small">
          Enter to send · Shift+Enter for a new line{running ? ' · Ctrl+Enter to steer the running turn' : ''}
        </p>
        <div className="composer-actions">
          {running && (
            <button
              type="button"
              className="button button-danger"
              data-testid="cancel-turn"
              onClick={() => cancel.mutate()}
              disabled={cancel.isPending}
            >
              {cancel.isPending ? 'Stopping…' : 'Stop turn'}
            </button>
          )}
          {running && (
            <button
              type="button"
              className="button"
              data-testid="composer-steer"
              onClick={() => submit('steer')}
              disabled={empty || send.isPending}
              title="Add this message to the running turn"
            >
              Steer
            </button>
          )}
          <button type="submit" className="button button-primary" data-testid="composer-send" disabled={empty || send.isPending}>
            {send.isPending ? 'Sending…' : running ? 'Queue' : 'Send'}
          </button>
        </div>
      </div>
      {send.isError && (
        <p className="notice notice-error" role="alert">
          Not sent: {errorMessage(send.error)}
        </p>
      )}
      {cancel.isError && (
        <p className="notice notice-error" role="alert">
          Could not stop the turn: {errorMessage(cancel.error)}
        </p>
      )}
    </form>
  )
}

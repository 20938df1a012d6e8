import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react'
import { readDraft, writeDraft } from '../data/drafts.ts'
import { answerLost, errorMessage, newIdempotencyKey } from '../data/http.ts'
import { useCancelTurn, useSendMessage, type SendMode } from '../data/queries.ts'
import { useRootLength } from '../hooks/use-root-length.ts'
import { COMPOSER_ID, takePendingComposerFocus } from '../lib/focus.ts'
import { followConversation } from '../lib/follow.ts'

/** The CSS property holding the composer's height, which the toasts keep clear of. */
const COMPOSER_HEIGHT = '--composer-height'
const heightOf = (box: DOMRect) => box.height

/** Why Send and Stop are unavailable while the server cannot be reached. */
export const OFFLINE_REASON = 'Offline: sending and stopping wait until the server is reachable again.'

/** What a failed send says: with no answer the server may have it (sending it again enters it once), else it was refused. */
function sendFailure(error: unknown): string {
  if (answerLost(error)) return `Not confirmed: ${errorMessage(error)} Send it again; it will not appear twice.`
  return `Not sent: ${errorMessage(error)}`
}

/**
 * The message box: Enter queues, Shift+Enter adds a line; while a turn runs, Steer and Stop appear; offline, they say
 * why they are off. What is typed and not sent stays the Session's draft in this browser, there again after a switch
 * to another Session or a reload, until it is sent.
 */
export function Composer({ sessionId, running, offline }: { sessionId: string; running: boolean; offline: boolean }) {
  const [text, setText] = useState(() => readDraft(sessionId))
  const send = useSendMessage(sessionId)
  const cancel = useCancelTurn(sessionId)
  const boxRef = useRef<HTMLTextAreaElement>(null)
  const hintId = useId()
  const empty = text.trim().length === 0
  const blocked = offline || send.isPending

  useEffect(() => {
    const box = boxRef.current
    if (box === null) return
    // a draft brought back is taken up where it ends
    box.setSelectionRange(box.value.length, box.value.length)
    takePendingComposerFocus(box)
  }, [])

  useEffect(() => writeDraft(sessionId, text), [sessionId, text])

  // Toasts stand above the composer (its height grows with the text), never over Send.
  const formRef = useRootLength<HTMLFormElement>(COMPOSER_HEIGHT, heightOf)

  const { reset: resetSend } = send
  const { reset: resetCancel } = cancel
  useEffect(() => {
    if (!offline) {
      resetSend()
      resetCancel()
    }
  }, [offline, resetSend, resetCancel])

  // The key of the message being sent: kept while the same text is sent the same way again (after a failure whose
  // answer was lost, the server may hold it already, and enters it once), new for anything else.
  const draft = useRef<{ text: string; mode: SendMode; key: string } | null>(null)
  const submit = (mode: SendMode) => {
    if (empty || blocked) return
    const sent = text
    const held = draft.current
    const key = held !== null && held.text === sent && held.mode === mode ? held.key : newIdempotencyKey()
    draft.current = { text: sent, mode, key }
    // what the person sends is shown where it goes, at the bottom, however far up they had scrolled
    followConversation()
    send.mutate(
      { text: sent, mode, key },
      {
        onSuccess: () => {
          if (draft.current?.key === key) draft.current = null
          setText((current) => (current === sent ? '' : current))
        },
      },
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
    <form ref={formRef} className="composer" onSubmit={onSubmit} aria-label="Send a message">
      <label htmlFor={COMPOSER_ID} className="visually-hidden">
        Message
      </label>
      <textarea
        id={COMPOSER_ID}
        ref={boxRef}
        className="composer-input"
        data-testid="composer-input"
        value={text}
        onChange={(event) => {
          // a refusal is of the message sent: a change to it clears the notice (the next send says how that one went);
          // a send whose answer was lost stays said, as the server may hold it
          if (send.isError && !answerLost(send.error)) resetSend()
          setText(event.target.value)
        }}
        onKeyDown={onKeyDown}
        rows={2}
        dir="auto"
        placeholder={running ? 'Queue a message for the next turn, or steer this one…' : 'Message the assistant…'}
        aria-describedby={hintId}
      />
      <div className="composer-row">
        <p id={hintId} className={`composer-hint small${offline ? ' composer-hint-offline' : ' muted'}`}>
          {offline
            ? OFFLINE_REASON
            : `Enter to send · Shift+Enter for a new line${running ? ' · Ctrl+Enter to steer · Escape to stop' : ''}`}
        </p>
        <div className="composer-actions">
          {running && (
            <button
              type="button"
              className="button button-danger"
              data-testid="cancel-turn"
              onClick={() => cancel.mutate()}
              disabled={cancel.isPending || offline}
              aria-describedby={offline ? hintId : undefined}
            >
              {cancel.isPending ? 'Stopping…' : 'Stop'}
            </button>
          )}
          {running && (
            <button
              type="button"
              className="button"
              data-testid="composer-steer"
              onClick={() => submit('steer')}
              disabled={empty || blocked}
              aria-describedby={offline ? hintId : undefined}
            >
              Steer
            </button>
          )}
          <button
            type="submit"
            className="button button-primary"
            data-testid="composer-send"
            disabled={empty || blocked}
            aria-describedby={offline ? hintId : undefined}
          >
            {send.isPending ? 'Sending…' : running ? 'Queue' : 'Send'}
          </button>
        </div>
      </div>
      {send.isError && (
        <p className="notice notice-error" role="alert">
          {sendFailure(send.error)}
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

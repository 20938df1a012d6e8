import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react'
import { errorMessage } from '../data/http.ts'
import { useRenameSession } from '../data/queries.ts'

const MAX_TITLE = 120

/** The Session's name with Rename: an inline field that saves with `PATCH` (SPEC 8 v2) and gives focus back to the button. */
export function SessionTitle({ sessionId, name, title, offline }: { sessionId: string; name: string; title: string | undefined; offline: boolean }) {
  const rename = useRenameSession(sessionId)
  const [editing, setEditing] = useState(false)
  const [value, setValue] = useState('')
  const buttonRef = useRef<HTMLButtonElement>(null)
  const inputRef = useRef<HTMLInputElement>(null)
  const restore = useRef(false)

  useEffect(() => {
    if (editing) inputRef.current?.select()
    else if (restore.current) {
      restore.current = false
      buttonRef.current?.focus()
    }
  }, [editing])

  const close = () => {
    restore.current = true
    setEditing(false)
  }
  const trimmed = value.trim()
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (trimmed.length === 0 || trimmed.length > MAX_TITLE || offline) return
    rename.mutate(trimmed, { onSuccess: close })
  }
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return
    event.preventDefault()
    close()
  }

  if (editing) {
    return (
      <form className="rename" onSubmit={onSubmit} aria-label="Rename this session">
        {/* the page keeps its heading while its name is being changed */}
        <h1 className="visually-hidden" dir="auto">
          {name}
        </h1>
        <label className="visually-hidden" htmlFor="session-title-input">
          Session name
        </label>
        <input
          id="session-title-input"
          ref={inputRef}
          value={value}
          maxLength={MAX_TITLE}
          dir="auto"
          onChange={(event) => setValue(event.target.value)}
          onKeyDown={onKeyDown}
          data-testid="session-rename-input"
        />
        <button type="submit" className="button button-small button-primary" disabled={trimmed.length === 0 || rename.isPending || offline}>
          {rename.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="button button-small" onClick={close}>
          Cancel
        </button>
        {rename.isError && (
          <span className="notice notice-error" role="alert">
            Not renamed: {errorMessage(rename.error)}
          </span>
        )}
      </form>
    )
  }
  return (
    <>
      <h1 dir="auto" data-testid="session-title">
        {name}
      </h1>
      <button
        ref={buttonRef}
        type="button"
        className="button button-small button-quiet"
        data-testid="session-rename"
        onClick={() => {
          setValue(title ?? name)
          rename.reset()
          setEditing(true)
        }}
        aria-label={`Rename session ${name}`}
      >
        Rename
      </button>
    </>
  )
}

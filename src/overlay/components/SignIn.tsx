import { useId, useState, type FormEvent } from 'react'
import { accessToken, signIn } from '../data/auth.ts'

/**
 * What a tab without a valid access token sees (the server was started with `--token` and refused it): how to get
 * in — the link with the token, or the token pasted here — and, when the tab had one, that it was not accepted.
 */
export function SignIn() {
  const [value, setValue] = useState('')
  const inputId = useId()
  const hadToken = accessToken() !== null
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    const token = value.trim()
    if (token.length > 0) signIn(token)
  }
  return (
    <main id="main" className="sign-in" data-testid="sign-in">
      <h1 className="sign-in-title">Schedule Web</h1>
      {hadToken && (
        <p className="notice notice-error" role="alert">
          The access token this tab had was not accepted.
        </p>
      )}
      <p>
        This server asks for an access token. Open the link you were given (it ends in <code>?access_token=…</code>), or paste the token here.
      </p>
      <form className="sign-in-form" onSubmit={onSubmit} aria-label="Sign in">
        <label htmlFor={inputId}>Access token</label>
        <input
          id={inputId}
          type="password"
          data-testid="sign-in-token"
          autoComplete="off"
          spellCheck={false}
          value={value}
          onChange={(event) => setValue(event.target.value)}
          autoFocus
        />
        <button type="submit" className="button button-primary" data-testid="sign-in-submit" disabled={value.trim().length === 0}>
          Sign in
        </button>
      </form>
    </main>
  )
}

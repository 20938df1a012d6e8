/** Where the half-typed message of a Session is kept in this browser. */
const DRAFT_PREFIX = 'schedule-web:draft:'

/** The message a person had begun in this Session and not sent, or '' (kept in this browser across Session switches and reloads). */
export function readDraft(sessionId: string): string {
  try {
    return window.localStorage.getItem(DRAFT_PREFIX + sessionId) ?? ''
  } catch {
    return ''
  }
}

/** Keeps `text` as the Session's unsent message; an empty or blank one removes it. */
export function writeDraft(sessionId: string, text: string): void {
  try {
    if (text.trim().length === 0) window.localStorage.removeItem(DRAFT_PREFIX + sessionId)
    else window.localStorage.setItem(DRAFT_PREFIX + sessionId, text)
  } catch {
    // storage can be full or unavailable: the draft then lives only as long as the message box
  }
}

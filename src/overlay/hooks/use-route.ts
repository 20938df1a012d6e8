import { useCallback, useSyncExternalStore } from 'react'
import { sessionIdFromUrl, sessionPath } from '../lib/route.ts'

const NAVIGATE_EVENT = 'overlay:navigate'

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange)
  window.addEventListener(NAVIGATE_EVENT, onChange)
  return () => {
    window.removeEventListener('popstate', onChange)
    window.removeEventListener(NAVIGATE_EVENT, onChange)
  }
}

function currentSessionId(): string | null {
  return sessionIdFromUrl(window.location.pathname, window.location.search)
}

/** The Session the URL names, and a function that opens another one (pushing a history entry). */
export function useSessionRoute(): { sessionId: string | null; openSession: (id: string | null) => void } {
  const sessionId = useSyncExternalStore(subscribe, currentSessionId)
  const openSession = useCallback((id: string | null) => {
    const target = id === null ? '/' : sessionPath(id)
    if (window.location.pathname + window.location.search !== target) window.history.pushState(null, '', target)
    window.dispatchEvent(new Event(NAVIGATE_EVENT))
  }, [])
  return { sessionId, openSession }
}

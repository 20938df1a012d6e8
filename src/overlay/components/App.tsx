import { useEffect } from 'react'
import { useAppStream } from '../data/app-stream.ts'
import { useSignInNeeded } from '../data/auth.ts'
import { useOfflineCause } from '../data/connectivity.ts'
import { setActiveSession, useUnread, type DueNotice } from '../data/notices.ts'
import { useSession } from '../data/queries.ts'
import { useBrowserZone } from '../hooks/use-browser-zone.ts'
import { useLocale } from '../hooks/use-locale.ts'
import { useSessionRoute } from '../hooks/use-route.ts'
import { zonePlace } from '../lib/display/index.ts'
import { COMPOSER_ID, focusComposer } from '../lib/focus.ts'
import { notifyDue } from '../lib/notifications.ts'
import { sessionName } from '../lib/session-name.ts'
import { ClockWarning, OfflineBanner } from './Banners.tsx'
import { SessionSidebar } from './SessionSidebar.tsx'
import { SessionView } from './SessionView.tsx'
import { SignIn } from './SignIn.tsx'
import { Toasts } from './Toasts.tsx'
import { ZoneBar } from './ZoneBar.tsx'

/** Keeps the tab title as `(n) <Session> · Schedule Web`, n being the unread due reminders. */
function useDocumentTitle(sessionId: string | null, browserZone: string | null, locale: string): void {
  const session = useSession(sessionId ?? '', sessionId !== null)
  const unread = useUnread()
  const count = Object.values(unread).reduce((sum, n) => sum + n, 0)
  const name = sessionId !== null && session.data !== undefined ? sessionName(session.data, locale, browserZone, Date.now()) : null
  useEffect(() => {
    const base = name === null ? 'Schedule Web' : `${name} · Schedule Web`
    document.title = count > 0 ? `(${count}) ${base}` : base
  }, [name, count])
}

/** The overlay, or, while the server refuses this tab for want of a valid access token, the way to sign in. */
export function App() {
  return useSignInNeeded() ? <SignIn /> : <Overlay />
}

/** The overlay: skip link, Session list beside the open Session named by the URL, offline and clock banners, and due-reminder toasts. */
function Overlay() {
  const { sessionId, openSession } = useSessionRoute()
  const browserZone = useBrowserZone()
  const locale = useLocale()
  const offlineCause = useOfflineCause()
  const offline = offlineCause !== null
  // a Session that could not be loaded has no message box to skip to
  const toComposer = useSession(sessionId ?? '', sessionId !== null).isError === false && sessionId !== null
  const live = useAppStream((notice: DueNotice) => notifyDue(`Reminder: ${notice.prompt}`, 'Schedule Web', notice.key, () => openSession(notice.sessionId)))
  useDocumentTitle(sessionId, browserZone, locale)

  useEffect(() => {
    setActiveSession(sessionId)
    const onVisible = () => setActiveSession(sessionId)
    document.addEventListener('visibilitychange', onVisible)
    return () => document.removeEventListener('visibilitychange', onVisible)
  }, [sessionId])

  return (
    <>
      <a
        className="skip-link"
        href={toComposer ? `#${COMPOSER_ID}` : '#main'}
        onClick={(event) => {
          event.preventDefault()
          if (document.getElementById(COMPOSER_ID) !== null) focusComposer()
          else document.getElementById('main')?.focus()
        }}
      >
        {toComposer ? 'Skip to the message box' : 'Skip to content'}
      </a>
      <div className="app">
        <SessionSidebar activeId={sessionId} browserZone={browserZone} live={live} onOpen={openSession} />
        <main id="main" className="main" tabIndex={-1}>
          {offlineCause !== null && <OfflineBanner cause={offlineCause} />}
          <ClockWarning browserZone={browserZone} />
          {sessionId === null ? (
            <div className="session">
              <ZoneBar browserZone={browserZone} />
              <div className="welcome">
                <h1>Schedule Web</h1>
                <p className="muted">
                  Pick a session from the list, or create a new one. A new session keeps time in this browser’s zone
                  {browserZone === null ? '' : ` (${zonePlace(browserZone)})`}.
                </p>
              </div>
            </div>
          ) : (
            <SessionView key={sessionId} sessionId={sessionId} browserZone={browserZone} locale={locale} offline={offline} onLeave={() => openSession(null)} />
          )}
        </main>
      </div>
      <Toasts activeId={sessionId} browserZone={browserZone} locale={locale} offline={offline} onOpen={openSession} />
    </>
  )
}

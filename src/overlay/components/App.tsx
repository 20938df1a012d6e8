import { useBrowserZone } from '../hooks/use-browser-zone.ts'
import { useSessionRoute } from '../hooks/use-route.ts'
import { SessionSidebar } from './SessionSidebar.tsx'
import { SessionView } from './SessionView.tsx'
import { ZoneBar } from './ZoneBar.tsx'

/** The overlay: Session list beside the open Session named by the URL. */
export function App() {
  const { sessionId, openSession } = useSessionRoute()
  const browserZone = useBrowserZone()
  return (
    <div className="app">
      <SessionSidebar activeId={sessionId} browserZone={browserZone} onOpen={openSession} />
      <main className="main">
        {sessionId === null ? (
          <div className="session">
            <ZoneBar browserZone={browserZone} />
            <div className="welcome">
              <h1>Schedule Web</h1>
              <p className="muted">
                Pick a session from the list, or create a new one. A new session keeps time in this browser’s zone
                {browserZone === null ? '' : ` (${browserZone})`}.
              </p>
            </div>
          </div>
        ) : (
          <SessionView key={sessionId} sessionId={sessionId} browserZone={browserZone} onLeave={() => openSession(null)} />
        )}
      </main>
    </div>
  )
}

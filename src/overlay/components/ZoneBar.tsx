import { compareZones, sessionZoneLabel } from '../lib/zones.ts'

/** The Session zone and this browser's zone, always visible; pass `sessionZone` undefined when no Session is open. */
export function ZoneBar({ sessionZone, browserZone }: { sessionZone?: string | null; browserZone: string | null }) {
  return (
    <dl className="zone-bar">
      {sessionZone !== undefined && (
        <div className="zone-pair">
          <dt id="session-zone-label">Session zone</dt>
          <dd data-testid="session-zone" aria-labelledby="session-zone-label" className={sessionZone === null ? 'zone-unavailable' : undefined}>
            {sessionZoneLabel(sessionZone)}
          </dd>
        </div>
      )}
      <div className="zone-pair">
        <dt id="browser-zone-label">This browser</dt>
        <dd data-testid="browser-zone" aria-labelledby="browser-zone-label">
          {browserZone ?? 'unknown'}
        </dd>
      </div>
    </dl>
  )
}

/** A banner shown only when the Session zone and this browser's zone differ (canonical comparison). */
export function ZoneDisagreement({ sessionZone, browserZone }: { sessionZone: string | null; browserZone: string | null }) {
  const agreement = compareZones(sessionZone, browserZone)
  if (agreement.kind === 'same') return null
  let text: string
  switch (agreement.kind) {
    case 'different':
      text = `This Session keeps time in ${agreement.sessionZone}, but this browser is in ${agreement.browserZone}. Local times you type without a zone are ambiguous, so the assistant will ask which zone you mean.`
      break
    case 'headerless':
      text = `This Session has no time zone (unavailable); this browser is in ${agreement.browserZone}. Name a zone when you ask for a local time.`
      break
    case 'browser-unknown':
      text = 'This browser does not report a usable time zone. Name a zone when you ask for a local time.'
      break
    default: {
      const unreachable: never = agreement
      return unreachable
    }
  }
  return (
    <div className="banner banner-warning" role="status" data-testid="zone-disagreement" data-kind={agreement.kind}>
      <strong>Time zones differ.</strong> {text}
    </div>
  )
}

import { useLocale } from '../hooks/use-locale.ts'
import { zoneDetail, zonePlace } from '../lib/display/index.ts'
import { compareZones } from '../lib/zones.ts'

function Zone({ testId, zone, fallback }: { testId: string; zone: string | null; fallback: string }) {
  const detail = zone === null ? undefined : zoneDetail(zone, Date.now())
  return (
    <dd data-testid={testId} data-time-zone={zone ?? ''} title={detail} className={zone === null ? 'zone-unavailable' : undefined}>
      {zone === null ? fallback : zonePlace(zone)}
    </dd>
  )
}

/** The Session zone and this browser's zone, always visible, as places (IANA id and offset on hover); `sessionZone` undefined when no Session is open. */
export function ZoneBar({ sessionZone, browserZone }: { sessionZone?: string | null; browserZone: string | null }) {
  return (
    <dl className="zone-bar">
      {sessionZone !== undefined && (
        <div className="zone-pair">
          <dt>Session time</dt>
          <Zone testId="session-zone" zone={sessionZone} fallback="unavailable" />
        </div>
      )}
      <div className="zone-pair">
        <dt>This browser</dt>
        <Zone testId="browser-zone" zone={browserZone} fallback="unknown" />
      </div>
    </dl>
  )
}

/** A banner shown only when the Session zone and this browser's zone differ (canonical comparison). */
export function ZoneDisagreement({ sessionZone, browserZone }: { sessionZone: string | null; browserZone: string | null }) {
  useLocale()
  const agreement = compareZones(sessionZone, browserZone)
  if (agreement.kind === 'same') return null
  let text: string
  switch (agreement.kind) {
    case 'different':
      text = `This Session keeps time in ${zonePlace(agreement.sessionZone)}, but this browser is in ${zonePlace(agreement.browserZone)}. Local times you type without a zone are ambiguous, so the assistant will ask which zone you mean.`
      break
    case 'headerless':
      text = `This Session has no time zone; this browser is in ${zonePlace(agreement.browserZone)}. Name a zone when you ask for a local time.`
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
      <strong>Time zones differ.</strong> <span className="banner-detail">{text}</span>
    </div>
  )
}

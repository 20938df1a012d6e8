import { useClockWarnings } from '../data/server-time.ts'

/** Says plainly that the overlay is offline, and why: this device has no network, or the server cannot be reached (after 2 s). */
export function OfflineBanner({ cause }: { cause: 'device' | 'server' }) {
  return (
    <div className="banner banner-offline" role="status" data-testid="offline-banner">
      <strong>Offline.</strong>{' '}
      {cause === 'device' ? 'This device has no network connection' : 'The server cannot be reached'}; the overlay reconnects by itself. Sending and
      stopping wait until then.
    </div>
  )
}

/** The device clock check: a plain warning when this device's clock or time zone data disagrees with the server's. */
export function ClockWarning({ browserZone }: { browserZone: string | null }) {
  const warnings = useClockWarnings(browserZone)
  if (warnings.length === 0) return null
  return (
    <div className="banner banner-warning" role="status" data-testid="clock-warning">
      {warnings.map((warning) => (
        <p key={warning}>{warning}</p>
      ))}
    </div>
  )
}

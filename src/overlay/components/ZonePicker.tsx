import { useId, useMemo, useState } from 'react'
import { sameTimeZone } from '../../protocol/index.ts'
import { zoneOption, zonePlace, zonesInListOrder } from '../lib/display/index.ts'

function allZones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone')
  } catch {
    return []
  }
}

/** Picks the zone a local time is read in: the Session zone by default, this browser's one click away, any zone from the list. */
export function ZonePicker({
  value,
  onChange,
  sessionZone,
  browserZone,
}: {
  value: string
  onChange: (zone: string) => void
  sessionZone: string | null
  browserZone: string | null
}) {
  const id = useId()
  // offsets as the picker opened: labels of ~400 zones are built once, not on every keystroke in the form
  const [now] = useState(() => Date.now())
  const zones = useMemo(() => zonesInListOrder(allZones()), [])
  const known = zones.some((zone) => zone === value) || value === sessionZone || value === browserZone
  const others = useMemo(
    () =>
      zones
        .filter((zone) => zone !== sessionZone && zone !== browserZone)
        .map((zone) => (
          <option key={zone} value={zone}>
            {zoneOption(zone, now)}
          </option>
        )),
    [zones, sessionZone, browserZone, now],
  )
  return (
    <div className="zone-picker">
      <label htmlFor={id}>Time zone</label>
      <div className="zone-picker-row">
        <select id={id} data-testid="reminder-zone" value={value} onChange={(event) => onChange(event.target.value)}>
          {sessionZone !== null && <option value={sessionZone}>{`${zoneOption(sessionZone, now)} · this Session`}</option>}
          {browserZone !== null && (sessionZone === null || !sameTimeZone(sessionZone, browserZone)) && (
            <option value={browserZone}>{`${zoneOption(browserZone, now)} · this browser`}</option>
          )}
          {!known && <option value={value}>{zoneOption(value, now)}</option>}
          <optgroup label="All zones">{others}</optgroup>
        </select>
        {browserZone !== null && !sameTimeZone(value, browserZone) && (
          <button
            type="button"
            className="button button-small"
            data-testid="reminder-zone-browser"
            onClick={() => {
              onChange(browserZone)
              // the button goes once the zone is this browser's: focus stays with the zone, in the form
              document.getElementById(id)?.focus()
            }}
          >
            Use this browser’s zone ({zonePlace(browserZone)})
          </button>
        )}
      </div>
    </div>
  )
}

import { memo, useId } from 'react'
import { sameTimeZone } from '../../protocol/index.ts'
import { formatFull, formatStamp, zoneDetail, zonePlace } from '../lib/display/index.ts'
import type { ReadingCard } from '../lib/reading-card.ts'

/** What a reading chip needs besides the reading. */
export type ReadingContext = { locale: string; now: number }

function differs(card: ReadingCard): boolean {
  switch (card.clientKind) {
    case 'mixed':
      return true
    case 'resolved':
      return card.sessionZone === null || !sameTimeZone(card.sessionZone, card.clientZones[0])
    case 'missing':
      return false
    default: {
      const unreachable: never = card.clientKind
      return unreachable
    }
  }
}

function clientWords(card: ReadingCard, startedByReminder: boolean): string {
  switch (card.clientKind) {
    case 'resolved':
      return `from ${zonePlace(card.clientZones[0])}`
    case 'mixed':
      return `from ${card.clientZones.map(zonePlace).join(' and ')}`
    case 'missing':
      return startedByReminder ? 'started by a reminder' : 'no browser zone'
    default: {
      const unreachable: never = card.clientKind
      return unreachable
    }
  }
}

/** One time-context reading as a one-line chip (time, Session place, client place), expandable to its four fields. */
export const ReadingChip = memo(function ReadingChip({
  card,
  text,
  startedByReminder,
  expanded,
  onToggle,
  context,
}: {
  card: ReadingCard | null
  text: string
  startedByReminder: boolean
  expanded: boolean
  onToggle: () => void
  context: ReadingContext
}) {
  const detailsId = useId()
  if (card === null) {
    return (
      <div className="reading reading-neutral" data-testid="reading-unparsed">
        <pre className="reading-raw">{text}</pre>
      </div>
    )
  }
  const warning = differs(card)
  const tone = warning ? 'warning' : card.clientKind === 'missing' ? 'neutral' : 'ok'
  const instant = card.sampled?.instantMs ?? null
  const zone = card.sampled?.zone ?? card.sessionZone
  const time = instant !== null && zone !== null ? formatStamp(instant, zone, context.locale, context.now) : card.timestamp
  const session = card.sessionZone === null ? 'no Session zone' : zonePlace(card.sessionZone)
  const client = clientWords(card, startedByReminder)
  return (
    <div
      className={`reading reading-${tone}${expanded ? ' reading-open' : ''}`}
      data-testid="reading"
      data-client-kind={card.clientKind}
      data-turn={card.turn}
      data-step={card.step}
      data-tone={tone}
    >
      <button
        type="button"
        className="reading-chip"
        data-testid="reading-chip"
        aria-expanded={expanded}
        aria-controls={detailsId}
        onClick={onToggle}
        title="Time the assistant was given for this step"
      >
        <span className="reading-label">Time</span> <span className="reading-time">{time}</span>
        {/* the separators are not read, the spaces around them are: "Time 6:19 AM New York from New York" */}{' '}
        <span aria-hidden="true">·</span> <span>{session}</span> <span aria-hidden="true">·</span>{' '}
        <span className={warning ? 'reading-client-warn' : undefined}>{client}</span>
        {warning && <span className="visually-hidden"> (differs from the Session zone)</span>}
      </button>
      {expanded && (
        <div id={detailsId} className="reading-details">
          <dl className="reading-grid">
            <div>
              <dt>Sampled</dt>
              <dd>
                {instant !== null && zone !== null ? (
                  <time dateTime={new Date(instant).toISOString()}>{formatFull(instant, zone, context.locale)}</time>
                ) : (
                  card.timestamp
                )}
              </dd>
            </div>
            <div>
              <dt>Session zone</dt>
              <dd>{card.sessionZone === null ? 'unavailable' : zoneDetail(card.sessionZone, instant ?? context.now)}</dd>
            </div>
            <div>
              <dt>Client zone</dt>
              <dd>
                {card.clientKind === 'mixed' && <span className="badge badge-warning">mixed</span>}{' '}
                {card.clientKind === 'missing' ? (startedByReminder ? 'none: started by a reminder' : 'missing') : card.clientZones.join(', ')}
              </dd>
            </div>
            <div>
              <dt>Elapsed</dt>
              <dd>
                {card.elapsed} {card.baseline === 'step context' ? 'since the last step' : 'since the last message'}
              </dd>
            </div>
          </dl>
          {card.clientKind === 'mixed' && <p className="reading-hint">Messages in this turn came from different zones; local times are ambiguous.</p>}
          {card.clientKind === 'resolved' && warning && (
            <p className="reading-hint">This message came from another zone than the Session’s, so local times are ambiguous.</p>
          )}
        </div>
      )}
    </div>
  )
})

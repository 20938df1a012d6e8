import type { ReadingCard as ReadingCardModel } from '../lib/reading-card.ts'
import { formatInstantInZone } from '../lib/due-time.ts'

const CLIENT_HINT: Record<ReadingCardModel['clientKind'], string> = {
  resolved: '',
  mixed: 'Messages in this turn came from different zones; local times are ambiguous.',
  missing: 'No browser zone came with this request.',
}

/** A compact card for one time-context reading. */
export function ReadingCard({ card, text, browserZone }: { card: ReadingCardModel | null; text: string; browserZone: string | null }) {
  if (card === null) {
    return (
      <article className="reading reading-neutral" data-testid="reading-unparsed" aria-label="Time reading (unrecognised format)">
        <pre className="reading-raw">{text}</pre>
      </article>
    )
  }
  const local = card.sampled !== null && browserZone !== null ? formatInstantInZone(card.sampled.instantMs, browserZone) : null
  return (
    <article
      className={`reading reading-${card.tone}`}
      data-testid="reading"
      data-client-kind={card.clientKind}
      data-turn={card.turn}
      data-step={card.step}
      aria-label={`Time reading, turn ${card.turn} step ${card.step}`}
      title={text}
    >
      <div className="reading-head">
        <span className="reading-kicker">Time reading</span>
        <span className="muted">
          turn {card.turn}, step {card.step}
        </span>
      </div>
      <dl className="reading-grid">
        <div>
          <dt>Sampled</dt>
          <dd>
            {card.sampled === null ? (
              card.timestamp
            ) : (
              <time dateTime={`${card.sampled.date}T${card.sampled.time}${card.sampled.offset}`} title={local === null ? undefined : `In this browser: ${local}`}>
                {card.sampled.date} {card.sampled.time}
                <span className="muted"> {card.sampled.offset}</span>
              </time>
            )}
          </dd>
        </div>
        <div>
          <dt>Session zone</dt>
          <dd className={card.sessionZone === null ? 'zone-unavailable' : undefined}>{card.sessionZone ?? 'unavailable'}</dd>
        </div>
        <div className={`reading-client reading-client-${card.clientKind}`}>
          <dt>Client zone</dt>
          <dd>
            {card.clientKind === 'mixed' && <span className="badge badge-warning">mixed</span>}{' '}
            {card.clientKind === 'mixed' ? card.clientZones.join(', ') : card.clientLabel}
          </dd>
        </div>
        <div>
          <dt>Elapsed</dt>
          <dd>
            {card.elapsed}{' '}
            <span className="muted" title={`Since the preceding ${card.baseline}`}>
              {card.baseline === 'step context' ? 'since last step' : 'since last message'}
            </span>
          </dd>
        </div>
      </dl>
      {CLIENT_HINT[card.clientKind] !== '' && <p className="reading-hint">{CLIENT_HINT[card.clientKind]}</p>}
    </article>
  )
}

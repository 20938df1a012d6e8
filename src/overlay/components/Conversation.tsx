import { useLayoutEffect, useRef } from 'react'
import { sameTimeZone } from '../../protocol/index.ts'
import type { Conversation as ConversationModel, ConversationItem, UserItem } from '../lib/conversation.ts'
import { formatClockTime, formatInstantInZone } from '../lib/due-time.ts'
import { ReadingCard } from './ReadingCard.tsx'
import { ReminderDueCard } from './ReminderDueCard.tsx'
import { ToolCall } from './ToolCall.tsx'

type Zones = { sessionZone: string | null; browserZone: string | null; now: number }

function Stamp({ time, zones }: { time: number; zones: Zones }) {
  const full = formatInstantInZone(time, zones.browserZone ?? 'UTC')
  return (
    <time className="stamp" dateTime={new Date(time).toISOString()} title={full ?? undefined}>
      {formatClockTime(time, zones.browserZone, zones.now)}
    </time>
  )
}

const STATE_LABEL: Record<UserItem['state'], string | null> = { entered: null, queued: 'waiting', dropped: 'dropped' }

function UserMessage({ item, zones }: { item: UserItem; zones: Zones }) {
  const foreign = item.zone !== null && zones.sessionZone !== null && !sameTimeZone(item.zone, zones.sessionZone)
  const stateLabel = STATE_LABEL[item.state]
  return (
    <article
      className={`msg msg-user msg-${item.state}`}
      data-testid="message-user"
      data-client-zone={item.zone ?? ''}
      data-state={item.state}
      aria-label="Your message"
    >
      <div className="msg-meta">
        <span className="msg-author">You</span>
        <span className={`zone-chip${foreign ? ' zone-chip-foreign' : ''}`} title="The zone this message was sent from">
          {item.zone === null ? 'no browser zone' : `sent from ${item.zone}`}
        </span>
        {item.mode === 'steer' && <span className="badge badge-neutral">steer</span>}
        {stateLabel !== null && <span className="badge badge-neutral">{stateLabel}</span>}
        <Stamp time={item.time} zones={zones} />
      </div>
      <p className="msg-text">{item.text}</p>
    </article>
  )
}

function Item({ item, zones }: { item: ConversationItem; zones: Zones }) {
  switch (item.kind) {
    case 'user':
      return <UserMessage item={item} zones={zones} />
    case 'assistant':
      return (
        <article className="msg msg-assistant" data-testid="message-assistant" aria-label="Assistant message">
          <div className="msg-meta">
            <span className="msg-author">Assistant</span>
            <Stamp time={item.time} zones={zones} />
          </div>
          <p className="msg-text">{item.text}</p>
        </article>
      )
    case 'tool':
      return <ToolCall name={item.name} args={item.arguments} result={item.result} />
    case 'reading':
      return <ReadingCard card={item.card} text={item.text} browserZone={zones.browserZone} />
    case 'reminder-due':
      return <ReminderDueCard followUp={item.followUp} sessionZone={zones.sessionZone} browserZone={zones.browserZone} />
    case 'compaction':
      return (
        <div className="divider" role="separator" data-testid="compaction" aria-label="Earlier conversation summarised">
          <details>
            <summary>Earlier conversation summarised</summary>
            <p className="msg-text small">{item.summary}</p>
          </details>
        </div>
      )
    case 'plugin-note':
      return (
        <article className="note" data-testid="plugin-note" aria-label={`Message from ${item.plugin}`}>
          <span className="muted small">{item.plugin}</span>
          <p className="msg-text small">{item.text}</p>
        </article>
      )
    case 'turn-end':
      return (
        <p className={`turn-end turn-end-${item.reason}`} data-testid="turn-end" data-reason={item.reason}>
          {item.reason === 'aborted' && `Turn ${item.turn} cancelled.`}
          {item.reason === 'blocked' && `Turn ${item.turn} was blocked.`}
          {item.reason === 'error' && `Turn ${item.turn} failed${item.message === null ? '.' : `: ${item.message}`}`}
        </p>
      )
    default: {
      const unreachable: never = item
      return unreachable
    }
  }
}

/** The conversation: messages, tool calls, readings, reminders and dividers in log order, then waiting messages. */
export function Conversation({
  conversation,
  running,
  ...zones
}: { conversation: ConversationModel; running: boolean } & Zones) {
  const endRef = useRef<HTMLDivElement>(null)
  const paneRef = useRef<HTMLDivElement>(null)
  const stick = useRef(true)
  const size = conversation.items.length + conversation.queued.length

  useLayoutEffect(() => {
    if (stick.current) endRef.current?.scrollIntoView({ block: 'end' })
  }, [size, running])

  const onScroll = () => {
    const pane = paneRef.current
    if (pane === null) return
    stick.current = pane.scrollHeight - pane.scrollTop - pane.clientHeight < 80
  }

  const empty = size === 0
  return (
    <div className="conversation" ref={paneRef} onScroll={onScroll} role="log" aria-label="Conversation">
      {empty && <p className="empty">No messages yet. Ask for anything — for example “remind me in 10 minutes to stretch”.</p>}
      {conversation.items.map((item) => (
        <Item key={item.key} item={item} zones={zones} />
      ))}
      {conversation.queued.length > 0 && (
        <section className="queued" aria-label="Messages waiting to enter">
          <h3 className="queued-title">Waiting for the assistant</h3>
          {conversation.queued.map((item) => (
            <UserMessage key={item.key} item={item} zones={zones} />
          ))}
        </section>
      )}
      {running && (
        <p className="working" role="status">
          <span className="dot dot-running" aria-hidden="true" /> Assistant is working…
        </p>
      )}
      <div ref={endRef} />
    </div>
  )
}

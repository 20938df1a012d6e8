import { useQueryClient } from '@tanstack/react-query'
import { useVirtualizer, type VirtualItem, type Virtualizer } from '@tanstack/react-virtual'
import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react'
import { sameTimeZone } from '../../protocol/index.ts'
import { markSnoozed, noticeKey } from '../data/notices.ts'
import { loadOlderEvents } from '../data/queries.ts'
import { useCutText, type StreamingText } from '../data/streaming-text.ts'
import { queuedItems, type ConversationItem, type UserItem } from '../lib/conversation.ts'
import { formatFull, formatStamp, zonePlace } from '../lib/display/index.ts'
import { focusComposer } from '../lib/focus.ts'
import { onFollowConversation } from '../lib/follow.ts'
import { hasOlder, type SessionLog } from '../lib/session-log.ts'
import { ReadingChip, type ReadingContext } from './ReadingChip.tsx'
import { ReminderDueCard, type DueContext } from './ReminderDueCard.tsx'
import { ToolCall } from './ToolCall.tsx'

/** Everything a conversation row needs besides its item. */
type RowContext = DueContext &
  ReadingContext & {
    lastTurn: number | null
    running: boolean
    /** Sends `prompt` again for the failed turn `turn`. */
    onRetry: (prompt: string, turn: number) => void
    retrying: boolean
  }

type Extra =
  | { kind: 'queued-title'; key: string }
  | { kind: 'queued'; key: string; item: UserItem }
  | { kind: 'streaming'; key: string; text: StreamingText }
  | { kind: 'working'; key: string }

type Row = { kind: 'item'; key: string; item: ConversationItem } | Extra

const STICK_PX = 80

/** The pane's size from a ResizeObserver only: no synchronous layout read when the list mounts (the first rect is the window's). */
function observePaneRect(instance: Virtualizer<HTMLDivElement, Element>, onRect: (rect: { width: number; height: number }) => void): () => void {
  const element = instance.scrollElement
  if (element === null) return () => undefined
  const observer = new ResizeObserver(([entry]) => {
    if (entry !== undefined) onRect({ width: Math.round(entry.contentRect.width), height: Math.round(entry.contentRect.height) })
  })
  observer.observe(element)
  return () => observer.disconnect()
}

/** A row's height from its ResizeObserver entry; before the first one arrives, the cached or estimated height (never a layout read). */
function rowHeight(element: Element, entry: ResizeObserverEntry | undefined, instance: Virtualizer<HTMLDivElement, Element>): number {
  const box = entry?.borderBoxSize?.[0]
  if (box !== undefined) return Math.round(box.blockSize)
  const index = instance.indexFromElement(element)
  return instance.measurementsCache[index]?.size ?? instance.options.estimateSize(index)
}
const OLDER_PX = 600

/**
 * Whether a row's change of height moves the view with it, so what the person sees stays put. A row measured for the
 * first time grows upward when its top is above the view, and while the person scrolls up when a row already measured
 * and in view comes after it (the rows coming into view at the top are the unmeasured ones: growing down, they pushed
 * what was being read down the screen; a new row at the foot, an answer that finished streaming, still grows down); a
 * row measured again (a tool call opened, an answer streaming in) moves the view only when it is wholly above it.
 */
function keepsViewOnResize(item: VirtualItem, _delta: number, instance: Virtualizer<HTMLDivElement, Element>): boolean {
  const offset = instance.scrollOffset ?? 0
  if (instance.itemSizeCache.has(item.key)) return item.end <= offset && instance.scrollDirection !== 'backward'
  if (item.start < offset) return true
  return instance.scrollDirection === 'backward' && readRowAfter(item.index, offset, instance)
}

/** Whether a row after `index` that has been measured is in view (from `offset`): the row the person is reading. */
function readRowAfter(index: number, offset: number, instance: Virtualizer<HTMLDivElement, Element>): boolean {
  const bottom = offset + (instance.scrollRect?.height ?? 0)
  const rows = instance.measurementsCache
  for (let next = index + 1; next < rows.length && rows[next].start < bottom; next++) {
    if (rows[next].end > offset && instance.itemSizeCache.has(rows[next].key)) return true
  }
  return false
}

/** When a message was sent: on this browser's clock, or on the clock of `zone`, the place it is shown beside. */
function Stamp({ time, context, zone: named }: { time: number; context: RowContext; zone?: string }) {
  const zone = named ?? context.browserZone ?? 'UTC'
  return (
    <time className="stamp" dateTime={new Date(time).toISOString()} title={`${formatFull(time, zone, context.locale)} · ${zonePlace(zone)}`}>
      {formatStamp(time, zone, context.locale, context.now)}
    </time>
  )
}

/** Who sent a message: `You` when it came from this browser's zone, else the place it came from. */
function author(zone: string | null, browserZone: string | null): string {
  if (zone === null) return 'Sent without a browser zone'
  return browserZone !== null && sameTimeZone(zone, browserZone) ? 'You' : zonePlace(zone)
}

const UserMessage = memo(function UserMessage({ item, context }: { item: UserItem; context: RowContext }) {
  const name = author(item.zone, context.browserZone)
  const foreign = item.zone !== null && context.sessionZone !== null && !sameTimeZone(item.zone, context.sessionZone)
  return (
    <article
      className={`msg msg-user msg-${item.state}`}
      data-testid="message-user"
      data-client-zone={item.zone ?? ''}
      data-state={item.state}
      aria-label={name === 'You' ? 'Your message' : `Message from ${name}`}
    >
      <div className="msg-meta">
        <span className={`msg-author${foreign ? ' msg-author-foreign' : ''}`} title={item.zone ?? undefined}>
          {name}
        </span>
        {item.mode === 'steer' && <span className="badge badge-neutral">steer</span>}
        {item.state === 'queued' && <span className="badge badge-neutral">waiting</span>}
        {item.state === 'dropped' && <span className="badge badge-neutral">dropped</span>}
        {/* beside the place it came from, its time is that place's: "Tokyo 14:35" is never New York's 00:35; and this browser's
            after it, the clock the rest of the conversation is stamped on, so a reply does not seem hours away */}
        <Stamp time={item.time} context={context} {...(name !== 'You' && item.zone !== null ? { zone: item.zone } : {})} />
        {name !== 'You' && item.zone !== null && context.browserZone !== null && (
          <span className="stamp-here" data-testid="stamp-here">
            ({formatStamp(item.time, context.browserZone, context.locale, context.now)} here)
          </span>
        )}
      </div>
      <p className="msg-text" dir="auto">
        {item.text}
      </p>
    </article>
  )
})

function TurnEnd({ item, context }: { item: Extract<ConversationItem, { kind: 'turn-end' }>; context: RowContext }) {
  const interrupted = item.message !== null && item.message.startsWith('interrupted')
  const text =
    item.reason === 'aborted'
      ? 'Stopped.'
      : item.reason === 'blocked'
        ? 'This turn was blocked.'
        : interrupted
          ? 'This turn was interrupted when the server stopped.'
          : `This turn failed${item.message === null ? '.' : `: ${item.message}`}`
  // a failed or stopped turn (the last one) can be run again
  const canRetry = (item.reason === 'error' || item.reason === 'aborted') && item.prompt !== null && item.turn === context.lastTurn && !context.running
  // what the answer had said when it was cut off stays where it was being read, marked as not kept
  const cut = useCutText(context.sessionId, item.turn)
  return (
    <div className={`turn-end turn-end-${item.reason}`} data-testid="turn-end" data-reason={item.reason}>
      {cut !== null && (
        <article className="msg msg-assistant msg-cut" data-testid="message-cut" aria-label="Assistant, cut off">
          <div className="msg-meta">
            <span className="msg-author">Assistant</span>
            <span className="muted">cut off · not kept</span>
          </div>
          <p className="msg-text" dir="auto">
            {cut}
          </p>
        </article>
      )}
      <span>{text}</span>
      {canRetry && (
        <button
          type="button"
          className="button button-small"
          data-testid="retry-turn"
          disabled={context.offline || context.retrying}
          onClick={() => {
            if (item.prompt === null) return
            context.onRetry(item.prompt, item.turn)
            // the button goes away as the turn runs again: focus waits in the message box
            focusComposer()
          }}
        >
          {context.retrying ? 'Retrying…' : 'Retry'}
        </button>
      )}
    </div>
  )
}

const Item = memo(function Item({
  item,
  context,
  expanded,
  onToggle,
}: {
  item: ConversationItem
  context: RowContext
  expanded: boolean
  onToggle: (key: string) => void
}) {
  switch (item.kind) {
    case 'user':
      return <UserMessage item={item} context={context} />
    case 'assistant':
      return (
        <article className="msg msg-assistant" data-testid="message-assistant" aria-label="Assistant message">
          <div className="msg-meta">
            <span className="msg-author">Assistant</span>
            <Stamp time={item.time} context={context} />
          </div>
          <p className="msg-text" dir="auto">
            {item.text}
          </p>
        </article>
      )
    case 'tool':
      return <ToolCall name={item.name} args={item.arguments} result={item.result} outcome={item.outcome} />
    case 'reading':
      return (
        <ReadingChip
          card={item.card}
          text={item.text}
          startedByReminder={item.startedByReminder}
          expanded={expanded}
          onToggle={() => onToggle(item.key)}
          context={context}
        />
      )
    case 'reminder-due':
      return <ReminderDueCard followUp={item.followUp} context={context} />
    case 'compaction':
      return (
        <div className="divider" role="separator" data-testid="compaction" aria-label="Earlier conversation summarised">
          <details>
            <summary>Earlier conversation summarised</summary>
            <p className="msg-text small" dir="auto">
              {item.summary}
            </p>
          </details>
        </div>
      )
    case 'plugin-note':
      return (
        <article className="note" data-testid="plugin-note" aria-label={`Message from ${item.plugin}`}>
          <span className="muted small">{item.plugin}</span>
          <p className="msg-text small" dir="auto">
            {item.text}
          </p>
        </article>
      )
    case 'turn-end':
      return <TurnEnd item={item} context={context} />
    default: {
      const unreachable: never = item
      return unreachable
    }
  }
})

function ExtraRow({ row, context }: { row: Extra; context: RowContext }) {
  switch (row.kind) {
    case 'queued-title':
      return <h3 className="queued-title">Waiting for the assistant</h3>
    case 'queued':
      return <UserMessage item={row.item} context={context} />
    case 'streaming':
      return (
        <article className="msg msg-assistant msg-streaming" data-testid="message-streaming" aria-label="Assistant is writing" aria-busy="true">
          <div className="msg-meta">
            <span className="msg-author">Assistant</span>
            <span className="muted">writing…</span>
          </div>
          <p className="msg-text" dir="auto">
            {row.text.text}
          </p>
        </article>
      )
    case 'working':
      return (
        <p className="working">
          <span className="dot dot-running" aria-hidden="true" /> Assistant is working…
        </p>
      )
    default: {
      const unreachable: never = row
      return unreachable
    }
  }
}

function estimate(row: Row): number {
  if (row.kind !== 'item') return row.kind === 'queued' || row.kind === 'streaming' ? 76 : 30
  switch (row.item.kind) {
    case 'reading':
    case 'tool':
    case 'turn-end':
      return 40
    case 'reminder-due':
      return 110
    default:
      return 76
  }
}

function announcement(item: ConversationItem, browserZone: string | null): string | null {
  if (item.kind === 'assistant') return `Assistant: ${item.text}`
  if (item.kind === 'user') return `${author(item.zone, browserZone)}: ${item.text}`
  if (item.kind === 'reminder-due') return `Reminder due: ${item.followUp.reminders.map((r) => r.prompt).join(', ')}`
  return null
}

/**
 * The conversation, virtualised: only the rows in view are in the DOM. It opens at the bottom, follows new rows while
 * the person is at the bottom, loads the previous page when they scroll near the top (keeping their place), and
 * announces new messages — not readings — to assistive technology.
 */
export function Conversation({
  log,
  streaming,
  context,
}: {
  log: SessionLog
  streaming: StreamingText[]
  context: Omit<RowContext, 'lastTurn' | 'loggedZones' | 'snoozes'>
}) {
  const client = useQueryClient()
  const paneRef = useRef<HTMLDivElement>(null)
  const spacerRef = useRef<HTMLDivElement>(null)
  const stick = useRef(true)
  // the row to keep in place while an earlier page loads (and where the window started then); once the page is in,
  // it is held there while the rows around it are measured, until the person scrolls (`top`: where it was put)
  const anchor = useRef<{ key: string; delta: number; firstSeq: number; top: number | null } | null>(null)
  const [loadingOlder, setLoadingOlder] = useState(false)
  const [olderError, setOlderError] = useState(false)
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set())
  const [announced, setAnnounced] = useState('')
  const announcedSeq = useRef(log.lastSeq)
  // while the person reads further up: the last row they had seen at the bottom, and a way back there
  const [away, setAway] = useState(false)
  const seenSeq = useRef(log.lastSeq)

  const items = log.fold.items
  const queued = queuedItems(log.fold)
  const extras: Extra[] = []
  if (queued.length > 0) {
    extras.push({ kind: 'queued-title', key: 'queued-title' })
    for (const item of queued) extras.push({ kind: 'queued', key: `queued:${item.id}`, item })
  }
  for (const text of streaming) extras.push({ kind: 'streaming', key: `streaming:${text.turn}:${text.step}`, text })
  if (context.running && streaming.length === 0) extras.push({ kind: 'working', key: 'working' })
  const count = items.length + extras.length
  const rowsRef = useRef({ items, extras })
  rowsRef.current = { items, extras }
  const rowAt = useCallback((index: number): Row => {
    const { items: all, extras: tail } = rowsRef.current
    if (index < all.length) return { kind: 'item', key: all[index].key, item: all[index] }
    return tail[index - all.length]
  }, [])

  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => paneRef.current,
    estimateSize: (index) => estimate(rowAt(index)),
    getItemKey: useCallback((index: number) => rowAt(index).key, [rowAt]),
    overscan: 3,
    initialRect: { width: window.innerWidth, height: window.innerHeight },
    // it opens at the bottom: the first rows rendered are the last ones, not the first ones scrolled away at once
    initialOffset: () => {
      let total = 0
      for (let index = 0; index < count; index++) total += estimate(rowAt(index))
      return Math.max(0, total - window.innerHeight)
    },
    observeElementRect: observePaneRect,
    measureElement: rowHeight,
    paddingStart: 16,
    paddingEnd: 12,
  })
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = keepsViewOnResize
  const total = virtualizer.getTotalSize()

  // an occurrence the log shows snoozed (from another browser, or by the assistant) is snoozed here too, before the
  // paint: its card says until when, its toast closes, and neither offers to snooze it again; a snooze moved in the
  // log is marked again with its new time. What this view marked from the log is remembered, so a mark another tab
  // made from a newer log is not marked back to this view's older time before the move reaches it.
  const { snoozes } = log.fold
  const snoozedHere = context.snoozed
  const markedFromLog = useRef(new Map<string, string>())
  useLayoutEffect(() => {
    for (const { scheduleId, occurrenceAt, until, deleted } of snoozes) {
      if (deleted) continue
      const key = noticeKey(context.sessionId, scheduleId, occurrenceAt)
      if (snoozedHere[key] !== until && markedFromLog.current.get(key) !== until) markSnoozed(key, until)
      markedFromLog.current.set(key, until)
    }
  }, [snoozes, snoozedHere, context.sessionId])
  const rowNodes = useRef(new Map<number, HTMLDivElement>())

  useLayoutEffect(() => {
    for (const node of rowNodes.current.values()) virtualizer.measureElement(node)
  })

  useLayoutEffect(() => {
    const spacer = spacerRef.current
    if (spacer !== null) spacer.style.height = `${total}px`
    const pane = paneRef.current
    if (pane === null) return
    const pending = anchor.current
    // the place is kept once the earlier page is in (the window starts earlier), not on a render before it
    if (pending !== null && (pending.top !== null || log.firstSeq < pending.firstSeq)) {
      const index = rowsRef.current.items.findIndex((item) => item.key === pending.key)
      const start = index >= 0 ? virtualizer.measurementsCache[index]?.start : undefined
      if (start === undefined) anchor.current = null
      else {
        pane.scrollTop = start + pending.delta
        pending.top = pane.scrollTop
      }
    } else if (pending === null && stick.current) {
      pane.scrollTop = pane.scrollHeight
    }
    if (stick.current) seenSeq.current = log.lastSeq
  }, [total, count, log.version, log.firstSeq, log.lastSeq, virtualizer])

  useEffect(() => {
    const fresh: string[] = []
    if (log.lastSeq > announcedSeq.current) {
      for (let i = items.length - 1; i >= 0 && items[i].seq > announcedSeq.current; i--) {
        const text = announcement(items[i], context.browserZone)
        if (text !== null) fresh.unshift(text)
      }
      announcedSeq.current = log.lastSeq
    }
    if (fresh.length > 0) setAnnounced(fresh.slice(-2).join('. '))
  }, [log.lastSeq, items, context.browserZone])

  // the place to keep once the earlier page is in: the row at the top of the view now, from the measurements (the rows
  // rendered may still be those of an earlier scroll position, when the person jumped to the top at once)
  const holdTopRow = useCallback((firstSeq: number) => {
    const pane = paneRef.current
    const first = pane === null ? undefined : virtualizer.getVirtualItemForOffset(pane.scrollTop)
    if (first !== undefined && pane !== null && first.index < rowsRef.current.items.length) {
      anchor.current = { key: rowsRef.current.items[first.index].key, delta: pane.scrollTop - first.start, firstSeq, top: null }
    }
  }, [virtualizer])

  const loadOlder = useCallback(() => {
    if (loadingOlder || !hasOlder(log)) return
    holdTopRow(log.firstSeq)
    setLoadingOlder(true)
    setOlderError(false)
    loadOlderEvents(client, log.header?.id ?? context.sessionId)
      .then((earlier) => {
        // nothing came before the window: no render will take the place, and the view follows new rows again
        if (!earlier) anchor.current = null
      })
      .catch(() => {
        anchor.current = null
        setOlderError(true)
      })
      .finally(() => setLoadingOlder(false))
  }, [client, context.sessionId, loadingOlder, log, holdTopRow])

  // to the bottom, following new rows from there
  const toLatest = useCallback(() => {
    anchor.current = null
    stick.current = true
    seenSeq.current = log.lastSeq
    setAway(false)
    const pane = paneRef.current
    if (pane !== null) pane.scrollTop = pane.scrollHeight
  }, [log.lastSeq])
  const toLatestRef = useRef(toLatest)
  toLatestRef.current = toLatest

  // the person sent a message from here: the view goes to the bottom, where it is, and follows the answer
  useEffect(() => onFollowConversation(() => toLatestRef.current()), [])

  const onScroll = () => {
    const pane = paneRef.current
    if (pane === null) return
    // a scroll that is not the held place's own is the person's: the place is theirs again
    const held = anchor.current
    if (held !== null && held.top !== null && Math.abs(pane.scrollTop - held.top) > 1) anchor.current = null
    // scrolling on while the earlier page loads: the place kept is where the person is when it comes, not where they were
    else if (held !== null && held.top === null) holdTopRow(held.firstSeq)
    stick.current = pane.scrollHeight - pane.scrollTop - pane.clientHeight < STICK_PX
    if (stick.current) seenSeq.current = log.lastSeq
    setAway(!stick.current)
    if (pane.scrollTop < OLDER_PX && !olderError) loadOlder()
  }

  useEffect(() => {
    const pane = paneRef.current
    if (pane !== null && pane.scrollHeight <= pane.clientHeight && hasOlder(log) && !olderError) loadOlder()
  }, [log, loadOlder, olderError])

  // an earlier page that could not load while the server was unreachable loads when it is back, if still wanted
  const wasOffline = useRef(context.offline)
  useEffect(() => {
    const back = wasOffline.current && !context.offline
    wasOffline.current = context.offline
    if (!back || !olderError) return
    setOlderError(false)
    const pane = paneRef.current
    if (pane !== null && pane.scrollTop < OLDER_PX) loadOlder()
  }, [context.offline, olderError, loadOlder])

  const onToggle = useCallback((key: string) => {
    setExpanded((old) => {
      const next = new Set(old)
      if (next.has(key)) next.delete(key)
      else next.add(key)
      return next
    })
  }, [])

  const rowContext: RowContext = { ...context, lastTurn: log.fold.lastTurn, loggedZones: log.fold.zones, snoozes }
  const unseen = away ? unseenMessages(items, seenSeq.current) : 0
  const empty = count === 0 && !hasOlder(log)
  return (
    <div className="conversation" ref={paneRef} onScroll={onScroll} tabIndex={0} aria-label="Conversation" role="region">
      <div className="visually-hidden" aria-live="polite" aria-atomic="true" data-testid="announcer">
        {announced}
      </div>
      {(loadingOlder || olderError) && (
        <div className="older-bar">
          <div className="older" role="status">
            {olderError ? (
              <>
                Could not load earlier messages.{' '}
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => {
                    // the button goes as the page loads: focus stays in the conversation, not on <body>
                    paneRef.current?.focus({ preventScroll: true })
                    loadOlder()
                  }}
                >
                  Try again
                </button>
              </>
            ) : (
              'Loading earlier messages…'
            )}
          </div>
        </div>
      )}
      {empty && <p className="empty">No messages yet. Ask for anything — for example “remind me in 10 minutes to stretch”.</p>}
      <div className="virtual-spacer" ref={spacerRef}>
        {virtualizer.getVirtualItems().map((virtualRow) => {
          const row = rowAt(virtualRow.index)
          return (
            <VirtualRow key={virtualRow.key} index={virtualRow.index} seq={row.kind === 'item' ? row.item.seq : null} start={virtualRow.start} nodes={rowNodes.current}>
              {row.kind === 'item' ? (
                <Item item={row.item} context={rowContext} expanded={expanded.has(row.item.key)} onToggle={onToggle} />
              ) : (
                <ExtraRow row={row} context={rowContext} />
              )}
            </VirtualRow>
          )
        })}
      </div>
      {away && (
        <div className="latest-bar">
          <button
            type="button"
            className="button button-small latest"
            data-testid="jump-to-latest"
            onClick={() => {
              // the button goes at the bottom: focus stays in the conversation, not on <body>
              paneRef.current?.focus({ preventScroll: true })
              toLatest()
            }}
          >
            {unseen === 0 ? 'Jump to the latest' : unseen === 1 ? '1 new message' : `${unseen} new messages`} <span aria-hidden="true">↓</span>
          </button>
        </div>
      )}
    </div>
  )
}

/** The messages (the person's, the assistant's, reminders that came due) after `seq`, the last one seen at the bottom. */
function unseenMessages(items: readonly ConversationItem[], seq: number): number {
  let unseen = 0
  for (let i = items.length - 1; i >= 0 && items[i].seq > seq; i--) {
    const kind = items[i].kind
    if (kind === 'user' || kind === 'assistant' || kind === 'reminder-due') unseen++
  }
  return unseen
}

function VirtualRow({
  index,
  seq,
  start,
  nodes,
  children,
}: {
  index: number
  seq: number | null
  start: number
  nodes: Map<number, HTMLDivElement>
  children: React.ReactNode
}) {
  const ref = useRef<HTMLDivElement>(null)
  useLayoutEffect(() => {
    const node = ref.current
    if (node === null) return
    node.style.transform = `translateY(${start}px)`
  }, [start])
  useLayoutEffect(() => {
    const node = ref.current
    if (node === null) return
    nodes.set(index, node)
    return () => {
      if (nodes.get(index) === node) nodes.delete(index)
    }
  }, [index, nodes])
  return (
    <div className="virtual-row" data-index={index} data-seq={seq ?? undefined} ref={ref}>
      {children}
    </div>
  )
}

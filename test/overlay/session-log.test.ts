import { describe, expect, it } from 'vitest'
import type { SessionEvent, SessionHeader, UserMessage } from '../../src/protocol/events.ts'
import { buildConversation } from '../../src/overlay/lib/conversation.ts'
import { appendToLog, hasOlder, logFromPage, prependToLog } from '../../src/overlay/lib/session-log.ts'

const header: SessionHeader = { type: 'session', version: 1, id: 's1', createdAt: 1, timeZone: 'Asia/Shanghai' }
const message = (seq: number): SessionEvent => {
  const data: UserMessage = { id: `m${seq}`, role: 'user', content: [{ type: 'text', text: `hello ${seq}` }], source: { kind: 'user', rpcId: `r${seq}`, clientTimeZone: 'UTC' } }
  return { seq, time: 1_000 + seq, type: 'user/message', data, surfaceOp: 'append' }
}
const range = (from: number, to: number): SessionEvent[] => Array.from({ length: to - from + 1 }, (_, i) => message(from + i))

describe('logFromPage', () => {
  it('holds the last page and knows older events exist', () => {
    const log = logFromPage({ header, events: range(500, 999), firstSeq: 500, lastSeq: 999, eventCount: 1000 })
    expect([log.firstSeq, log.lastSeq, log.eventCount, log.events.length, hasOlder(log)]).toEqual([500, 999, 1000, 500, true])
    expect(log.fold.items).toHaveLength(500)
  })

  it('derives the window from the events when a server leaves the paging fields out', () => {
    const log = logFromPage({ header, events: range(0, 9) })
    expect([log.firstSeq, log.lastSeq, log.eventCount, hasOlder(log)]).toEqual([0, 9, 10, false])
  })

  it('holds an empty Session as an empty window at its end', () => {
    const log = logFromPage({ header, events: [], firstSeq: 0, lastSeq: -1, eventCount: 0 })
    expect([log.firstSeq, log.lastSeq, hasOlder(log)]).toEqual([0, -1, false])
  })
})

describe('appendToLog', () => {
  it('folds only the new events and ignores ones it holds', () => {
    const log = logFromPage({ header, events: range(0, 4) })
    const { log: next, added, gap } = appendToLog(log, [message(3), message(4), message(5), message(6)])
    expect(added.map((e) => e.seq)).toEqual([5, 6])
    expect(gap).toBe(false)
    expect([next.lastSeq, next.eventCount, next.version]).toEqual([6, 7, 1])
    expect(next.fold.items).toEqual(buildConversation(range(0, 6)).items)
  })

  it('stops at a gap and says so', () => {
    const log = logFromPage({ header, events: range(0, 4) })
    const { log: next, added, gap } = appendToLog(log, [message(5), message(7)])
    expect(added.map((e) => e.seq)).toEqual([5])
    expect([gap, next.lastSeq]).toEqual([true, 5])
    const again = appendToLog(next, [message(7)])
    expect([again.gap, again.added.length, again.log]).toEqual([true, 0, next])
  })

  it('answers the same log when nothing is new', () => {
    const log = logFromPage({ header, events: range(0, 4) })
    expect(appendToLog(log, [message(2)]).log).toBe(log)
  })
})

describe('prependToLog', () => {
  it('prepends the page just before the window and folds the conversation again from its start', () => {
    const log = logFromPage({ header, events: range(5, 9), firstSeq: 5, lastSeq: 9, eventCount: 10 })
    const older = prependToLog(log, range(0, 4))
    expect([older.firstSeq, older.lastSeq, hasOlder(older)]).toEqual([0, 9, false])
    expect(older.fold.items).toEqual(buildConversation(range(0, 9)).items)
  })

  it('ignores a page that does not end right before the window', () => {
    const log = logFromPage({ header, events: range(5, 9), firstSeq: 5, lastSeq: 9, eventCount: 10 })
    expect(prependToLog(log, range(0, 3))).toBe(log)
    expect(prependToLog(log, range(5, 9))).toBe(log)
  })
})

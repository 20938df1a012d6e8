import { QueryClient, type InfiniteData } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import type { GetSessionResponse, ListSessionsResponse, SessionSummary } from '../../src/protocol/index.ts'
import { queryKeys } from '../../src/overlay/data/keys.ts'
import { setSessionStatus } from '../../src/overlay/data/queries.ts'

const summary = (id: string, createdAt: number, eventCount = 3): SessionSummary => ({
  id,
  createdAt,
  timeZone: 'Europe/Berlin',
  status: 'idle',
  eventCount,
})

type List = InfiniteData<ListSessionsResponse, string | null>

function clientWith(session: SessionSummary, pages: ListSessionsResponse[]): QueryClient {
  const client = new QueryClient()
  client.setQueryData<GetSessionResponse>(queryKeys.session(session.id), { session })
  client.setQueryData<List>(queryKeys.sessions(), { pages, pageParams: pages.map((_, i) => (i === 0 ? null : `c${i}`)) })
  return client
}

describe('setSessionStatus', () => {
  it('leaves the cached summary and every list page as they are when the status is already held', () => {
    const client = clientWith(summary('b', 2), [{ sessions: [summary('b', 2)], nextCursor: null }])
    const session = client.getQueryData(queryKeys.session('b'))
    const list = client.getQueryData(queryKeys.sessions())
    setSessionStatus(client, 'b', 'idle')
    expect(client.getQueryData(queryKeys.session('b'))).toBe(session)
    expect(client.getQueryData(queryKeys.sessions())).toBe(list)
  })

  it('patches only the status, in the summary and on the page that lists the Session, keeping other pages and the event count', () => {
    const first = { sessions: [summary('c', 3)], nextCursor: 'c1' }
    const second = { sessions: [summary('b', 2, 7), summary('a', 1)], nextCursor: null }
    const client = clientWith(summary('b', 2, 7), [first, second])
    setSessionStatus(client, 'b', 'running')
    expect(client.getQueryData<GetSessionResponse>(queryKeys.session('b'))).toEqual({ session: { ...summary('b', 2, 7), status: 'running' } })
    const list = client.getQueryData<List>(queryKeys.sessions())
    expect(list?.pages[0]).toBe(first)
    expect(list?.pages[1]).toEqual({ sessions: [{ ...summary('b', 2, 7), status: 'running' }, summary('a', 1)], nextCursor: null })
    expect(list?.pageParams).toEqual([null, 'c1'])
  })

  it('does nothing for a Session that is neither cached nor listed', () => {
    const client = clientWith(summary('b', 2), [{ sessions: [summary('b', 2)], nextCursor: null }])
    const list = client.getQueryData(queryKeys.sessions())
    setSessionStatus(client, 'z', 'running')
    expect(client.getQueryData(queryKeys.session('z'))).toBeUndefined()
    expect(client.getQueryData(queryKeys.sessions())).toBe(list)
  })
})

import { QueryClient } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import type { ListSchedulesResponse, ScheduleView } from '../../src/protocol/index.ts'
import { queryKeys } from '../../src/overlay/data/keys.ts'
import { settleDueSchedule } from '../../src/overlay/data/queries.ts'

const common = {
  state: 'scheduled',
  deliveryMode: 'session-local',
  timeZone: 'Europe/Berlin',
  deliveries: 0,
  lastDeliveredAt: null,
  missed: 0,
} as const

const oneOff: ScheduleView = {
  ...common,
  id: 'schedule-1',
  kind: 'after',
  prompt: 'Take the bread out',
  afterSeconds: 4,
  scheduledAt: '2026-12-01T08:16:00.000Z',
  scheduledAtLocal: '2026-12-01T09:16:00+01:00[Europe/Berlin]',
  upcoming: ['2026-12-01T08:16:00.000Z'],
}

const series: ScheduleView = {
  ...common,
  id: 'schedule-2',
  kind: 'every',
  prompt: 'Stretch',
  everySeconds: 3600,
  scheduledAt: '2026-12-01T08:16:00.000Z',
  scheduledAtLocal: '2026-12-01T09:16:00+01:00[Europe/Berlin]',
  upcoming: ['2026-12-01T08:16:00.000Z', '2026-12-01T09:16:00.000Z'],
}

function clientHolding(sessionId: string, schedules: ScheduleView[]): QueryClient {
  const client = new QueryClient()
  client.setQueryData<ListSchedulesResponse>(queryKeys.schedules(sessionId), { schedules })
  return client
}

const held = (client: QueryClient, sessionId: string) => client.getQueryData<ListSchedulesResponse>(queryKeys.schedules(sessionId))
const invalidated = (client: QueryClient, sessionId: string) => client.getQueryState(queryKeys.schedules(sessionId))?.isInvalidated

describe('settleDueSchedule', () => {
  it('takes a one-off reminder that came due out of its Session’s held list at once, and marks the list for a refetch', () => {
    const client = clientHolding('a', [oneOff, series])
    settleDueSchedule(client, 'a', 'schedule-1')
    expect(held(client, 'a')).toEqual({ schedules: [series] })
    expect(invalidated(client, 'a')).toBe(true)
  })

  it('keeps a recurring reminder that came due (its next occurrence is the server’s to say) and marks the list for a refetch', () => {
    const client = clientHolding('a', [oneOff, series])
    const before = held(client, 'a')
    settleDueSchedule(client, 'a', 'schedule-2')
    expect(held(client, 'a')).toBe(before)
    expect(invalidated(client, 'a')).toBe(true)
  })

  it('touches only the Session the reminder belongs to, and holds nothing for a Session it never loaded', () => {
    const client = clientHolding('b', [{ ...oneOff }])
    settleDueSchedule(client, 'a', 'schedule-1')
    expect(held(client, 'b')).toEqual({ schedules: [oneOff] })
    expect(invalidated(client, 'b')).toBe(false)
    expect(held(client, 'a')).toBeUndefined()
  })
})

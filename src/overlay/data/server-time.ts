import { useQuery } from '@tanstack/react-query'
import type { TimeResponse } from '../../protocol/index.ts'
import { clockSkewMs, clockWarnings, MAX_CLOCK_SKEW_MS, type TimeProbe } from '../lib/clock-check.ts'
import { noteDeviceClock } from '../lib/trusted-clock.ts'
import { offsetMinutes } from '../lib/display/index.ts'
import { ApiError, apiRequest } from './http.ts'
import { queryKeys } from './keys.ts'


async function probe(zone: string | null, signal: AbortSignal): Promise<TimeProbe | null> {
  const sentAt = Date.now()
  let answer: TimeResponse
  try {
    answer = await apiRequest<TimeResponse>(zone === null ? '/api/time' : `/api/time?zone=${encodeURIComponent(zone)}`, { signal })
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null
    throw error
  }
  const receivedAt = Date.now()
  const zones = Object.values(answer.timeZones ?? {})
  const serverOffset = zone === null ? undefined : (answer.timeZones?.[zone] ?? (zones.length === 1 ? zones[0] : undefined))
  const found: TimeProbe = {
    sentAt,
    receivedAt,
    serverNow: answer.now,
    zone,
    browserOffset: zone === null ? null : offsetMinutes(zone, receivedAt),
    serverOffset: typeof serverOffset === 'number' ? serverOffset : null,
  }
  noteDeviceClock(clockSkewMs(found), MAX_CLOCK_SKEW_MS)
  return found
}

/** The device clock check (SPEC 9): compares this device's clock and tzdata with the server's; answers the warnings to show. */
export function useClockWarnings(browserZone: string | null): string[] {
  const query = useQuery({
    queryKey: queryKeys.serverTime(browserZone),
    queryFn: ({ signal }) => probe(browserZone, signal),
    staleTime: 5 * 60_000,
    refetchInterval: 10 * 60_000,
    retry: false,
  })
  return query.data === undefined || query.data === null ? [] : clockWarnings(query.data)
}

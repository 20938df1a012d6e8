import { canonicalTimeZone } from '../protocol/index.ts'

/** The time-context config as a composition root passes it (SPEC 5.1). */
export type TimeContextConfigInput = { timeZone?: string; refreshIntervalMs?: number }

/** The validated time-context config: the headerless fallback zone and the interval (0 = every batch). */
export type TimeContextConfig = { fallbackZone: string; refreshIntervalMs: number }

/** Effects config resolution needs; `systemTimeZone` defaults to the process zone (honours `TZ`). */
export type ResolveConfigOptions = { systemTimeZone?: () => unknown }

/** The process zone as this runtime's Intl reports it. */
export function processTimeZone(): unknown {
  return Intl.DateTimeFormat().resolvedOptions().timeZone
}

function describe(value: unknown): string {
  let json: string | undefined
  try {
    json = JSON.stringify(value)
  } catch {
    json = undefined
  }
  return json ?? String(value)
}

/** Validates a raw time-context config at plugin load, throwing the SPEC 5.1 errors. */
export function resolveTimeContextConfig(raw: unknown, options: ResolveConfigOptions = {}): TimeContextConfig {
  if (raw === undefined) raw = {}
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new TypeError(`time-context: config must be an object, got ${describe(raw)}`)
  }
  const { timeZone, refreshIntervalMs } = raw as Record<string, unknown>
  if (refreshIntervalMs !== undefined && !(Number.isSafeInteger(refreshIntervalMs) && (refreshIntervalMs as number) >= 0)) {
    throw new TypeError(`time-context: refreshIntervalMs must be a non-negative safe integer, got ${String(refreshIntervalMs)}`)
  }
  const interval = refreshIntervalMs === undefined ? 0 : (refreshIntervalMs as number)
  if (timeZone !== undefined) {
    const zone = canonicalTimeZone(timeZone)
    if (zone === null) throw new Error(`time-context: invalid IANA timeZone ${describe(timeZone)}`)
    return { fallbackZone: zone, refreshIntervalMs: interval }
  }
  let zone: string | null
  try {
    zone = canonicalTimeZone((options.systemTimeZone ?? processTimeZone)())
  } catch (cause) {
    throw new Error('time-context: failed to resolve the system time zone', { cause })
  }
  if (zone === null) throw new Error('time-context: failed to resolve the system time zone')
  return { fallbackZone: zone, refreshIntervalMs: interval }
}

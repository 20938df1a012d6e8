import { durationWords } from './display/index.ts'
import { formatOffset } from './display/index.ts'
import { zonePlace } from './display/index.ts'

/** The largest difference between the device clock and the server's that goes unmentioned (SPEC 9). */
export const MAX_CLOCK_SKEW_MS = 2 * 60_000

/** One round trip to `GET /api/time`: when it was sent and answered on this device's clock, and what the server said. */
export type TimeProbe = { sentAt: number; receivedAt: number; serverNow: number; zone: string | null; browserOffset: number | null; serverOffset: number | null }

/** How far the device clock runs ahead of the server's (negative: behind), taking the server's reading as the round trip's midpoint. */
export function clockSkewMs(probe: TimeProbe): number {
  return (probe.sentAt + probe.receivedAt) / 2 - probe.serverNow
}

function minutesWords(ms: number): string {
  return durationWords(Math.max(60, Math.round(ms / 60_000) * 60))
}

/** The plain warnings a probe calls for: a device clock more than 2 min off, or tzdata that disagrees with the server's. */
export function clockWarnings(probe: TimeProbe): string[] {
  const warnings: string[] = []
  const skew = clockSkewMs(probe)
  if (Math.abs(skew) > MAX_CLOCK_SKEW_MS) {
    warnings.push(`Your device clock is ${minutesWords(Math.abs(skew))} ${skew > 0 ? 'ahead of' : 'behind'} the server. Reminders and times shown here depend on it.`)
  }
  if (probe.zone !== null && probe.browserOffset !== null && probe.serverOffset !== null && probe.browserOffset !== probe.serverOffset) {
    warnings.push(
      `This browser puts ${zonePlace(probe.zone)} at ${formatOffset(probe.browserOffset)}, the server at ${formatOffset(probe.serverOffset)}: one of them has outdated time zone data, so local times may be off.`,
    )
  }
  return warnings
}

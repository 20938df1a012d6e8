import type { SessionDescription } from '../host/index.ts'
import type { SessionSummary } from '../protocol/index.ts'

/** The API's description of a session (SPEC 8 `session`). */
export function summarize(description: SessionDescription): SessionSummary {
  const { header, title } = description
  return {
    id: header.id,
    createdAt: header.createdAt,
    timeZone: header.timeZone ?? null,
    status: description.status,
    ...(title === null ? {} : { title }),
    eventCount: description.eventCount,
  }
}

import { formatWhen } from './display/index.ts'

/**
 * The name a Session is shown by: its title (a rename, else the first words of its first message), else when it was
 * started, in this browser's words on the Session's clock (`Started today 12:08` for a Berlin Session, whichever zone the
 * browser is in: the name is shown beside the Session's place). `fallbackZone` stands in for a Session with no zone.
 */
export function sessionName(
  session: { id: string; createdAt: number; title?: string; timeZone?: string | null },
  locale: string,
  fallbackZone: string | null,
  nowMs: number,
): string {
  if (isTitled(session)) return session.title
  const when = formatWhen(session.createdAt, session.timeZone ?? fallbackZone ?? 'UTC', locale, nowMs)
  // words of a right-to-left locale are isolated, so they do not carry the English around them into their order
  return `Started ${RIGHT_TO_LEFT.test(when) ? `\u2068${when}\u2069` : when}`
}

/** Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms). */
const RIGHT_TO_LEFT = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/

/** Whether a Session has a title of its own (a rename, or the first words of its first message); else its name is when it was started. */
export function isTitled(session: { title?: string }): session is { title: string } {
  return session.title !== undefined && session.title.trim().length > 0
}

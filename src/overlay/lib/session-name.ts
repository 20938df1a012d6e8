import { formatWhen } from './display/index.ts'

/** The name a Session is shown by: its title (a rename, else the first words of its first message), else when it was started, in this browser's words. */
export function sessionName(session: { id: string; createdAt: number; title?: string }, locale: string, zone: string | null, nowMs: number): string {
  if (isTitled(session)) return session.title
  return `Started ${formatWhen(session.createdAt, zone ?? 'UTC', locale, nowMs)}`
}

/** Whether a Session has a title of its own (a rename, or the first words of its first message); else its name is when it was started. */
export function isTitled(session: { title?: string }): session is { title: string } {
  return session.title !== undefined && session.title.trim().length > 0
}

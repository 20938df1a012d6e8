import { formatWhen } from './display/index.ts'

/** The name a Session is shown by: its title (a rename, else the first words of its first message), else when it was started, in this browser's words. */
export function sessionName(session: { id: string; createdAt: number; title?: string }, locale: string, zone: string | null, nowMs: number): string {
  if (session.title !== undefined && session.title.trim().length > 0) return session.title
  return `Started ${formatWhen(session.createdAt, zone ?? 'UTC', locale, nowMs)}`
}

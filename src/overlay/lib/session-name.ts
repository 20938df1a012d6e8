/** Short display name of a Session: its title, or `Session <first 8 id chars>`. */
export function sessionName(session: { id: string; title?: string }): string {
  return session.title !== undefined && session.title.trim().length > 0 ? session.title : `Session ${session.id.slice(0, 8)}`
}

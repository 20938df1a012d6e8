/**
 * A title as its text column holds it: PostgreSQL's text cannot hold U+0000, which the routes refuse but a log
 * imported from files may have; it is kept as U+FFFD there (the log itself, JSON, keeps it escaped and whole).
 */
export function columnTitle(title: string | null): string | null {
  return title === null || !title.includes('\u0000') ? title : title.replaceAll('\u0000', '\uFFFD')
}

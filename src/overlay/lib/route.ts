import { SESSION_ID_PATTERN } from '../../protocol/index.ts'
const PATH_PATTERN = /^\/s\/([^/]+)\/?$/

/** The id of the Session named by a URL (`/s/<id>`, or `?session=<id>` as an alias), or null. */
export function sessionIdFromUrl(pathname: string, search: string): string | null {
  const match = PATH_PATTERN.exec(pathname)
  if (match !== null) {
    let id: string
    try {
      id = decodeURIComponent(match[1])
    } catch {
      return null
    }
    return SESSION_ID_PATTERN.test(id) ? id : null
  }
  const fromQuery = new URLSearchParams(search).get('session')
  return fromQuery !== null && SESSION_ID_PATTERN.test(fromQuery) ? fromQuery : null
}

/** The overlay path that opens a Session. */
export function sessionPath(id: string): string {
  return `/s/${encodeURIComponent(id)}`
}

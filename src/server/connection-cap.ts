import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** Cap used when the descriptor limit cannot be read. */
const FALLBACK_CAP = 1024
/** Upper bound of the cap, whatever the descriptor limit. */
const MAX_CAP = 16_384
/**
 * Descriptors kept free of connections (session files, the model's HTTP, logs, the runtime): half the limit, at most
 * this, and at least what other files need with a few sessions open.
 */
const MAX_RESERVE = 1024
/** Sessions held open at the least, within the reserve, however small the limit. */
const MIN_OPEN_SESSIONS = 8

function parseLimit(value: string | undefined): number | null {
  if (value === undefined || value === 'unlimited') return null
  const n = Number(value)
  return Number.isSafeInteger(n) && n > 0 ? n : null
}

/** The soft RLIMIT_NOFILE of this process, from `/proc/self/limits` or else `ulimit -n`; null when unknown or unlimited. */
export function descriptorLimit(): number | null {
  try {
    const match = /^Max open files\s+(\d+|unlimited)\s/m.exec(readFileSync('/proc/self/limits', 'utf8'))
    if (match) return parseLimit(match[1])
  } catch {
    // not Linux: ask the shell, which inherits this process's limit
  }
  try {
    return parseLimit(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim())
  } catch {
    return null
  }
}

// half, under a small limit too (a floor of 64 left a limit of 64 one connection, and a tab holds two streams), but
// room for the other files and a few sessions (without it a limit of 64 left one session open, and overcommitted)
function reserveOf(limit: number): number {
  return Math.min(MAX_RESERVE, Math.max(OTHER_FILES + MIN_OPEN_SESSIONS, Math.ceil(limit / 2)))
}

/** The most connections to hold open under a descriptor limit: below it, leaving room for everything else the server opens (SPEC 12.2). */
export function connectionCap(limit: number | null): number {
  if (limit === null) return FALLBACK_CAP
  return Math.max(1, Math.min(MAX_CAP, limit - reserveOf(limit)))
}

/** Descriptors of the reserve left for other files (the catalog, pages read from closed sessions, the runtime). */
const OTHER_FILES = 32

/**
 * The most sessions to hold open under a descriptor limit (each holds its file): at most `preferred`
 * (SPEC 11: 256), and within the part of the reserve that connections never take.
 */
export function openSessionCap(limit: number | null, preferred: number): number {
  if (limit === null) return preferred
  return Math.max(1, Math.min(preferred, reserveOf(limit) - OTHER_FILES))
}

type Tracked = { request: IncomingMessage | null; response: ServerResponse | null }

function evictable(tracked: Tracked): boolean {
  const { request, response } = tracked
  return request === null || response === null || response.writableFinished || !request.complete
}

/**
 * Holds at most `cap` connections open. One more evicts the connection that has waited longest
 * without a complete request being answered (a slow or idle client); when every connection is busy
 * answering one, the newcomer is refused. Connections are aged by their latest request.
 */
export function capConnections(server: Server, cap: number): void {
  const open = new Map<Socket, Tracked>()
  server.on('connection', (socket: Socket) => {
    if (open.size >= cap) {
      let victim: Socket | null = null
      for (const [candidate, tracked] of open) {
        if (evictable(tracked)) {
          victim = candidate
          break
        }
      }
      if (victim === null) {
        socket.destroy()
        return
      }
      open.delete(victim)
      victim.destroy()
    }
    open.set(socket, { request: null, response: null })
    socket.once('close', () => open.delete(socket))
  })
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket
    if (!open.has(socket)) return
    open.delete(socket)
    open.set(socket, { request, response })
  })
}

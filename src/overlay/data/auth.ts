import { useSyncExternalStore } from 'react'

const STORAGE_KEY = 'schedule-web:access-token'
const PARAM = 'access_token'

let token: string | null = null
let loaded = false

function load(): string | null {
  if (typeof window === 'undefined') return null
  const url = new URL(window.location.href)
  const fromUrl = url.searchParams.get(PARAM)
  if (fromUrl !== null && fromUrl.length > 0) {
    try {
      window.sessionStorage.setItem(STORAGE_KEY, fromUrl)
    } catch {
      // storage can be unavailable (private mode); the token still lives in memory
    }
    url.searchParams.delete(PARAM)
    window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash)
    return fromUrl
  }
  try {
    return window.sessionStorage.getItem(STORAGE_KEY)
  } catch {
    return null
  }
}

/** The bearer token for a server bound beyond loopback (opened once as `?access_token=`), or null. */
export function accessToken(): string | null {
  if (!loaded) {
    token = load()
    loaded = true
  }
  return token
}

/** Adds the access token to a URL for transports that cannot send headers (EventSource). */
export function withAccessToken(path: string): string {
  const value = accessToken()
  if (value === null) return path
  return `${path}${path.includes('?') ? '&' : '?'}${PARAM}=${encodeURIComponent(value)}`
}

const listeners = new Set<() => void>()
let refused = false

/** Records that the server refused this tab's token, or its lack of one (401): the overlay asks to sign in. */
export function reportUnauthorized(): void {
  if (refused) return
  refused = true
  for (const listener of listeners) listener()
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** True once the server has refused this tab's requests for want of a valid access token. */
export function useSignInNeeded(): boolean {
  return useSyncExternalStore(subscribe, () => refused)
}

/** Keeps `value` as this tab's access token and starts the overlay again with it. */
export function signIn(value: string): void {
  try {
    window.sessionStorage.setItem(STORAGE_KEY, value)
  } catch {
    // without storage the token cannot outlive the reload: a link with ?access_token= still works
  }
  window.location.reload()
}

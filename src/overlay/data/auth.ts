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

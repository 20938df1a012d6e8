import { useSyncExternalStore } from 'react'
import { sampleBrowserZone } from '../lib/browser-zone.ts'

const RESAMPLE_MS = 30_000

function subscribe(onChange: () => void): () => void {
  const timer = setInterval(onChange, RESAMPLE_MS)
  window.addEventListener('focus', onChange)
  document.addEventListener('visibilitychange', onChange)
  return () => {
    clearInterval(timer)
    window.removeEventListener('focus', onChange)
    document.removeEventListener('visibilitychange', onChange)
  }
}

/** This browser's zone for display, re-sampled on focus and periodically (sends sample it afresh themselves). */
export function useBrowserZone(): string | null {
  return useSyncExternalStore(subscribe, sampleBrowserZone)
}

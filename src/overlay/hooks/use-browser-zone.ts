import { useSyncExternalStore } from 'react'
import { sampleBrowserZone } from '../lib/browser-zone.ts'

const RESAMPLE_MS = 30_000
let current: string | null | undefined

function snapshot(): string | null {
  if (current === undefined) current = sampleBrowserZone()
  return current
}

function subscribe(onChange: () => void): () => void {
  const resample = () => {
    const next = sampleBrowserZone()
    if (next === current) return
    current = next
    onChange()
  }
  const timer = setInterval(resample, RESAMPLE_MS)
  window.addEventListener('focus', resample)
  document.addEventListener('visibilitychange', resample)
  return () => {
    clearInterval(timer)
    window.removeEventListener('focus', resample)
    document.removeEventListener('visibilitychange', resample)
  }
}

/** This browser's zone for display, re-sampled on focus, on visibility changes and periodically (sends sample it afresh themselves). */
export function useBrowserZone(): string | null {
  return useSyncExternalStore(subscribe, snapshot)
}

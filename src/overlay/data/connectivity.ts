import { onlineManager } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'

/** How long the server must have been unreachable before the overlay says it is offline (SPEC 9). */
export const OFFLINE_AFTER_MS = 2_000

const listeners = new Set<() => void>()
/** The stream has not reached the server for more than 2 s. */
let unreachable = false
/** The browser says this device has no network (it knows at once; sending would only wait). */
let deviceOffline = typeof navigator !== 'undefined' && navigator.onLine === false
let timer: ReturnType<typeof setTimeout> | undefined

/** Why the overlay is offline: this device has no network, or the server cannot be reached; null when online. */
export type OfflineCause = 'device' | 'server' | null

let cause: OfflineCause = deviceOffline ? 'device' : null

function publish(): void {
  const next: OfflineCause = deviceOffline ? 'device' : unreachable ? 'server' : null
  if (cause === next) return
  const wasOffline = cause !== null
  cause = next
  if (wasOffline !== (next !== null)) onlineManager.setOnline(next === null)
  for (const listener of listeners) listener()
}

/**
 * Records what a stream just observed: whether the server answered at all. The latest observation wins; the overlay
 * goes offline once the server has stayed unreachable for more than 2 s, and online at the first answer.
 */
export function reportReachable(reachable: boolean): void {
  if (reachable) {
    clearTimeout(timer)
    timer = undefined
    unreachable = false
    publish()
  } else if (timer === undefined && !unreachable) {
    timer = setTimeout(() => {
      timer = undefined
      unreachable = true
      publish()
    }, OFFLINE_AFTER_MS)
  }
}

if (typeof window !== 'undefined') {
  // the overlay's own state is the only one TanStack Query goes by (its default listens to these events alone)
  onlineManager.setEventListener(() => undefined)
  onlineManager.setOnline(cause === null)
  const onDevice = () => {
    deviceOffline = navigator.onLine === false
    publish()
  }
  window.addEventListener('online', onDevice)
  window.addEventListener('offline', onDevice)
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** True while the device has no network, or once the server has been unreachable for more than 2 s; false again as soon as both are back. */
export function useOffline(): boolean {
  return useSyncExternalStore(subscribe, () => cause !== null)
}

/** Why the overlay is offline, or null. */
export function useOfflineCause(): OfflineCause {
  return useSyncExternalStore(subscribe, () => cause)
}

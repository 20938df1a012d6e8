import { onlineManager } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'

/** How long the server must have been unreachable before the overlay says it is offline (SPEC 9). */
export const OFFLINE_AFTER_MS = 2_000

const listeners = new Set<() => void>()
let offline = false
let timer: ReturnType<typeof setTimeout> | undefined

function publish(next: boolean): void {
  if (offline === next) return
  offline = next
  onlineManager.setOnline(!next)
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
    publish(false)
  } else if (timer === undefined && !offline) {
    timer = setTimeout(() => {
      timer = undefined
      publish(true)
    }, OFFLINE_AFTER_MS)
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** True once the server has been unreachable for more than 2 s; false again as soon as it answers. */
export function useOffline(): boolean {
  return useSyncExternalStore(subscribe, () => offline)
}

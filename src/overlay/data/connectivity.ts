import { onlineManager } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'

/** How long every stream must have been unable to reach the server before the overlay says it is offline (SPEC 9). */
export const OFFLINE_AFTER_MS = 2_000

type State = { offline: boolean }

const reports = new Map<symbol, boolean>()
const listeners = new Set<() => void>()
let state: State = { offline: false }
let timer: ReturnType<typeof setTimeout> | undefined

function publish(offline: boolean): void {
  if (state.offline === offline) return
  state = { offline }
  onlineManager.setOnline(!offline)
  for (const listener of listeners) listener()
}

function evaluate(): void {
  const values = [...reports.values()]
  const reachable = values.length === 0 || values.some(Boolean)
  if (reachable) {
    clearTimeout(timer)
    timer = undefined
    publish(false)
  } else if (timer === undefined && !state.offline) {
    timer = setTimeout(() => {
      timer = undefined
      if (![...reports.values()].some(Boolean) && reports.size > 0) publish(true)
    }, OFFLINE_AFTER_MS)
  }
}

/** A stream's line to the connectivity state: it reports whether it reaches the server, and leaves when it closes. */
export function connectivityReporter(): { report(reachable: boolean): void; leave(): void } {
  const key = Symbol('stream')
  return {
    report(reachable) {
      reports.set(key, reachable)
      evaluate()
    },
    leave() {
      reports.delete(key)
      evaluate()
    },
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** True once no stream has reached the server for more than 2 s; false again as soon as one does. */
export function useOffline(): boolean {
  return useSyncExternalStore(subscribe, () => state.offline)
}

import type { SessionFeed } from '../../src/host/index.ts'

/** Counts the readers subscribed to a feed's events (streams subscribe while they run); returns the live count. */
export function countSubscriptions(feed: SessionFeed): () => number {
  let count = 0
  const subscribe = feed.onEvents.bind(feed)
  feed.onEvents = (listener) => {
    count++
    const unsubscribe = subscribe(listener)
    return () => {
      count--
      unsubscribe()
    }
  }
  return () => count
}

const listeners = new Set<() => void>()

/** Asks the open conversation to go to its newest rows and follow them: the person just sent a message from here. */
export function followConversation(): void {
  for (const listener of listeners) listener()
}

/** The conversation's side of `followConversation`; returns the unsubscribe. */
export function onFollowConversation(listener: () => void): () => void {
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
  }
}

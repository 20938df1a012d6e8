/** True when this browser can show system notifications. */
export function notificationsSupported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window
}

/** Asks for notification permission, only while the person has not decided yet (called from their own action, never on load). */
export function askNotificationPermissionOnce(): void {
  if (!notificationsSupported() || Notification.permission !== 'default') return
  void Notification.requestPermission().catch(() => undefined)
}

/** Raises a system notification for a due reminder when permitted and the page is not in front; clicking it opens the Session. */
export function notifyDue(title: string, body: string, tag: string, onClick: () => void): void {
  if (!notificationsSupported() || Notification.permission !== 'granted') return
  if (document.visibilityState === 'visible' && document.hasFocus()) return
  try {
    const notification = new Notification(title, { body, tag })
    notification.onclick = () => {
      window.focus()
      onClick()
      notification.close()
    }
  } catch {
    // some browsers only allow notifications from a service worker; the toast and the tab badge still show
  }
}

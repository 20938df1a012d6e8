/** The id of the message box, target of the skip link. */
export const COMPOSER_ID = 'composer'

let pending = false

/** Moves focus to the message box now, or as soon as it appears (after New session opens its view). */
export function focusComposer(): void {
  const box = document.getElementById(COMPOSER_ID)
  if (box !== null) {
    box.focus()
    pending = false
  } else {
    pending = true
  }
}

/** Moves focus to the message box of the Session being opened, once it appears (the one on screen now is about to go). */
export function focusNextComposer(): void {
  pending = true
}

/** Called by the message box when it mounts: takes a focus request made before it existed. */
export function takePendingComposerFocus(box: HTMLElement): void {
  if (!pending) return
  pending = false
  box.focus()
}

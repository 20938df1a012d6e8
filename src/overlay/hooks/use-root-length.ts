import { useCallback } from 'react'

/**
 * Keeps a length custom property (`name`, in px) on the document root at a measure of an element's box while it is
 * shown, so fixed layers (toasts, the reminders drawer) can stand clear of it; returns the ref to put on the element.
 * `measure` is a function made once, not per render. `alsoWatch` names an ancestor whose size changes can move the
 * element without resizing it (a sidebar growing above it shrinks that ancestor).
 *
 * The ref sets the observer up as the element is attached and takes it down as it goes, so the element's owner does
 * not render again for it; the observer's first call comes once the element is laid out and before it is painted,
 * so nothing forces a layout in the middle of a render.
 */
export function useRootLength<T extends HTMLElement>(name: string, measure: (box: DOMRect) => number, alsoWatch?: string): (element: T | null) => (() => void) | undefined {
  return useCallback(
    (element: T | null) => {
      if (element === null || typeof ResizeObserver === 'undefined') return undefined
      const root = document.documentElement
      const observer = new ResizeObserver(() => root.style.setProperty(name, `${Math.ceil(measure(element.getBoundingClientRect()))}px`))
      observer.observe(element)
      const ancestor = alsoWatch === undefined ? null : element.closest(alsoWatch)
      if (ancestor !== null) observer.observe(ancestor)
      return () => {
        observer.disconnect()
        root.style.removeProperty(name)
      }
    },
    [name, measure, alsoWatch],
  )
}

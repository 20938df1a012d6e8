import { useEffect, useState } from 'react'

/**
 * Keeps a length custom property (`name`, in px) on the document root at a measure of an element's box while it is
 * shown, so fixed layers (toasts, the reminders drawer) can stand clear of it; returns the ref to put on the element.
 * `measure` is a function made once, not per render. `alsoWatch` names an ancestor whose size changes can move the
 * element without resizing it (a sidebar growing above it shrinks that ancestor).
 */
export function useRootLength<T extends HTMLElement>(name: string, measure: (box: DOMRect) => number, alsoWatch?: string): (element: T | null) => void {
  const [element, setElement] = useState<T | null>(null)
  useEffect(() => {
    if (element === null || typeof ResizeObserver === 'undefined') return
    const root = document.documentElement
    const place = () => root.style.setProperty(name, `${Math.ceil(measure(element.getBoundingClientRect()))}px`)
    const observer = new ResizeObserver(place)
    observer.observe(element)
    const ancestor = alsoWatch === undefined ? null : element.closest(alsoWatch)
    if (ancestor !== null) observer.observe(ancestor)
    place()
    return () => {
      observer.disconnect()
      root.style.removeProperty(name)
    }
  }, [element, name, measure, alsoWatch])
  return setElement
}

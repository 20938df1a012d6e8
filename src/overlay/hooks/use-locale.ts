import { useSyncExternalStore } from 'react'

function subscribe(onChange: () => void): () => void {
  window.addEventListener('languagechange', onChange)
  return () => window.removeEventListener('languagechange', onChange)
}

function currentLocale(): string {
  const language = typeof navigator === 'undefined' ? '' : navigator.language
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([language]).length > 0 ? language : 'en-US'
  } catch {
    return 'en-US'
  }
}

/** This browser's locale (`navigator.language`), which every time on screen is written in. */
export function useLocale(): string {
  return useSyncExternalStore(subscribe, currentLocale)
}

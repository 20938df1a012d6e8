const LIMIT = 512
const cache = new Map<string, Intl.DateTimeFormat>()

/** One cached `Intl.DateTimeFormat` per locale, zone and option set (bounded; construction is the costly part). */
export function dateTimeFormat(locale: string, timeZone: string, name: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}\u0000${timeZone}\u0000${name}`
  let format = cache.get(key)
  if (format === undefined) {
    format = new Intl.DateTimeFormat(locale, { ...options, timeZone })
    if (cache.size >= LIMIT) cache.clear()
    cache.set(key, format)
  }
  return format
}

const cycles = new Map<string, boolean>()

/** True when the locale writes times on a 12-hour clock (its default hour cycle is h11 or h12). */
export function usesTwelveHourClock(locale: string): boolean {
  let twelve = cycles.get(locale)
  if (twelve === undefined) {
    const cycle = new Intl.DateTimeFormat(locale, { hour: 'numeric' }).resolvedOptions().hourCycle
    twelve = cycle === 'h11' || cycle === 'h12'
    cycles.set(locale, twelve)
  }
  return twelve
}

/** The hour and minute options for a locale: `6:30 PM` on 12-hour clocks, `18:30` / `09:30` on 24-hour ones. */
export function clockOptions(locale: string): Intl.DateTimeFormatOptions {
  return usesTwelveHourClock(locale) ? { hour: 'numeric', minute: '2-digit' } : { hour: '2-digit', minute: '2-digit' }
}

const wordLocales = new Map<string, string>()

/**
 * The locale the overlay's words for days and months are in: English, as the rest of its text is, so a sentence keeps
 * one language — the browser's own locale when it is an English one, else English in the order the locale puts day and
 * month (`3 March` for de-DE and pt-BR, `March 3` for ja-JP). Clocks stay in the browser's locale.
 */
export function wordLocale(locale: string): string {
  let words = wordLocales.get(locale)
  if (words === undefined) {
    const format = new Intl.DateTimeFormat(locale, { month: 'long', day: 'numeric', timeZone: 'UTC' })
    if (format.resolvedOptions().locale.split('-')[0] === 'en') words = locale
    else {
      const parts = format.formatToParts(Date.UTC(2000, 2, 3)).map((part) => part.type)
      words = parts.indexOf('day') < parts.indexOf('month') ? 'en-GB' : 'en-US'
    }
    wordLocales.set(locale, words)
  }
  return words
}

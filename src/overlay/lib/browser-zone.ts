/** This browser's zone right now (`Intl.DateTimeFormat().resolvedOptions().timeZone`), or null when it reports none. */
export function sampleBrowserZone(): string | null {
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone
    return typeof zone === 'string' && zone.length > 0 ? zone : null
  } catch {
    return null
  }
}

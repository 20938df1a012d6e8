import { describe, expect, it } from 'vitest'
import { Progress, progressLine } from '../../src/server/progress.ts'

describe('progress line', () => {
  it('names items and events done, the event rate and the time left at the rate so far', () => {
    expect(progressLine({ label: 'export', done: 3, total: 12, unit: 'sessions', events: 45_000, elapsedMs: 9000 })).toBe(
      'export: 3/12 sessions, 45,000 events, 5,000 events/s, ETA 0:27',
    )
    expect(progressLine({ label: 'check', done: 1, total: 4000, unit: 'files', events: 10, elapsedMs: 2000 })).toBe(
      'check: 1/4,000 files, 10 events, 5 events/s, ETA 2:13:18',
    )
  })

  it('gives no ETA before the first item or after the last, and no rate before any time passed', () => {
    expect(progressLine({ label: 'import', done: 0, total: 2, unit: 'sessions', events: 0, elapsedMs: 0 })).toBe('import: 0/2 sessions, 0 events, 0 events/s')
    expect(progressLine({ label: 'import', done: 2, total: 2, unit: 'sessions', events: 8, elapsedMs: 4000 })).toBe('import: 2/2 sessions, 8 events, 2 events/s')
  })
})

describe('Progress', () => {
  const stream = (isTTY: boolean) => {
    const written: string[] = []
    return { isTTY, written, write: (text: string) => written.push(text) }
  }

  it('rewrites one terminal line at most once per interval and clears it before other output', () => {
    let now = 0
    const out = stream(true)
    const progress = new Progress('export', 2, 'sessions', out, () => now, 200)
    progress.addEvents(100)
    now = 100
    progress.addEvents(100)
    now = 250
    progress.finishItem()
    progress.clear()
    progress.end()
    expect(out.written).toEqual([
      '\r\x1b[2Kexport: 0/2 sessions, 100 events, 0 events/s',
      '\r\x1b[2Kexport: 1/2 sessions, 200 events, 800 events/s, ETA 0:00',
      '\r\x1b[2K',
    ])
  })

  it('writes nothing when the stream is not a terminal', () => {
    const out = stream(false)
    const progress = new Progress('check', 3, 'files', out, () => 0, 200)
    progress.addEvents(5)
    progress.finishItem()
    progress.end()
    expect(out.written).toEqual([])
  })
})

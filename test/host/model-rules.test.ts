import { describe, expect, it } from 'vitest'
import { backoffDelayMs, DEFAULT_RETRY, isRetryableStatus, retryAfterMs } from '../../src/host/models/retry-policy.ts'
import { SseDataDecoder } from '../../src/host/models/sse-decoder.ts'
import { providerMessage } from '../../src/host/models/openai-schemas.ts'
import { streamPieces } from '../../src/host/models/script-file.ts'

describe('SseDataDecoder', () => {
  it('yields the data of each event, whatever the line ends and however the text is split', () => {
    const stream = '\uFEFFdata: one\r\n\r\n: comment\nevent: message\nid: 7\ndata: two\n\ndata:three\r\rdata: {"a":\ndata: 1}\n\n'
    const whole = new SseDataDecoder()
    expect([...whole.push(stream), ...whole.end()]).toEqual(['one', 'two', 'three', '{"a":\n1}'])
    for (let size = 1; size <= 7; size++) {
      const decoder = new SseDataDecoder()
      const out: string[] = []
      for (let i = 0; i < stream.length; i += size) out.push(...decoder.push(stream.slice(i, i + size)))
      out.push(...decoder.end())
      expect(out).toEqual(['one', 'two', 'three', '{"a":\n1}'])
    }
  })

  it('keeps a CR at the end of a piece until it knows whether LF follows', () => {
    const decoder = new SseDataDecoder()
    expect(decoder.push('data: x\r')).toEqual([])
    expect(decoder.push('\n\r')).toEqual([])
    expect(decoder.push('\ndata: y\n\n')).toEqual(['x', 'y'])
  })

  it('delivers an unterminated last event when the stream ends, and nothing for blank events', () => {
    const decoder = new SseDataDecoder()
    expect(decoder.push('\n\n:ping\n\ndata: [DONE]')).toEqual([])
    expect(decoder.end()).toEqual(['[DONE]'])
  })
})

describe('retry policy', () => {
  it('retries 429 and 5xx only', () => {
    expect([400, 401, 404, 408, 422, 429, 500, 502, 503, 599, 600].map(isRetryableStatus)).toEqual([
      false, false, false, false, false, true, true, true, true, true, false,
    ])
  })

  it('doubles the backoff from 1 s, capped at 8 s, jittered over its upper half', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelayMs(DEFAULT_RETRY, n, 0))).toEqual([500, 1_000, 2_000, 4_000, 4_000, 4_000])
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(DEFAULT_RETRY, n, 0.999_999))).toEqual([1_000, 2_000, 4_000, 8_000, 8_000])
    expect(DEFAULT_RETRY.tries).toBe(3)
  })

  it('reads Retry-After as seconds or as an HTTP date, never waiting a negative time', () => {
    const now = Date.UTC(2026, 0, 2, 3, 4, 5)
    expect(retryAfterMs('3', now)).toBe(3_000)
    expect(retryAfterMs(' 1.5 ', now)).toBe(1_500)
    expect(retryAfterMs('0', now)).toBe(0)
    expect(retryAfterMs('Fri, 02 Jan 2026 03:04:15 GMT', now)).toBe(10_000)
    expect(retryAfterMs('Fri, 02 Jan 2026 03:00:00 GMT', now)).toBe(0)
    expect([retryAfterMs(null, now), retryAfterMs('soon', now), retryAfterMs('-1', now), retryAfterMs('', now)]).toEqual([
      undefined, undefined, undefined, undefined,
    ])
  })
})

describe('provider messages', () => {
  it('takes the provider words from the common error bodies, else the body or the status text', () => {
    expect(providerMessage('{"error":{"message":"Insufficient Balance","type":"unknown_error"}}', 'Payment Required')).toBe('Insufficient Balance')
    expect(providerMessage('{"error":"bad key"}', '')).toBe('bad key')
    expect(providerMessage('{"message":"Not Found"}', '')).toBe('Not Found')
    expect(providerMessage(' upstream timed out \n', 'Gateway Timeout')).toBe('upstream timed out')
    expect(providerMessage('', 'Service Unavailable')).toBe('Service Unavailable')
    expect(providerMessage('', '')).toBe('no message')
    expect(providerMessage('x'.repeat(600), '')).toBe(`${'x'.repeat(500)}…`)
    // a gateway's HTML page is read for its words (on the code before, its markup was shown in the conversation)
    expect(providerMessage('<html><body><h1>503 Service Unavailable</h1></body></html>', 'Service Unavailable')).toBe('503 Service Unavailable')
    expect(
      providerMessage('<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title><style>body { color: red }</style></head>\n<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center><script>track()</script></body></html>', 'Bad Gateway'),
    ).toBe('502 Bad Gateway 502 Bad Gateway nginx')
    expect(providerMessage('<html><body></body></html>', 'Bad Gateway')).toBe('Bad Gateway')
  })
})

describe('script streaming pieces', () => {
  it('splits text into words with their spaces, losing nothing', () => {
    expect(streamPieces('Hello, world')).toEqual(['Hello, ', 'world'])
    expect(streamPieces('  lead  two\n')).toEqual(['  lead  ', 'two\n'])
    expect(streamPieces('   ')).toEqual(['   '])
    expect(streamPieces('')).toEqual([])
  })
})

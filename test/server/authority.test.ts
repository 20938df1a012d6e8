import { describe, expect, it } from 'vitest'
import { hostPolicy, isLoopbackBind, isLoopbackName, normalOrigin, parseAuthority } from '../../src/server/authority.ts'

describe('parseAuthority', () => {
  it.each([
    ['localhost', { name: 'localhost', port: null }],
    ['LocalHost:4280', { name: 'localhost', port: 4280 }],
    ['127.0.0.1:1', { name: '127.0.0.1', port: 1 }],
    ['127.0.0.1:65535', { name: '127.0.0.1', port: 65535 }],
    ['[::1]', { name: '[::1]', port: null }],
    ['[::1]:80', { name: '[::1]', port: 80 }],
    ['[::ffff:7f00:1]', { name: '[::ffff:7f00:1]', port: null }],
    ['schedule.example.com:443', { name: 'schedule.example.com', port: 443 }],
    ['127.256.0.1', { name: '127.256.0.1', port: null }],
  ])('splits %s', (value, expected) => {
    expect(parseAuthority(value)).toEqual(expected)
  })

  it.each([
    '', ' ', 'local host', 'localhost:', 'localhost:0', 'localhost:65536', 'localhost:99999', 'localhost:080', 'localhost:-1', 'localhost:+1',
    'localhost:80:80', 'localhost:8o', '::1', '[::1', '::1]', '[::1]x', '[::1]:', '[::1%lo]', '[::1%25lo]', '[fe80::1%eth0]', '[127.0.0.1]',
    '[]', '[localhost]', '[0:0:0:0:0:0:0:1]', '[0::1]', '[::FFFF:7f00:1]', '[::ffff:127.0.0.1]', 'user@localhost', 'user:pw@127.0.0.1', 'localhost/x', 'localhost?x', 'localhost#x', '%6cocalhost', 'local\\host',
    'localhost\t', 'lo[c]alhost', 'localhost_', '*.localhost',
  ])('refuses %j', (value) => {
    expect(parseAuthority(value)).toBeNull()
  })
})

describe('isLoopbackName', () => {
  it.each(['localhost', 'app.localhost', 'a-b.c.localhost', '127.0.0.1', '127.0.0.0', '127.255.255.255', '127.1.2.3', '[::1]'])('accepts %s', (name) => {
    expect(isLoopbackName(name)).toBe(true)
  })

  it.each([
    '127.256.0.1', '127.999.999.999', '127.0.0.01', '127.000.0.1', '0177.0.0.1', '127.1', '127.0.1', '127.0.0.1.1', '0x7f.0.0.1', '2130706433',
    'localhost.', '.localhost', 'a..localhost', '-a.localhost', 'a-.localhost', `${'a'.repeat(64)}.localhost`, 'localhost.evil.example',
    '127.0.0.1.nip.io', '0.0.0.0', '[::]', '[::ffff:7f00:1]', '128.0.0.1', '10.0.0.1', 'localhos',
  ])('refuses %s', (name) => {
    expect(isLoopbackName(name)).toBe(false)
  })
})

describe('isLoopbackBind', () => {
  it.each([
    ['127.0.0.1', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.10', false],
    ['127.256.0.1', false],
  ])('%s → %s', (bindHost, loopback) => {
    expect(isLoopbackBind(bindHost)).toBe(loopback)
  })
})

describe('hostPolicy', () => {
  it('gives a loopback authority its own http origin as reached (default port dropped)', () => {
    const policy = hostPolicy()
    expect(policy('127.0.0.1:4280')).toEqual({ ownOrigin: 'http://127.0.0.1:4280' })
    expect(policy('LOCALHOST:80')).toEqual({ ownOrigin: 'http://localhost' })
    expect(policy('[::1]:4280')).toEqual({ ownOrigin: 'http://[::1]:4280' })
    expect(policy('[0::1]:4280')).toBeNull()
    expect(policy('schedule.example.com')).toBeNull()
    expect(policy('127.256.0.1')).toBeNull()
  })

  it('accepts the configured public name (http) and no look-alike of it', () => {
    const policy = hostPolicy('Schedule.Example.com')
    expect(policy('schedule.example.com:8080')).toEqual({ ownOrigin: 'http://schedule.example.com:8080' })
    expect(policy('schedule.example.com.')).toBeNull()
    expect(policy('x.schedule.example.com')).toBeNull()
    expect(policy('localhost:1')).toEqual({ ownOrigin: 'http://localhost:1' })
  })

  it('takes a public origin (behind a TLS proxy) as the own origin of its name', () => {
    const policy = hostPolicy('https://schedule.example.com')
    expect(policy('schedule.example.com')).toEqual({ ownOrigin: 'https://schedule.example.com' })
    expect(policy('schedule.example.com:443')).toEqual({ ownOrigin: 'https://schedule.example.com' })
    expect(hostPolicy('https://schedule.example.com:8443/')('schedule.example.com')).toEqual({ ownOrigin: 'https://schedule.example.com:8443' })
  })

  it('accepts a public IPv6 or wildcard bind address as the public host', () => {
    expect(hostPolicy('::')('[::]:4280')).toEqual({ ownOrigin: 'http://[::]:4280' })
    expect(hostPolicy('0.0.0.0')('0.0.0.0:4280')).toEqual({ ownOrigin: 'http://0.0.0.0:4280' })
  })

  it.each([
    ['schedule.example.com:443', '--public-host "schedule.example.com:443" is not a host name or address'],
    ['user@schedule.example.com', '--public-host "user@schedule.example.com" is not a host name or address'],
    ['ftp://schedule.example.com', '--public-host "ftp://schedule.example.com" is not a host name or an http(s) origin'],
    ['https://schedule.example.com/app', '--public-host "https://schedule.example.com/app" is not a host name or an http(s) origin'],
  ])('refuses the public host %s', (value, message) => {
    expect(() => hostPolicy(value)).toThrow(message)
  })
})

describe('normalOrigin', () => {
  it('names the origin of an Origin header with the default port dropped, and nothing for what is no http(s) origin', () => {
    const values = ['https://schedule.example.com:443', 'http://LOCALHOST:80', 'http://[::1]:4280', 'https://x.example:80', 'http://127.0.0.1:4280/', 'null', 'file://', 'ftp://x.example', 'HTTP://x.example', 'http://a@x.example', 'http://x.example:0']
    expect(values.map(normalOrigin)).toEqual(['https://schedule.example.com', 'http://localhost', 'http://[::1]:4280', 'https://x.example:80', null, null, null, null, null, null, null])
  })
})

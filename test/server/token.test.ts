import { describe, expect, it } from 'vitest'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { readTokenFile, tokenMatches, tokenWeakness } from '../../src/server/token.ts'
import { tempDir } from '../support/temp-dir.ts'

describe('tokenWeakness', () => {
  it.each([
    ['', 'the token must have at least 16 characters (it has 0)'],
    [' ', 'the token must not contain spaces'],
    [' '.repeat(16), 'the token must not contain spaces'],
    ['abcdefgh abcdefgh', 'the token must not contain spaces'],
    ['abcdefghabcdefgh\n', 'the token must not contain spaces'],
    ['\tabcdefghabcdefgh', 'the token must not contain spaces'],
    ['s3cret', 'the token must have at least 16 characters (it has 6)'],
    ['a'.repeat(15), 'the token must have at least 16 characters (it has 15)'],
    ['abcdefgh!abcdefgh', 'the token may only contain letters, digits and - . _ ~ + / (then = padding)'],
    ['abcdefgh=abcdefgh', 'the token may only contain letters, digits and - . _ ~ + / (then = padding)'],
    ['äbcdefghabcdefghi', 'the token may only contain letters, digits and - . _ ~ + / (then = padding)'],
  ])('refuses %j', (token, reason) => {
    expect(tokenWeakness(token)).toBe(reason)
  })

  it.each(['a'.repeat(16), 'kV9s-2Qx_7bLm.Tz', 'q1w2e3r4t5y6u7i8o9p0+/==', '0123456789abcdef0123456789abcdef', 'a~b~c~d~e~f~g~h~'])('accepts %j', (token) => {
    expect(tokenWeakness(token)).toBeNull()
  })
})

describe('tokenMatches', () => {
  it('matches only the exact token, whatever the lengths', () => {
    const token = 'kV9s-2Qx_7bLm.Tz'
    expect(tokenMatches(token, token)).toBe(true)
    for (const other of ['', ' ', 'kV9s-2Qx_7bLm.T', 'kV9s-2Qx_7bLm.Tzz', 'KV9s-2Qx_7bLm.Tz', `${token} `, 'x'.repeat(10_000)]) {
      expect(tokenMatches(other, token)).toBe(false)
    }
  })
})

describe('readTokenFile', () => {
  it('reads the token less one trailing newline, and keeps anything else for tokenWeakness to judge', async () => {
    const dir = await tempDir()
    const contents = ['kV9s-2Qx_7bLm.Tz', 'kV9s-2Qx_7bLm.Tz\n', 'kV9s-2Qx_7bLm.Tz\r\n', 'kV9s-2Qx_7bLm.Tz\n\n', ' kV9s-2Qx_7bLm.Tz\n']
    const read: string[] = []
    for (const [i, text] of contents.entries()) {
      await writeFile(join(dir, `t${i}`), text)
      read.push(await readTokenFile(join(dir, `t${i}`)))
    }
    expect(read).toEqual(['kV9s-2Qx_7bLm.Tz', 'kV9s-2Qx_7bLm.Tz', 'kV9s-2Qx_7bLm.Tz', 'kV9s-2Qx_7bLm.Tz\n', ' kV9s-2Qx_7bLm.Tz'])
    expect(read.map(tokenWeakness)).toEqual([null, null, null, 'the token must not contain spaces', 'the token must not contain spaces'])
  })

  it('refuses to start on a file it cannot read, naming it', async () => {
    const missing = join(await tempDir(), 'none')
    await expect(readTokenFile(missing)).rejects.toThrow(`refusing to start: --token-file ${missing} cannot be read (ENOENT)`)
  })
})

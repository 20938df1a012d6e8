import { nodeFiles, type FileHandleLike, type FileLayer } from '../../src/host/index.ts'

/** A file-system call the failing layer can break. */
export type FileOp = 'open' | 'write' | 'datasync' | 'truncate' | 'stat' | 'lstat' | 'readdir' | 'link' | 'rename' | 'unlink' | 'mkdir'

/** One injected failure: calls of `op` on paths matching `path` fail with `code` (`times` calls, or until healed). */
export type FaultRule = { op: FileOp; code: 'EIO' | 'ENOSPC' | 'EPERM' | 'EDQUOT' | 'EROFS'; path?: RegExp; times?: number }

const ERRNO: Record<FaultRule['code'], number> = { EIO: -5, ENOSPC: -28, EPERM: -1, EDQUOT: -122, EROFS: -30 }

/**
 * The real file system with failures injected at chosen calls, the way a failing disk answers
 * (an errno error from that syscall); everything else goes to the real files in a temp dir.
 */
export class FailingFiles implements FileLayer {
  private rules: FaultRule[] = []
  private holds: { op: FileOp; path: RegExp | undefined; gate: Promise<void> }[] = []
  /** Every call made, as `op path` (tests count attempts to prove nothing spins). */
  readonly calls: string[] = []

  /** Adds a failure. */
  inject(rule: FaultRule): void {
    this.rules.push({ ...rule })
  }

  /** Holds calls of `op` on matching paths until the returned function is called (a slow disk); they then go to the real files. */
  hold(op: 'write' | 'datasync' | 'truncate', path?: RegExp): () => void {
    let release: () => void = () => undefined
    const hold = { op, path, gate: new Promise<void>((resolve) => (release = resolve)) }
    this.holds.push(hold)
    return () => {
      this.holds = this.holds.filter((h) => h !== hold)
      release()
    }
  }

  /** Removes every failure. */
  heal(): void {
    this.rules = []
  }

  /** How many calls of `op` (optionally on a matching path) were made. */
  count(op: FileOp, path?: RegExp): number {
    return this.calls.filter((call) => call.startsWith(`${op} `) && (path === undefined || path.test(call.slice(op.length + 1)))).length
  }

  private async held(op: FileOp, path: string): Promise<void> {
    for (const hold of this.holds) if (hold.op === op && (hold.path === undefined || hold.path.test(path))) await hold.gate
  }

  private check(op: FileOp, path: string): void {
    this.calls.push(`${op} ${path}`)
    const rule = this.rules.find((r) => r.op === op && (r.path === undefined || r.path.test(path)))
    if (!rule) return
    if (rule.times !== undefined && --rule.times <= 0) this.rules.splice(this.rules.indexOf(rule), 1)
    throw Object.assign(new Error(`${rule.code}: injected failure, ${op} '${path}'`), {
      code: rule.code,
      errno: ERRNO[rule.code],
      syscall: op,
      path,
    })
  }

  private wrap(handle: FileHandleLike, path: string): FileHandleLike {
    return {
      read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
      write: async (buffer, offset, length, position) => {
        await this.held('write', path)
        this.check('write', path)
        return handle.write(buffer, offset, length, position)
      },
      datasync: async () => {
        await this.held('datasync', path)
        this.check('datasync', path)
        return handle.datasync()
      },
      stat: async () => {
        this.check('stat', path)
        return handle.stat()
      },
      truncate: async (length) => {
        await this.held('truncate', path)
        this.check('truncate', path)
        return handle.truncate(length)
      },
      close: () => handle.close(),
    }
  }

  async open(path: string, flags: number, mode?: number): Promise<FileHandleLike> {
    this.check('open', path)
    return this.wrap(await nodeFiles.open(path, flags, mode), path)
  }

  async lstat(path: string) {
    this.check('lstat', path)
    return nodeFiles.lstat(path)
  }

  async readdir(path: string) {
    this.check('readdir', path)
    return nodeFiles.readdir(path)
  }

  async mkdir(path: string): Promise<void> {
    this.check('mkdir', path)
    return nodeFiles.mkdir(path)
  }

  async link(existingPath: string, newPath: string): Promise<void> {
    this.check('link', newPath)
    return nodeFiles.link(existingPath, newPath)
  }

  async rename(from: string, to: string): Promise<void> {
    this.check('rename', to)
    return nodeFiles.rename(from, to)
  }

  async unlink(path: string): Promise<void> {
    this.check('unlink', path)
    return nodeFiles.unlink(path)
  }
}

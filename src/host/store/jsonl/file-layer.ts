import type { Dirent, Stats } from 'node:fs'
import { link, lstat, mkdir, open, readdir, rename, unlink } from 'node:fs/promises'

/** The part of an open file the JSONL store uses. */
export interface FileHandleLike {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>
  write(buffer: Buffer, offset: number, length: number, position: number | null): Promise<{ bytesWritten: number }>
  /** fdatasync: written data (and the size needed to read it) is on disk when it resolves. */
  datasync(): Promise<void>
  stat(): Promise<Stats>
  truncate(length: number): Promise<void>
  close(): Promise<void>
}

/**
 * The file system calls of the JSONL store, injectable so tests can make any call fail the way a
 * real disk does (EIO, ENOSPC, EPERM ...) without mocking the files themselves.
 */
export interface FileLayer {
  open(path: string, flags: number, mode?: number): Promise<FileHandleLike>
  lstat(path: string): Promise<Stats>
  readdir(path: string): Promise<Dirent[]>
  mkdir(path: string): Promise<void>
  link(existingPath: string, newPath: string): Promise<void>
  rename(from: string, to: string): Promise<void>
  unlink(path: string): Promise<void>
}

/** The real file system. */
export const nodeFiles: FileLayer = {
  open: (path, flags, mode) => open(path, flags, mode),
  lstat: (path) => lstat(path),
  readdir: (path) => readdir(path, { withFileTypes: true }),
  mkdir: async (path) => {
    await mkdir(path, { recursive: true })
  },
  link: (existingPath, newPath) => link(existingPath, newPath),
  rename: (from, to) => rename(from, to),
  unlink: (path) => unlink(path),
}

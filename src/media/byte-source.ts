// A body that can be served by byte range: a file on disk now; a remuxed fragmented MP4 (in a
// cache file or in memory) once the demuxer exists. src/media/byte-ranges.ts serves any of them.
import { constants, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';

export interface ByteSource {
  readonly size: number;
  readonly contentType: string;
  /** A strong entity tag (quoted), or undefined when the source cannot name its version. */
  readonly etag?: string;
  readonly lastModified?: Date;
  /** The bytes start..end (inclusive). Called at most once; the source closes itself after. */
  read(start: number, end: number): Readable;
  /** Releases the source when read() will not be called (HEAD, 416, errors). Idempotent. */
  close(): void;
}

/** Content types by file extension (lower case, no dot). */
const TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
  webm: 'video/webm',
  avi: 'video/x-msvideo',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
};

export function contentTypeFor(fileName: string): string {
  return TYPES[path.extname(fileName).slice(1).toLowerCase()] ?? 'application/octet-stream';
}

/** A file's version, `ino-size-mtime` in hex: changes whenever its size or mtime does. */
export function fileVersion(stats: Pick<Stats, 'size' | 'mtimeMs' | 'ino'>): string {
  return `${stats.ino.toString(16)}-${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}`;
}

/** A strong validator from the file's version. */
export function fileEtag(stats: Pick<Stats, 'size' | 'mtimeMs' | 'ino'>): string {
  return `"${fileVersion(stats)}"`;
}

/**
 * The stats of a regular file, without following a symlink in its last component: one swapped
 * in since the caller resolved and checked the real path counts as missing (ENOENT), as it
 * does for FileSource.open().
 */
export async function fileStats(realPath: string): Promise<Stats> {
  const stats = await lstat(realPath);
  if (stats.isFile()) return stats;
  throw Object.assign(new Error(`${realPath}: not a regular file`), { code: 'ENOENT', syscall: 'lstat' });
}

export class FileSource implements ByteSource {
  private handedOff = false;
  private closed = false;

  private constructor(
    private readonly handle: FileHandle,
    readonly stats: Stats,
    readonly contentType: string,
  ) {}

  /**
   * Opens a regular file without following a symlink in its last component (the caller has
   * already resolved and checked the real path; this closes the window in which it could be
   * swapped for a link). Size and validators come from the open descriptor.
   */
  static async open(realPath: string, contentType = contentTypeFor(realPath)): Promise<FileSource> {
    const handle = await open(realPath, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EISDIR' });
      return new FileSource(handle, stats, contentType);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  get size(): number {
    return this.stats.size;
  }

  get etag(): string {
    return fileEtag(this.stats);
  }

  get lastModified(): Date {
    return this.stats.mtime;
  }

  read(start: number, end: number): Readable {
    if (this.handedOff || this.closed) throw new Error('FileSource.read called twice');
    this.handedOff = true;
    // The stream owns the handle from here and closes it at the end or on destroy.
    return this.handle.createReadStream({ start, end, autoClose: true });
  }

  close(): void {
    if (this.handedOff || this.closed) return;
    this.closed = true;
    void this.handle.close().catch(() => undefined);
  }
}

/** A body held in memory (a derived still, a playlist, a remuxed segment). */
export class BufferSource implements ByteSource {
  constructor(
    readonly data: Buffer,
    readonly contentType: string,
    readonly etag?: string,
    readonly lastModified?: Date,
  ) {}

  get size(): number {
    return this.data.length;
  }

  read(start: number, end: number): Readable {
    return Readable.from([this.data.subarray(start, end + 1)], { objectMode: false });
  }

  close(): void {}
}

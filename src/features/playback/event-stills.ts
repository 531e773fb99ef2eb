// Still images of an event: `/events/{id}/thumbnail`, `/events/{id}/frames/{fid}/image` and
// `/frames/{id}/image`, turned per the event's Orientation (the monitor's, as recorded with the
// event). With ROTATE_0 a stored JPEG is streamed from disk untouched; otherwise it is rotated
// by the JpegRotator, and a frame taken out of a recording is made by ffmpeg. Derived stills are
// cached by source identity (path, inode, size, mtime) and transform.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AuthUser } from '../../auth/auth-service.js';
import type { PrismaClient } from '../../db/prisma.js';
import { ApiError, InvalidInputError, NotFoundError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { BufferSource, FileSource } from '../../media/byte-source.js';
import { FfmpegError, type FfmpegRunner } from '../../media/ffmpeg.js';
import type { JpegRotator } from '../../media/jpeg-rotate.js';
import type { StillCache } from '../../media/still-cache.js';
import { fileNotFound, type EventMediaLocator, type EventRecord, type StillKind, type VideoFile } from './event-media.js';
import { cacheControlFor, type ServedBody } from './event-playback-service.js';
import { averageInterval, frameTimes } from '../events/event-timeline.js';

/** Thumbnails taken from a recording are scaled to at most this width (aspect kept). */
export const THUMBNAIL_WIDTH = 320;
/** A stored JPEG larger than this is served as is, never decoded. */
const MAX_DECODE_BYTES = 32 << 20;
/** Named stills a `fid` may ask for. */
const NAMED_STILLS: Record<string, string> = { alarm: 'alarm.jpg', snapshot: 'snapshot.jpg', objdetect: 'objdetect.jpg' };

const thumbnailNotFound = (id: bigint) => fileNotFound(id, 'Thumbnail not found');
const imageNotFound = (id: bigint, fid: string) =>
  new NotFoundError(`No image for frame ${fid} of event ${id}`, [['event_id', String(id)], ['frame', fid], ['reason', 'Image not found']], 'FILE');

/** `?type=`: capture (default, falling back to the analysis image) or analyse. */
export function parseStillType(type: string | undefined): StillKind | null {
  if (type === undefined || type === '') return null;
  if (type === 'capture') return 'capture';
  if (type === 'analyse' || type === 'analysis') return 'analyse';
  throw new InvalidInputError('Invalid input', [['type', 'must be capture or analyse']]);
}

export class EventStills {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly media: EventMediaLocator,
    private readonly runner: FfmpegRunner,
    private readonly rotator: JpegRotator,
    private readonly cache: StillCache,
    private readonly log: Logger,
  ) {}

  /** snapshot.jpg, alarm.jpg, the first capture JPEG, the first analysis JPEG, else a frame of the recording. */
  async thumbnail(user: AuthUser, id: bigint): Promise<ServedBody> {
    const event = await this.media.event(user, id);
    for (const name of ['snapshot.jpg', 'alarm.jpg']) {
      const file = await this.media.file(event, name);
      if (file) return this.stored(event, file);
    }
    for (const kind of ['capture', 'analyse'] as const) {
      const [first] = await this.media.frameNumbers(event, kind);
      const file = first === undefined ? null : await this.media.frameFile(event, first, kind);
      if (file) return this.stored(event, file);
    }
    const video = await this.media.video(event);
    if (video) {
      const body = await this.fromVideo(event, video, 0, THUMBNAIL_WIDTH);
      if (body) return body;
    }
    throw thumbnailNotFound(id);
  }

  /**
   * `fid`: a frame number (>= 1), or `alarm`, `snapshot`, `objdetect`. A numbered frame is its
   * stored JPEG (`type`), else (not for analysis images) the frame taken from the recording at
   * its recorded offset.
   */
  async frameImage(user: AuthUser, id: bigint, fid: string, type: string | undefined): Promise<ServedBody> {
    const kind = parseStillType(type);
    const named = NAMED_STILLS[fid];
    if (!named && !/^\d{1,10}$/.test(fid)) {
      throw new InvalidInputError('Invalid input', [['fid', 'must be a frame number >= 1, alarm, snapshot or objdetect']]);
    }
    const n = Number(fid);
    if (!named && (n < 1 || n > 0xffffffff)) throw new InvalidInputError('Invalid input', [['fid', 'must be a frame number >= 1, alarm, snapshot or objdetect']]);
    const event = await this.media.event(user, id);
    if (named) {
      const file = await this.media.file(event, named);
      if (!file) throw imageNotFound(id, fid);
      return this.stored(event, file);
    }
    return this.numbered(event, n, kind, fid);
  }

  /** `/frames/{id}/image`: the image of a Frames row; a row of a hidden event is as missing. */
  async frameRowImage(user: AuthUser, frameRowId: bigint, type: string | undefined): Promise<ServedBody> {
    const kind = parseStillType(type);
    const row = await this.prisma.frames.findUnique({ where: { Id: frameRowId }, select: { EventId: true, FrameId: true } });
    const missing = new NotFoundError(`Frame ${frameRowId} not found`, [['id', String(frameRowId)]]);
    if (!row) throw missing;
    let event: EventRecord;
    try {
      event = await this.media.event(user, row.EventId);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) throw missing;
      throw err;
    }
    return this.numbered(event, row.FrameId, kind, String(row.FrameId));
  }

  private async numbered(event: EventRecord, n: number, kind: StillKind | null, fid: string): Promise<ServedBody> {
    for (const k of kind ? [kind] : (['capture', 'analyse'] as const)) {
      const file = await this.media.frameFile(event, n, k);
      if (file) return this.stored(event, file);
    }
    const video = kind === 'analyse' ? null : await this.media.video(event);
    if (video) {
      const body = await this.fromVideo(event, video, await this.offsetOf(event, n), null);
      if (body) return body;
    }
    throw imageNotFound(event.id, fid);
  }

  /** Seconds into the recording of frame `n`, from the Frames rows around it. */
  private async offsetOf(event: EventRecord, n: number): Promise<number> {
    const [below, above] = await Promise.all([
      this.prisma.frames.findFirst({ where: { EventId: event.id, FrameId: { lte: n } }, orderBy: { FrameId: 'desc' }, select: { FrameId: true, Delta: true } }),
      this.prisma.frames.findFirst({ where: { EventId: event.id, FrameId: { gte: n } }, orderBy: { FrameId: 'asc' }, select: { FrameId: true, Delta: true } }),
    ]);
    const rows = [below, above].filter((r) => r !== null).map((r) => ({ frameId: r.FrameId, delta: Number(r.Delta) }));
    return frameTimes([n], rows, averageInterval([], event.lengthSeconds, event.frames))[0];
  }

  /** A stored JPEG: streamed as is with ROTATE_0, else rotated (unrotated when that fails). */
  private async stored(event: EventRecord, file: string): Promise<ServedBody> {
    const source = await FileSource.open(file).catch(() => null);
    if (!source) throw fileNotFound(event.id, 'Image not found');
    const cacheControl = cacheControlFor(event);
    if (event.orientation === 'ROTATE_0' || source.size > MAX_DECODE_BYTES) return { source, cacheControl };
    const key = `rotate\0${file}\0${source.etag}\0${event.orientation}`;
    const rotated = await this.rotated(event, key, async () => readFile(file));
    if (!rotated) return { source, cacheControl };
    source.close();
    return { source: new BufferSource(rotated, 'image/jpeg', etagOf(key), source.lastModified), cacheControl };
  }

  /**
   * The rotated still (cached under `key`), or null when rotation fails for any reason: the
   * still is then served unrotated, as a wrong turn is better than no picture.
   */
  private async rotated(event: EventRecord, key: string, jpeg: () => Promise<Buffer>): Promise<Buffer | null> {
    try {
      return await this.cache.getOrMake(key, async () => this.rotator.rotateJpeg(await jpeg(), event.orientation));
    } catch (err) {
      const e = err as Error & { stderr?: string };
      this.log.warn({ event_id: String(event.id), orientation: event.orientation, err: { message: e.message, stderr: e.stderr?.slice(0, 500) } }, 'still rotation failed; serving it unrotated');
      return null;
    }
  }

  /** One frame of the recording at `offset` seconds as JPEG, rotated; null when none decodes. */
  private async fromVideo(event: EventRecord, video: VideoFile, offset: number, maxWidth: number | null): Promise<ServedBody | null> {
    const file = await FileSource.open(video.path).catch(() => null);
    if (!file) return null;
    file.close();
    const frameKey = `frame\0${video.path}\0${file.etag}\0${offset.toFixed(3)}\0${maxWidth ?? 0}`;
    let frame: Buffer;
    try {
      frame = await this.cache.getOrMake(frameKey, async () => {
        const jpeg = await this.runner.ffmpeg([
          ...(offset > 0 ? ['-ss', offset.toFixed(3)] : []),
          // zmc tags a copied stream with the monitor's Orientation (a display matrix), which
          // ffmpeg would apply on its own; the Orientation is applied below, once.
          '-noautorotate',
          '-i', `file:${video.path}`, // never read as another protocol
          '-an', '-sn', '-dn',
          '-frames:v', '1',
          ...(maxWidth ? ['-vf', `scale='min(${maxWidth},iw)':-2`] : []),
          '-q:v', '2',
          '-f', 'mjpeg', 'pipe:1',
        ]);
        if (!jpeg.length) throw new FfmpegError('no frame decoded');
        return jpeg;
      });
    } catch (err) {
      if (!(err instanceof FfmpegError)) throw err;
      this.log.warn({ event_id: String(event.id), err: { message: err.message, stderr: err.stderr.slice(0, 500) } }, 'no frame could be taken from the recording');
      return null;
    }
    const cacheControl = cacheControlFor(event);
    if (event.orientation === 'ROTATE_0') return { source: new BufferSource(frame, 'image/jpeg', etagOf(frameKey), file.lastModified), cacheControl };
    const key = `${frameKey}\0${event.orientation}`;
    const rotated = await this.rotated(event, key, async () => frame);
    return rotated
      ? { source: new BufferSource(rotated, 'image/jpeg', etagOf(key), file.lastModified), cacheControl }
      : { source: new BufferSource(frame, 'image/jpeg', etagOf(frameKey), file.lastModified), cacheControl };
  }
}

function etagOf(key: string): string {
  return `"${createHash('sha1').update(key).digest('base64url')}"`;
}

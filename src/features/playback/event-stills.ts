// Still images of an event: `/events/{id}/thumbnail`, `/events/{id}/frames/{fid}/image` and
// `/frames/{id}/image`, upright in the event's Orientation, turned exactly once
// (docs/zoneminder/orientation.md):
// - JPEGs zmc wrote (snapshot.jpg, alarm.jpg, NNNNN-capture.jpg, NNNNN-analyse.jpg) are already
//   turned: streamed from disk untouched, whatever the Orientation;
// - a frame taken out of a recording is decoded without auto-rotation (a tag may be wrong or
//   missing) and turned by the Orientation only when the recording holds the camera's own
//   packets (passthrough); an encode-mode recording is already upright.
// Frames taken from recordings are cached by source identity (path, inode, size, mtime) and transform.
import { createHash } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import type { AuthUser } from '../../auth/auth-service.js';
import type { PrismaClient } from '../../db/prisma.js';
import { ApiError, InvalidInputError, NotFoundError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { BufferSource, FileSource, fileVersion } from '../../media/byte-source.js';
import { FfmpegError, type FfmpegRunner } from '../../media/ffmpeg.js';
import { orientationFilter, swapsAxes, type Orientation } from '../../media/jpeg-rotate.js';
import type { StillCache } from '../../media/still-cache.js';
import type { VideoProbe, VideoProber } from './video-probe.js';
import {
  fileNotFound,
  type EventMediaLocator,
  type EventRecord,
  type StillKind,
  type VideoFile,
} from './event-media.js';
import { cacheControlFor, type ServedBody } from './event-playback-service.js';
import { averageInterval, frameTimes } from '../../zm/event-timeline.js';

/** Thumbnails taken from a recording are scaled to at most this width (aspect kept). */
export const THUMBNAIL_WIDTH = 320;
/** Monitors.VideoWriter of camera passthrough (1 encodes the turned images). */
const VIDEO_WRITER_PASSTHROUGH = 2;
/** Named stills a `fid` may ask for. */
const NAMED_STILLS: Record<string, string> = {
  alarm: 'alarm.jpg',
  snapshot: 'snapshot.jpg',
  objdetect: 'objdetect.jpg',
};

const thumbnailNotFound = (id: bigint) => fileNotFound(id, 'Thumbnail not found');
const imageNotFound = (id: bigint, fid: string) =>
  new NotFoundError(
    `No image for frame ${fid} of event ${id}`,
    [
      ['event_id', String(id)],
      ['frame', fid],
      ['reason', 'Image not found'],
    ],
    'FILE',
  );

/** `?type=`: capture (default, falling back to the analysis image) or analyse. */
export function parseStillType(type: string | undefined): StillKind | null {
  if (type === undefined || type === '') return null;
  if (type === 'capture') return 'capture';
  if (type === 'analyse' || type === 'analysis') return 'analyse';
  throw new InvalidInputError('Invalid input', [['type', 'must be capture or analyse']]);
}

/** What the recording says about how it was written, for recordingTurn(). */
export interface RecordingFacts {
  /** Coded size of the video track (0 when unknown). */
  width: number;
  height: number;
  /** The file carries a rotation/flip tag (display matrix). */
  displayMatrix: boolean;
  /** Monitors.VideoWriter of the event's monitor now; null when unknown. */
  videoWriter: number | null;
}

/**
 * The turn a frame decoded (without auto-rotation) from an event's recording still needs: the
 * event's Orientation for a passthrough recording, ROTATE_0 for an encode-mode one. The Events
 * row stores the turned size, so for 90/270 the coded size tells: the swap of Width×Height is
 * passthrough, the same size is encode. Otherwise a display matrix (written only with the
 * camera's packets) or the monitor's VideoWriter = 2 says passthrough.
 */
export function recordingTurn(
  orientation: Orientation,
  event: { width: number; height: number },
  rec: RecordingFacts,
): Orientation {
  if (!orientationFilter(orientation)) return 'ROTATE_0';
  if (swapsAxes(orientation) && rec.width > 0 && rec.height > 0 && rec.width !== rec.height) {
    if (rec.width === event.height && rec.height === event.width) return orientation;
    if (rec.width === event.width && rec.height === event.height) return 'ROTATE_0';
  }
  return rec.displayMatrix || rec.videoWriter === VIDEO_WRITER_PASSTHROUGH ? orientation : 'ROTATE_0';
}

export class EventStills {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly media: EventMediaLocator,
    private readonly runner: FfmpegRunner,
    private readonly prober: VideoProber,
    private readonly cache: StillCache,
    private readonly log: Logger,
  ) {}

  /** zmc's own JPEGs first (snapshot.jpg, alarm.jpg, the first capture, the first analysis image), else a frame of the recording. */
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
      throw new InvalidInputError('Invalid input', [
        ['fid', 'must be a frame number >= 1, alarm, snapshot or objdetect'],
      ]);
    }
    const n = Number(fid);
    if (!named && (n < 1 || n > 0xffffffff))
      throw new InvalidInputError('Invalid input', [
        ['fid', 'must be a frame number >= 1, alarm, snapshot or objdetect'],
      ]);
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
    const row = await this.prisma.frames.findUnique({
      where: { Id: frameRowId },
      select: { EventId: true, FrameId: true },
    });
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

  /**
   * The image nearest `offset` seconds into the event (the recordings-by-time still): zmc's
   * capture JPEG of the frame recorded then when it saved one, else the frame decoded from the
   * recording at that offset. `width` scales it down (aspect kept), never up.
   */
  async atOffset(user: AuthUser, id: bigint, offset: number, width: number | null): Promise<ServedBody> {
    const event = await this.media.event(user, id);
    const n = await this.frameAt(event, offset);
    const file = await this.media.frameFile(event, n, 'capture');
    if (file) {
      const scaled = width ? await this.scaledJpeg(event, file, width) : null;
      return scaled ?? this.stored(event, file);
    }
    const video = await this.media.video(event);
    if (video) {
      const body = await this.fromVideo(event, video, offset, width);
      if (body) return body;
    }
    throw imageNotFound(id, String(n));
  }

  /** The frame number recorded `offset` seconds in: between the Frames rows around it, else by the event's average rate. */
  private async frameAt(event: EventRecord, offset: number): Promise<number> {
    const select = { FrameId: true, Delta: true } as const;
    const [below, above] = await Promise.all([
      this.prisma.frames.findFirst({
        where: { EventId: event.id, Delta: { lte: offset } },
        orderBy: { Delta: 'desc' },
        select,
      }),
      this.prisma.frames.findFirst({
        where: { EventId: event.id, Delta: { gte: offset } },
        orderBy: { Delta: 'asc' },
        select,
      }),
    ]);
    const interval = averageInterval([], event.lengthSeconds, event.frames);
    const last = Math.max(1, event.frames);
    let n: number;
    if (below && above && Number(above.Delta) > Number(below.Delta)) {
      const share = (offset - Number(below.Delta)) / (Number(above.Delta) - Number(below.Delta));
      n = below.FrameId + share * (above.FrameId - below.FrameId);
    } else if (below) n = below.FrameId + (offset - Number(below.Delta)) / interval;
    else if (above) n = above.FrameId - (Number(above.Delta) - offset) / interval;
    else n = 1 + offset / interval;
    return Math.min(last, Math.max(1, Math.round(Number.isFinite(n) ? n : 1)));
  }

  /** A stored JPEG scaled down to `width` (already upright); null when ffmpeg cannot read it. */
  private async scaledJpeg(event: EventRecord, file: string, width: number): Promise<ServedBody | null> {
    // The cache key needs the file's version only: a stat, not an open.
    const stats = await lstat(file).catch(() => null);
    if (!stats?.isFile()) throw fileNotFound(event.id, 'Image not found');
    const key = `scaled\0${file}\0${fileVersion(stats)}\0${width}`;
    const mtime = stats.mtime;
    try {
      const jpeg = await this.cache.getOrMake(key, async () => {
        const out = await this.runner.ffmpeg([
          '-i',
          `file:${file}`,
          '-vf',
          `scale='min(${width},iw)':-2`,
          '-q:v',
          '2',
          '-f',
          'mjpeg',
          'pipe:1',
        ]);
        if (!out.length) throw new FfmpegError('no frame decoded');
        return out;
      });
      return { source: new BufferSource(jpeg, 'image/jpeg', etagOf(key), mtime), cacheControl: cacheControlFor(event) };
    } catch (err) {
      if (err instanceof FfmpegError) return null;
      throw err;
    }
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
      this.prisma.frames.findFirst({
        where: { EventId: event.id, FrameId: { lte: n } },
        orderBy: { FrameId: 'desc' },
        select: { FrameId: true, Delta: true },
      }),
      this.prisma.frames.findFirst({
        where: { EventId: event.id, FrameId: { gte: n } },
        orderBy: { FrameId: 'asc' },
        select: { FrameId: true, Delta: true },
      }),
    ]);
    const rows = [below, above].filter((r) => r !== null).map((r) => ({ frameId: r.FrameId, delta: Number(r.Delta) }));
    return frameTimes([n], rows, averageInterval([], event.lengthSeconds, event.frames))[0];
  }

  /** A JPEG zmc stored: already turned by zmc, so streamed as it is. */
  private async stored(event: EventRecord, file: string): Promise<ServedBody> {
    const source = await FileSource.open(file).catch(() => null);
    if (!source) throw fileNotFound(event.id, 'Image not found');
    return { source, cacheControl: cacheControlFor(event) };
  }

  /** How the recording was written (see recordingTurn). */
  private async facts(event: EventRecord, probe: VideoProbe): Promise<RecordingFacts> {
    const monitor = await this.prisma.monitors
      .findUnique({ where: { Id: event.monitorId }, select: { VideoWriter: true } })
      .catch(() => null);
    return {
      width: probe.width,
      height: probe.height,
      displayMatrix: probe.mp4?.displayMatrix ?? false,
      videoWriter: monitor?.VideoWriter ?? null,
    };
  }

  /** One frame of the recording at `offset` seconds as JPEG, upright; null when none decodes. */
  private async fromVideo(
    event: EventRecord,
    video: VideoFile,
    offset: number,
    maxWidth: number | null,
  ): Promise<ServedBody | null> {
    // A file gone since the lookup has no frame to take.
    const probe = await this.prober.probe(video).catch(() => null);
    if (!probe) return null;
    const turn = orientationFilter(recordingTurn(event.orientation, event, await this.facts(event, probe)));
    const filters = [...(maxWidth ? [`scale='min(${maxWidth},iw)':-2`] : []), ...(turn ? [turn] : [])];
    const key = `frame\0${video.path}\0"${probe.version}"\0${offset.toFixed(3)}\0${filters.join(',')}`;
    let frame: Buffer;
    try {
      frame = await this.cache.getOrMake(key, async () => {
        const jpeg = await this.runner.ffmpeg([
          ...(offset > 0 ? ['-ss', offset.toFixed(3)] : []),
          // A rotation tag may be missing (1.36) or wrong (1.38 flips): the turn above is the
          // only one applied.
          '-noautorotate',
          '-i',
          `file:${video.path}`, // never read as another protocol
          '-an',
          '-sn',
          '-dn',
          '-frames:v',
          '1',
          ...(filters.length ? ['-vf', filters.join(',')] : []),
          '-q:v',
          '2',
          '-f',
          'mjpeg',
          'pipe:1',
        ]);
        if (!jpeg.length) throw new FfmpegError('no frame decoded');
        return jpeg;
      });
    } catch (err) {
      if (!(err instanceof FfmpegError)) throw err;
      this.log.warn(
        { event_id: String(event.id), err: { message: err.message, stderr: err.stderr.slice(0, 500) } },
        'no frame could be taken from the recording',
      );
      return null;
    }
    return {
      source: new BufferSource(frame, 'image/jpeg', etagOf(key), probe.mtime),
      cacheControl: cacheControlFor(event),
    };
  }
}

function etagOf(key: string): string {
  return `"${createHash('sha1').update(key).digest('base64url')}"`;
}

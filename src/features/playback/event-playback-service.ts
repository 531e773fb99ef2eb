// Recorded video of an event: `/events/{id}/info`, `/video` and `/stream/*`.
//
// /video serves the recording as ZoneMinder wrote it. /stream/video.mp4 and /stream/media.mp4
// promise fragmented MP4: a recording that already is one (ZoneMinder 1.39 writes fMP4, and
// the growing `incomplete.*.mp4` of an event in progress) is served as is; another MP4 goes to
// the EventRemuxer (a remux with byte ranges); a non-MP4 container (mkv, webm) cannot be
// remuxed and is served as written. The HLS routes always go to the remuxer (MP4 only), which
// opens the file itself: nothing is opened or probed here for them.
import type { AuthUser } from '../../auth/auth-service.js';
import type { PrismaClient } from '../../db/prisma.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import { FileSource, type ByteSource } from '../../media/byte-source.js';
import { fileNotFound, type EventMediaLocator, type EventRecord, type VideoFile } from './event-media.js';
import type { EventRemuxer, RemuxInput } from './event-remux.js';
import { isMissing } from './recording-cache.js';
import { MP4_FAMILY, type VideoProbe, type VideoProber } from './video-probe.js';

/** How a v3 client should play the event (v3 clients switch to HLS only for `hls`). */
export type PlaybackMode = 'direct' | 'hls' | 'event' | 'mjpeg' | 'none';

export interface EventVideoInfo {
  /**
   * @isLong
   * @minimum 0
   */
  event_id: number;
  /** Codec of the recording's video track: `H264`, `H265` or `Unknown` (also for JPEG-only events). */
  video_codec: 'H264' | 'H265' | 'Unknown';
  /**
   * Video width in pixels (the event's width for JPEG-only events).
   * @isInt
   * @minimum 0
   */
  width: number;
  /**
   * Video height in pixels.
   * @isInt
   * @minimum 0
   */
  height: number;
  /**
   * Seconds: from the recording, else the event's Length (while recording: the last frame's offset).
   * @isDouble
   */
  duration_seconds: number;
  /**
   * Bytes of the recording now (it grows while the event is in progress); 0 without one.
   * @isLong
   * @minimum 0
   */
  file_size: number;
  /** A browser can play the recording directly: H.264 in an MP4 container. */
  playable_direct: boolean;
  /**
   * `direct` (play /stream/video.mp4: H.264 MP4, or a non-MP4 container, which is served as
   * written because HLS is cut from MP4 only), `hls` (play /stream/playlist.m3u8: H.265 MP4), `event` (recording in progress: play /stream/video.mp4, which grows),
   * `mjpeg` (no video, JPEG frames only: play `mjpeg_url` in an <img>), `none` (no media found).
   */
  recommended_mode: PlaybackMode;
  /** The event has no end time yet. */
  in_progress: boolean;
  /** Whether a video recording exists. */
  has_video: boolean;
  /** Container of the recording (`mp4`, `mkv`, `webm`, …); null without one. */
  container: string | null;
  /** The recording is fragmented MP4 (served as is by /stream/video.mp4). */
  fragmented: boolean;
  /**
   * Stored JPEG frames (capture, else analysis images) in the event directory.
   * @isInt
   * @minimum 0
   */
  jpeg_frames: number;
  /** Path of the paced MJPEG stream of the JPEG frames (with `?speed=`), or null without JPEG frames. */
  mjpeg_url: string | null;
}

export interface ServedBody {
  source: ByteSource;
  cacheControl: string;
  /** Offered as the name to save under (Content-Disposition: inline). */
  filename?: string;
}

/** Appends `?token=` to the playlist's URIs (URI lines and URI="…" attributes). */
export function withQueryToken(playlist: string, token: string): string {
  const q = `token=${encodeURIComponent(token)}`;
  const add = (uri: string) => `${uri}${uri.includes('?') ? '&' : '?'}${q}`;
  return playlist
    .split('\n')
    .map((line) =>
      line === ''
        ? line
        : line.startsWith('#')
          ? line.replace(/URI="([^"]*)"/g, (_m, uri: string) => `URI="${add(uri)}"`)
          : add(line),
    )
    .join('\n');
}

/** Closed events never change; an event being recorded changes every second. */
export function cacheControlFor(event: EventRecord): string {
  return event.inProgress ? 'no-cache' : 'private, max-age=86400';
}

/**
 * HLS init and segments: immutable once the event is closed. While it records they are
 * revalidated: the plan of a growing file is not provably a prefix of its final plan (the
 * keyframe tolerance follows the mean frame interval so far, and the index is re-read).
 */
function remuxCacheControl(event: EventRecord): string {
  return event.inProgress ? 'no-cache' : 'private, max-age=31536000, immutable';
}

export class EventPlaybackService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly media: EventMediaLocator,
    private readonly prober: VideoProber,
    private readonly remuxer: EventRemuxer,
  ) {}

  async info(user: AuthUser, id: bigint): Promise<EventVideoInfo> {
    const event = await this.media.event(user, id);
    const video = await this.media.video(event);
    const capture = await this.media.frameNumbers(event, 'capture');
    const jpegFrames = capture.length || (await this.media.frameNumbers(event, 'analyse')).length;
    const base = {
      event_id: Number(event.id),
      in_progress: event.inProgress,
      jpeg_frames: jpegFrames,
      mjpeg_url: jpegFrames ? `/api/v3/events/${event.id}/stream/mjpeg` : null,
    };
    if (!video) {
      return {
        ...base,
        video_codec: 'Unknown',
        width: event.width,
        height: event.height,
        duration_seconds: await this.duration(event, 0),
        file_size: 0,
        playable_direct: false,
        recommended_mode: jpegFrames ? 'mjpeg' : 'none',
        has_video: false,
        container: null,
        fragmented: false,
      };
    }
    const probe = await this.probe(event, video);
    const playable = probe.codec === 'H264' && MP4_FAMILY.has(video.container);
    return {
      ...base,
      video_codec: probe.codec,
      width: probe.width || event.width,
      height: probe.height || event.height,
      duration_seconds: await this.duration(event, probe.durationSeconds),
      file_size: probe.size,
      playable_direct: playable,
      // HLS is cut from MP4 only: other containers can only be offered as they are.
      recommended_mode: event.inProgress ? 'event' : playable || !MP4_FAMILY.has(video.container) ? 'direct' : 'hls',
      has_video: true,
      container: video.container,
      fragmented: probe.mp4?.fragmented ?? false,
    };
  }

  /** GET /video: the recording as written. */
  async original(user: AuthUser, id: bigint): Promise<ServedBody> {
    const { event, video } = await this.recording(user, id);
    // "Save video as" gets <Id>-video.<container> even while the file is incomplete.*.
    return {
      source: await this.open(event, video),
      cacheControl: cacheControlFor(event),
      filename: `${event.id}-video.${video.container}`,
    };
  }

  /** GET /stream/video.mp4 and /stream/media.mp4: fragmented MP4. */
  async fragmented(user: AuthUser, id: bigint): Promise<ServedBody> {
    const input = await this.recording(user, id);
    // Only MP4 can be remuxed; another container (mkv, webm) is served as written, as the
    // reference does, so a browser that plays it still can; so is a file already fragmented.
    const remuxed = MP4_FAMILY.has(input.video.container) ? await this.remuxer.fragmentedMp4(input) : null;
    return {
      source: remuxed ?? (await this.open(input.event, input.video)),
      cacheControl: cacheControlFor(input.event),
    };
  }

  /**
   * The HLS playlist. When the request carried its token as `?token=` (native HLS in Safari,
   * ffmpeg: players that cannot add a header), the segment URIs carry it too; a header-using
   * player (hls.js with xhrSetup) still sends its header, which wins over the query.
   */
  async playlist(user: AuthUser, id: bigint, queryToken?: string): Promise<string> {
    const text = await this.remuxer.vodPlaylist(await this.recording(user, id));
    return queryToken ? withQueryToken(text, queryToken) : text;
  }

  async init(user: AuthUser, id: bigint): Promise<ServedBody> {
    const input = await this.recording(user, id);
    return { source: await this.remuxer.initSegment(input), cacheControl: remuxCacheControl(input.event) };
  }

  async segment(user: AuthUser, id: bigint, seqText: string): Promise<ServedBody> {
    // `N.m4s` as the playlist lists it, or plain `N` as earlier playlists did.
    const m = /^(\d{1,9})(?:\.m4s)?$/.exec(seqText);
    if (!m)
      throw new InvalidInputError('Invalid input', [['seq', 'must be an integer >= 0, optionally followed by .m4s']]);
    const input = await this.recording(user, id);
    const segment = await this.remuxer.mediaSegment(input, Number(m[1]));
    if (!segment) {
      throw new NotFoundError(
        `Segment ${seqText} of event ${id} not found`,
        [
          ['event_id', String(id)],
          ['segment', seqText],
        ],
        'FILE',
      );
    }
    return { source: segment, cacheControl: remuxCacheControl(input.event) };
  }

  /** The visible event and its recording; 404 without one (JPEG-only events say so). */
  private async recording(user: AuthUser, id: bigint): Promise<RemuxInput> {
    const event = await this.media.event(user, id);
    const video = await this.media.video(event);
    if (video) return { event, video };
    const jpegOnly =
      (await this.media.frameNumbers(event, 'capture')).length > 0 ||
      (await this.media.frameNumbers(event, 'analyse')).length > 0;
    throw fileNotFound(
      id,
      jpegOnly ? 'Video file not found: this event has JPEG frames only (play stream/mjpeg)' : 'Video file not found',
    );
  }

  private async probe(event: EventRecord, video: VideoFile): Promise<VideoProbe> {
    try {
      return await this.prober.probe(video);
    } catch (err) {
      // Removed or replaced between lookup and probe (deletion, retention): as good as missing.
      if (isMissing(err) || (err as NodeJS.ErrnoException).syscall)
        throw fileNotFound(event.id, 'Video file not found');
      throw err;
    }
  }

  private async open(event: EventRecord, video: VideoFile): Promise<FileSource> {
    try {
      return await FileSource.open(video.path);
    } catch {
      // Removed or replaced between lookup and open (deletion, retention): as good as missing.
      throw fileNotFound(event.id, 'Video file not found');
    }
  }

  /** The probe's duration, else the event's Length, else (while recording) the last frame's offset. */
  private async duration(event: EventRecord, probed: number): Promise<number> {
    if (probed > 0) return probed;
    if (event.lengthSeconds > 0) return event.lengthSeconds;
    const last = await this.prisma.frames.aggregate({ where: { EventId: event.id }, _max: { Delta: true } });
    return Math.max(0, Number(last._max.Delta ?? 0));
  }
}

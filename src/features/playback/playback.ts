// The playback parts one app shares across requests: the ffmpeg runner (its concurrency bound
// is per process, not per request), the still cache, the open recordings (recording-cache.ts:
// the one cache of open MP4 files, read by the prober and the remuxer), and the seam for
// native work: the EventRemuxer (NativeRemuxer: demuxer + fMP4 remux, with the segment cache).
// Controllers and the media routes get them with playbackFor(), from the app's registry.
import type { Services } from '../../registry.js';
import { DEFAULT_FFMPEG_OPTIONS, FfmpegRunner } from '../../media/ffmpeg.js';
import { StillCache } from '../../media/still-cache.js';
import { PacedMjpegStreams } from '../../media/mjpeg.js';
import { mjpegQueueBound } from '../../media/mjpeg-response.js';
import { EventMediaLocator } from './event-media.js';
import { EventMjpeg } from './event-mjpeg.js';
import { EventPlaybackService } from './event-playback-service.js';
import type { EventRemuxer } from './event-remux.js';
import { NativeRemuxer } from './native-remuxer.js';
import { SegmentCache } from '../../media/segment-cache.js';
import { EventStills } from './event-stills.js';
import { RecordingCache } from './recording-cache.js';
import { VideoProber } from './video-probe.js';

export interface Playback {
  media: EventMediaLocator;
  videos: EventPlaybackService;
  stills: EventStills;
  mjpeg: EventMjpeg;
  /** The open paced MJPEG responses. */
  paced: PacedMjpegStreams;
  runner: FfmpegRunner;
  cache: StillCache;
  remuxer: EventRemuxer;
  /** HLS VOD segments held in memory (budget: playback.segment_cache_bytes). */
  segments: SegmentCache;
}

export interface PlaybackParts {
  remuxer: EventRemuxer;
  runner: FfmpegRunner;
  cache: StillCache;
  segments: SegmentCache;
}

/** Stills kept in memory: 32 MiB in all, nothing over 1 MiB. */
export const STILL_CACHE_BYTES = 32 << 20;
export const STILL_MAX_ENTRY_BYTES = 1 << 20;

export function createPlayback(services: Services, parts: Partial<PlaybackParts> = {}): Playback {
  const runner = parts.runner ?? new FfmpegRunner(DEFAULT_FFMPEG_OPTIONS);
  const cache = parts.cache ?? new StillCache(STILL_CACHE_BYTES, STILL_MAX_ENTRY_BYTES);
  const segments = parts.segments ?? new SegmentCache(services.config.playback.segment_cache_bytes);
  const recordings = new RecordingCache(services.log);
  const remuxer = parts.remuxer ?? new NativeRemuxer(recordings, segments, services.log);
  const media = new EventMediaLocator(
    services.prisma,
    services.acl,
    services.config.zoneminder.dir_events,
    services.log,
  );
  const prober = new VideoProber(recordings, runner, services.log);
  const playback: Playback = {
    media,
    videos: new EventPlaybackService(services.prisma, media, prober, remuxer),
    stills: new EventStills(services.prisma, media, runner, prober, cache, services.log),
    mjpeg: new EventMjpeg(services.prisma, media),
    paced: new PacedMjpegStreams(mjpegQueueBound(services.config.streaming.mjpeg), services.log),
    runner,
    cache,
    remuxer,
    segments,
  };
  return playback;
}

/** The app's playback parts in the registry, built with the defaults on first use (tests provide their own). */
export const AppPlayback = { from: (services: Services): Playback => createPlayback(services) };

/** The app's playback parts. */
export function playbackFor(services: Services): Playback {
  return services.get(AppPlayback);
}

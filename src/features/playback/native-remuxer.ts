// The EventRemuxer of the native MP4 demuxer (src/native/mp4-file.ts): recordings re-cut into
// fragmented MP4 without re-encoding, read from the open recordings (recording-cache.ts).
//   video.mp4 / media.mp4  the whole recording, init + a fragment per GOP, with an exact size
//                          computed from the index, so byte ranges work and nothing is built
//                          ahead of the client (src/media/remux-source.ts)
//   playlist.m3u8          HLS of ~4 s segments cut at keyframes: VOD with ENDLIST for a closed
//                          event; for an event in progress (the growing fragmented
//                          `incomplete.*.mp4` of ZoneMinder 1.39) an EVENT playlist without
//                          ENDLIST and without the last, still growing, segment; players reload
//                          it and find the new segments (numbering never changes as the file grows)
//   init.mp4, segment/N.m4s  from the same plan; segments go through the byte-budgeted SegmentCache.
//                          The URIs end in a media extension because FFmpeg-based players (its
//                          HLS demuxer checks allowed_segment_extensions) refuse others;
//                          `segment/N` without one is still answered.
// Only MP4-family files are read; the demuxer's refusals become 404s that say why.
import { NotFoundError, ServiceUnavailableError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { BufferSource, type ByteSource } from '../../media/byte-source.js';
import { RemuxSource } from '../../media/remux-source.js';
import type { SegmentCache } from '../../media/segment-cache.js';
import { ZmNativeError } from '../../native/errors.js';
import { loadBinding } from '../../native/load.js';
import { fileNotFound } from './event-media.js';
import type { EventRemuxer, RemuxInput } from './event-remux.js';
import { isMissing, type Lease, type RecordingCache } from './recording-cache.js';
import { MP4_FAMILY } from './video-probe.js';

const UNPLAYABLE_CODES = new Set(['ERR_ZM_MP4_FORMAT', 'ERR_ZM_MP4_NO_VIDEO']);

/** Seconds with three decimals, as EXTINF carries them. */
const seconds = (us: number) => (us / 1e6).toFixed(3);

export class NativeRemuxer implements EventRemuxer {
  constructor(
    readonly recordings: RecordingCache,
    readonly segments: SegmentCache,
    private readonly log?: Logger,
  ) {}

  async fragmentedMp4(input: RemuxInput): Promise<ByteSource | null> {
    const lease = await this.open(input);
    try {
      const rec = lease.recording;
      if (rec.file.fragmented) {
        lease.release();
        return null;
      }
      const layout = await rec.layout();
      return new RemuxSource(
        layout,
        {
          init: () => rec.file.vodInit(),
          fragment: (i) => rec.file.remuxFragment(i),
          mismatch: (index, expected, actual) => {
            rec.distrustPrediction();
            this.log?.error(
              { event_id: String(input.event.id), fragment: index, expected, actual },
              'remux fragment size differs from its layout; measuring this file from now on',
            );
          },
          release: () => lease.release(),
        },
        `"fmp4-${rec.version}"`,
        rec.mtime,
      );
    } catch (err) {
      lease.release();
      throw this.translate(input, err);
    }
  }

  async vodPlaylist(input: RemuxInput): Promise<string> {
    const { plan, release } = await this.plan(input);
    release();
    const lines = ['#EXTM3U', '#EXT-X-VERSION:7'];
    const longest = plan.reduce((m, s) => Math.max(m, s.durationUs), 0) / 1e6;
    lines.push(`#EXT-X-TARGETDURATION:${Math.ceil(Math.max(4, longest))}`);
    lines.push(`#EXT-X-PLAYLIST-TYPE:${input.event.inProgress ? 'EVENT' : 'VOD'}`);
    lines.push('#EXT-X-INDEPENDENT-SEGMENTS', '#EXT-X-MAP:URI="init.mp4"');
    for (const s of plan) lines.push(`#EXTINF:${seconds(s.durationUs)},`, `segment/${s.index}.m4s`);
    if (!input.event.inProgress) lines.push('#EXT-X-ENDLIST');
    return `${lines.join('\n')}\n`;
  }

  async initSegment(input: RemuxInput): Promise<ByteSource> {
    const lease = await this.open(input);
    try {
      return new BufferSource(
        lease.recording.file.vodInit(),
        'video/mp4',
        `"init-${lease.recording.version}"`,
        lease.recording.mtime,
      );
    } catch (err) {
      throw this.translate(input, err);
    } finally {
      lease.release();
    }
  }

  async mediaSegment(input: RemuxInput, seq: number): Promise<ByteSource | null> {
    const { plan, lease, release } = await this.plan(input);
    try {
      if (seq >= plan.length) return null;
      const rec = lease.recording;
      // A growing file changes version every second: its segments are not worth keeping.
      const data = input.event.inProgress
        ? await rec.file.vodSegment(seq)
        : await this.segments.getOrMake(`${rec.version}|${input.video.path}|${seq}`, () => rec.file.vodSegment(seq));
      return new BufferSource(data, 'video/mp4', `"seg-${rec.version}-${seq}"`, rec.mtime);
    } catch (err) {
      throw this.translate(input, err);
    } finally {
      release();
    }
  }

  /** The segments a player may fetch: all of a closed event's; an event in progress's but the last. */
  private async plan(input: RemuxInput) {
    const lease = await this.open(input);
    try {
      const all = lease.recording.vodPlan();
      const plan = input.event.inProgress ? all.slice(0, -1) : all;
      return { plan, lease, release: () => lease.release() };
    } catch (err) {
      lease.release();
      throw this.translate(input, err);
    }
  }

  private async open(input: RemuxInput): Promise<Lease> {
    if (!MP4_FAMILY.has(input.video.container)) {
      throw unplayable(
        input,
        `Only MP4 recordings can be streamed; this one is ${input.video.container} (download it from /video)`,
      );
    }
    try {
      loadBinding();
    } catch (err) {
      // A deployment without a loadable zmgate.node: everything else keeps working.
      this.log?.error({ err: (err as Error).message }, 'remux unavailable: the native addon cannot be loaded');
      throw new ServiceUnavailableError('Remux not available: the native media addon cannot be loaded', [
        ['event_id', String(input.event.id)],
        ['reason', 'native addon not loaded'],
      ]);
    }
    try {
      return await this.recordings.acquire(input.video.path);
    } catch (err) {
      throw this.translate(input, err);
    }
  }

  private translate(input: RemuxInput, err: unknown): unknown {
    if (isMissing(err)) return fileNotFound(input.event.id, 'Video file not found');
    if (!(err instanceof ZmNativeError)) return err;
    if (err.code === 'ERR_ZM_MP4_NO_MOOV')
      return unplayable(input, 'The recording has no index yet (still being written): try again when the event ends');
    if (UNPLAYABLE_CODES.has(err.code))
      return unplayable(input, 'The recording has no H.264/H.265 video that can be streamed (download it from /video)');
    return err;
  }
}

function unplayable(input: RemuxInput, reason: string): NotFoundError {
  return new NotFoundError(
    reason,
    [
      ['event_id', String(input.event.id)],
      ['reason', reason],
    ],
    'FILE',
  );
}

// Codec, size, duration and layout of a recording, for /info and the stills. An MP4-family
// file's come from its open recording (recording-cache.ts: the index the stream routes read
// too, so the file is parsed once per version); Matroska/WebM/AVI, and an MP4 the demuxer
// cannot read (no moov yet, damaged, no addon), go to ffprobe through the bounded runner, kept
// per file version.
import type { Logger } from '../../log.js';
import { fileStats, fileVersion } from '../../media/byte-source.js';
import { FfmpegError, type FfmpegRunner } from '../../media/ffmpeg.js';
import type { VideoFile } from './event-media.js';
import { isMissing, type Mp4Info, type RecordingCache, type VideoCodec } from './recording-cache.js';

export interface VideoProbe {
  codec: VideoCodec;
  width: number;
  height: number;
  /** 0 when the file does not say. */
  durationSeconds: number;
  /** The MP4 facts (MP4-family files the demuxer reads); null otherwise. */
  mp4: Mp4Info | null;
  /** Bytes, fileVersion() and mtime of the file that was probed. */
  size: number;
  version: string;
  mtime: Date;
}

export const MP4_FAMILY = new Set(['mp4', 'm4v', 'mov']);
const MAX_ENTRIES = 2000;

type Probed = Pick<VideoProbe, 'codec' | 'width' | 'height' | 'durationSeconds'>;
const UNKNOWN: Probed = { codec: 'Unknown', width: 0, height: 0, durationSeconds: 0 };

export class VideoProber {
  /** ffprobe's answers by path and version (MP4 recordings keep theirs in the RecordingCache). */
  private readonly cache = new Map<string, Probed>();

  constructor(
    private readonly recordings: RecordingCache,
    private readonly runner: FfmpegRunner,
    private readonly log: Logger,
  ) {}

  /** @throws when the file is gone or cannot be opened (isMissing(), or fileStats()'s error). */
  async probe(video: VideoFile): Promise<VideoProbe> {
    if (MP4_FAMILY.has(video.container)) {
      // What the demuxer refuses (no moov yet, damaged, no addon) is ffprobe's; a gone file is not.
      const lease = await this.recordings.acquire(video.path).catch((err: unknown) => {
        if (isMissing(err)) throw err;
        return null;
      });
      if (lease) {
        const { file, probe, version, mtime } = lease.recording;
        lease.release();
        const { codec, width, height, durationSeconds } = probe;
        return { codec, width, height, durationSeconds, mp4: probe, size: file.size, version, mtime };
      }
    }
    const st = await fileStats(video.path);
    const version = fileVersion(st);
    const key = `${video.path}\0${version}`;
    let probed = this.cache.get(key);
    if (!probed) {
      probed = await this.ffprobe(video.path);
      if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, probed);
    }
    return { ...probed, mp4: null, size: st.size, version, mtime: st.mtime };
  }

  private async ffprobe(file: string): Promise<Probed> {
    try {
      const out = await this.runner.ffprobe([
        '-select_streams',
        'v:0',
        '-show_entries',
        'stream=codec_name,width,height:format=duration',
        '-of',
        'json',
        `file:${file}`,
      ]);
      const json = JSON.parse(out.toString()) as {
        streams?: Array<{ codec_name?: string; width?: number; height?: number }>;
        format?: { duration?: string };
      };
      const s = json.streams?.[0];
      if (!s) return UNKNOWN;
      const duration = Number(json.format?.duration);
      return {
        codec: s.codec_name === 'h264' ? 'H264' : s.codec_name === 'hevc' ? 'H265' : 'Unknown',
        width: s.width ?? 0,
        height: s.height ?? 0,
        durationSeconds: Number.isFinite(duration) && duration > 0 ? Math.round(duration * 1000) / 1000 : 0,
      };
    } catch (err) {
      if (!(err instanceof FfmpegError) && !(err instanceof SyntaxError)) throw err;
      this.log.warn({ file, err: { message: err.message } }, 'ffprobe of a recording failed');
      return UNKNOWN;
    }
  }
}

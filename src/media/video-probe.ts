// Codec, size, duration and layout of a recording, for /info and the stream routes. MP4-family
// files are read at box level (mp4-probe.ts: no child process, cheap enough for every request of
// a seeking player); Matroska/WebM/AVI go to ffprobe through the bounded runner. Results are kept
// per file identity (path, inode, size, mtime), so a growing in-progress file is probed afresh.
import type { Stats } from 'node:fs';
import type { Logger } from '../log.js';
import { FfmpegError, type FfmpegRunner } from './ffmpeg.js';
import { probeMp4File, type Mp4Info, type VideoCodec } from './mp4-probe.js';

export interface VideoProbe {
  codec: VideoCodec;
  width: number;
  height: number;
  /** 0 when the file does not say. */
  durationSeconds: number;
  /** The MP4 box probe (MP4-family files that parse); null otherwise. */
  mp4: Mp4Info | null;
}

export const MP4_FAMILY = new Set(['mp4', 'm4v', 'mov']);
const MAX_ENTRIES = 2000;
const UNKNOWN: VideoProbe = { codec: 'Unknown', width: 0, height: 0, durationSeconds: 0, mp4: null };

export class VideoProber {
  private readonly cache = new Map<string, VideoProbe>();

  constructor(
    private readonly runner: FfmpegRunner,
    private readonly log: Logger,
  ) {}

  async probe(file: string, container: string, stats: Pick<Stats, 'ino' | 'size' | 'mtimeMs'>): Promise<VideoProbe> {
    const key = `${file}\0${stats.ino}\0${stats.size}\0${stats.mtimeMs}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const result = await this.probeUncached(file, container);
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, result);
    return result;
  }

  private async probeUncached(file: string, container: string): Promise<VideoProbe> {
    if (MP4_FAMILY.has(container)) {
      const mp4 = await probeMp4File(file).catch(() => null);
      if (mp4)
        return { codec: mp4.codec, width: mp4.width, height: mp4.height, durationSeconds: mp4.durationSeconds, mp4 };
    }
    return this.ffprobe(file);
  }

  private async ffprobe(file: string): Promise<VideoProbe> {
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
        mp4: null,
      };
    } catch (err) {
      if (!(err instanceof FfmpegError) && !(err instanceof SyntaxError)) throw err;
      this.log.warn({ file, err: { message: err.message } }, 'ffprobe of a recording failed');
      return UNKNOWN;
    }
  }
}

// Open recordings: the one owner of "this MP4 file at this version". A version is the file's
// inode, size and mtime, taken with one lstat per request (fileStats: a symlink swapped in is
// missing); each version is one Mp4File (its sample index, parsed once), shared by concurrent
// requests and kept for the next ones (a player asks for /info, the playlist, init and
// segments, or for many byte ranges, in quick succession). The probe /info and the stills need
// comes from that same index. A file that changed (a recording in progress grew) is a new
// version, opened anew. Leases count users: an evicted recording closes when its last download
// ends, never under one.
import type { Logger } from '../../log.js';
import { fileStats, fileVersion } from '../../media/byte-source.js';
import { layoutOf, predictRemuxLayout, type RemuxLayout } from '../../media/remux-layout.js';
import { Mp4File, type VodSegmentInfo } from '../../native/mp4-file.js';

export type VideoCodec = 'H264' | 'H265' | 'Unknown';

/** What /events/{id}/info and the stills need to know about an MP4 recording. */
export interface Mp4Info {
  /** moov has an mvex box: the media is in moof/mdat fragments. */
  fragmented: boolean;
  codec: VideoCodec;
  /** The sample entry type of the first video track (e.g. `avc1`), null without one. */
  sampleEntry: string | null;
  width: number;
  height: number;
  /** Seconds; 0 for a fragmented file (see probeOf). */
  durationSeconds: number;
  hasAudio: boolean;
  /** The video track's tkhd matrix is not the identity (a rotation or flip tag). */
  displayMatrix: boolean;
}

const MISSING = new Set(['ENOENT', 'ERR_ZM_MP4_NOT_FOUND', 'ERR_ZM_MP4_NOT_A_FILE', 'ERR_ZM_MP4_PERMISSION']);

/** acquire() failed because the file is gone or cannot be opened, not because of what it holds. */
export function isMissing(err: unknown): boolean {
  return MISSING.has((err as { code?: unknown } | undefined)?.code as string);
}

const CODECS: Partial<Record<string, VideoCodec>> = { h264: 'H264', h265: 'H265' };
/** The identity matrix of tkhd: {1,0,0, 0,1,0, 0,0,1} in 16.16 / 2.30 fixed point. */
const IDENTITY = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000];

/** The probe of an open file, from its index (the first video track). */
export function probeOf(file: Mp4File): Mp4Info {
  const video = file.tracks.find((t) => t.kind === 'video');
  return {
    fragmented: file.fragmented,
    codec: (video && CODECS[video.codec]) ?? 'Unknown',
    sampleEntry: video?.sampleEntry ?? null,
    width: video?.width ?? 0,
    height: video?.height ?? 0,
    // A fragmented file's header carries no duration and its index only the fragments written so
    // far: the event's Length (or, while recording, its last frame row) says more.
    durationSeconds: video && !file.fragmented ? Math.round(video.durationUs / 1000) / 1000 : 0,
    hasAudio: file.tracks.some((t) => t.kind === 'audio'),
    displayMatrix: video ? video.matrix.some((v, i) => v !== IDENTITY[i]) : false,
  };
}

export const VOD_TARGET_SEC = 4;
// Each open recording holds its native index (~65 bytes a sample: ~18 MB for one hour of
// 1080p30 with AAC); typical events are minutes long and far smaller.
const MAX_OPEN = 8;

export class Recording {
  private layoutJob: Promise<RemuxLayout> | undefined;
  private trusted = true;
  private vodPlanCache: VodSegmentInfo[] | undefined;
  private probeCache: Mp4Info | undefined;
  refs = 0;
  evicted = false;

  constructor(
    readonly file: Mp4File,
    /** fileVersion() of the file when opened. */
    readonly version: string,
    readonly mtime: Date,
  ) {}

  get probe(): Mp4Info {
    return (this.probeCache ??= probeOf(this.file));
  }

  /** The byte layout of file.remux(): predicted from the index, or measured when the prediction cannot be trusted. */
  layout(): Promise<RemuxLayout> {
    if (!this.layoutJob) {
      const job = this.computeLayout();
      this.layoutJob = job;
      // A failure (a read error, a file cut short under us) is not kept: the next request retries.
      job.catch(() => {
        if (this.layoutJob === job) this.layoutJob = undefined;
      });
    }
    return this.layoutJob;
  }

  /** A produced fragment did not match the prediction: measure from now on. */
  distrustPrediction(): void {
    this.trusted = false;
    this.layoutJob = undefined;
  }

  /** HLS VOD segments (~4 s, cut at keyframes). */
  vodPlan(): VodSegmentInfo[] {
    return (this.vodPlanCache ??= this.file.vodSegments(VOD_TARGET_SEC));
  }

  private async computeLayout(): Promise<RemuxLayout> {
    const plan = this.file.remuxPlan();
    const init = this.file.vodInit().length;
    if (this.trusted) {
      const predicted = predictRemuxLayout(this.file, plan, init, await this.adtsAudio());
      this.file.releaseSampleTable(); // the layout is all that is kept
      if (predicted) return predicted;
    }
    // Outside the model: mux every fragment once and keep only their sizes.
    const sizes: number[] = [];
    for (let i = 0; i < plan.length; i++) sizes.push((await this.file.remuxFragment(i)).length);
    return layoutOf(init, sizes);
  }

  /** AAC stored with ADTS headers (the muxer strips them, so sizes change). */
  private async adtsAudio(): Promise<boolean> {
    const track = this.file.vod?.audioTrack;
    if (track === undefined || this.file.tracks[track]?.codec !== 'aac' || !this.file.tracks[track]?.sampleCount)
      return false;
    const b = await this.file.readSample({ track, index: 0 });
    return b.length >= 7 && b[0] === 0xff && (b[1] & 0xf6) === 0xf0;
  }
}

export interface Lease {
  recording: Recording;
  release(): void;
}

export class RecordingCache {
  private readonly open = new Map<string, Promise<Recording>>(); // LRU order

  constructor(private readonly log?: Logger) {}

  /** The recording at `path` (a real path already checked to lie in the event directory). */
  async acquire(path: string): Promise<Lease> {
    const st = await fileStats(path);
    const version = fileVersion(st);
    // Keyed by version: a grown file is a new entry; the old one ages out of the LRU.
    const key = `${version}:${path}`;
    let entry = this.open.get(key);
    if (entry) {
      this.open.delete(key);
    } else {
      entry = Mp4File.open(path).then((file) => new Recording(file, version, st.mtime));
      entry.catch(() => this.open.get(key) === entry && this.open.delete(key));
      // A recording in progress grows every second: its older versions go at once instead of
      // pushing other events out of the LRU (leases still reading them keep them open).
      for (const [k, old] of this.open) {
        if (k.slice(k.indexOf(':') + 1) === path) {
          this.open.delete(k);
          void old.then(
            (rec) => this.retire(rec),
            () => undefined,
          );
        }
      }
    }
    this.open.set(key, entry);
    this.trim();
    const rec = await entry;
    if (rec.evicted) return this.acquire(path); // trimmed while opening
    rec.refs++;
    let released = false;
    return {
      recording: rec,
      release: () => {
        if (released) return;
        released = true;
        rec.refs--;
        if (rec.evicted && rec.refs === 0) rec.file.close();
      },
    };
  }

  /** Closes every recording not in use (tests, shutdown). */
  clear(): void {
    for (const entry of this.open.values())
      void entry.then(
        (rec) => this.retire(rec),
        () => undefined,
      );
    this.open.clear();
  }

  private trim(): void {
    while (this.open.size > MAX_OPEN) {
      const [path, entry] = this.open.entries().next().value as [string, Promise<Recording>];
      this.open.delete(path);
      void entry.then(
        (rec) => this.retire(rec),
        () => undefined,
      );
    }
  }

  /** No longer handed out: closes now, or when its last lease is released. */
  private retire(rec: Recording): void {
    if (rec.evicted) return;
    rec.evicted = true;
    if (rec.refs === 0) rec.file.close();
    this.log?.debug({ version: rec.version }, 'remux recording retired');
  }
}

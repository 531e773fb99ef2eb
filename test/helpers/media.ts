// Real media for native tests, made by ffmpeg and cached across runs and test processes.
//
// One ffmpeg run encodes testsrc (+ a sine tone) into a .mov, the reference file; the video is
// then copied out as an Annex B elementary stream (ffmpeg inserts SPS/PPS before keyframes, as an
// RTSP camera delivers them) and the audio as ADTS AAC or raw µ-law. ffprobe gives the per-packet
// timing and flags from the .mov and the access-unit boundaries (pos/size) in the elementary
// stream; both lists are in decode order, so they zip one to one.
//
// Cache: <tmpdir>/zmgate-media-cache/<sha256 of the commands + ffmpeg version>/ with index.json;
// built in a temporary directory and renamed into place, so parallel test processes are safe.

import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CACHE_VERSION = 1; // bump when the layout below changes

export type VideoProfile = 'h264-baseline' | 'h264-high' | 'h264-high-bframes' | 'h265';
export type AudioKind = 'aac' | 'pcmu';

export interface ClipSpec {
  video: VideoProfile;
  audio?: AudioKind;
  width?: number; // default 640
  height?: number; // default 360
  fps?: number; // default 30
  seconds?: number; // default 2
  /** e.g. "4M"; default: the encoder's CRF default */
  bitrate?: string;
  gopFrames?: number; // default fps (one keyframe per second)
  /** Temporal noise over testsrc, so the encoder actually reaches `bitrate` (camera-like sizes). */
  noise?: boolean;
}

export interface MediaFrame {
  /** Microseconds from the clip start (the .mov timeline; B-frame dts may be negative). */
  ptsUs: number;
  dtsUs: number;
  keyframe: boolean;
  /** Video: one Annex B access unit; AAC: one raw frame (ADTS header removed); PCMU: one packet. */
  data: Buffer;
}

export interface MediaTrack {
  codec: 'h264' | 'h265' | 'aac' | 'pcmu';
  /** FFmpeg AVCodecID, as a stream-socket HELLO carries it. */
  codecId: number;
  /** Video: SPS/PPS(/VPS) in Annex B (as from RTSP sprop-parameter-sets); AAC: AudioSpecificConfig. */
  extradata: Buffer;
  frames: MediaFrame[];
  width?: number;
  height?: number;
  sampleRate?: number;
  channels?: number;
  /** ffprobe's view of the reference file. */
  probe: { codecName: string; profile?: string; level?: number; frames: number; durationUs: number };
}

export interface MediaClip {
  spec: Required<Omit<ClipSpec, 'audio' | 'bitrate'>> & Pick<ClipSpec, 'audio' | 'bitrate'>;
  /** The reference .mov. */
  file: string;
  video: MediaTrack;
  audio?: MediaTrack;
}

interface IndexFrame {
  ptsUs: number;
  dtsUs: number;
  keyframe: boolean;
  offset: number;
  size: number;
}
interface IndexTrack extends Omit<MediaTrack, 'frames' | 'extradata'> {
  file: string;
  extradata: string; // hex
  frames: IndexFrame[];
}
interface Index {
  video: IndexTrack;
  audio?: IndexTrack;
}

const CODEC_IDS = { h264: 27, h265: 173, aac: 86018, pcmu: 65542 } as const;

function videoArgs(s: MediaClip['spec']): string[] {
  const common = [
    '-g',
    String(s.gopFrames),
    '-pix_fmt',
    'yuv420p',
    ...(s.bitrate ? ['-b:v', s.bitrate, '-maxrate', s.bitrate, '-bufsize', s.bitrate] : []),
  ];
  switch (s.video) {
    case 'h264-baseline':
      return ['-c:v', 'libx264', '-profile:v', 'baseline', '-bf', '0', ...common];
    case 'h264-high':
      return ['-c:v', 'libx264', '-profile:v', 'high', '-bf', '0', ...common];
    case 'h264-high-bframes':
      return ['-c:v', 'libx264', '-profile:v', 'high', '-bf', '2', '-b_strategy', '0', ...common];
    case 'h265':
      return ['-c:v', 'libx265', '-tag:v', 'hvc1', '-x265-params', 'log-level=none:bframes=0', ...common];
  }
}

function audioArgs(kind: AudioKind): string[] {
  return kind === 'aac'
    ? ['-c:a', 'aac', '-b:a', '64k', '-ar', '48000', '-ac', '2']
    : ['-c:a', 'pcm_mulaw', '-ar', '8000', '-ac', '1'];
}

async function ffmpegVersion(): Promise<string> {
  const { stdout } = await run('ffmpeg', ['-version']);
  return stdout.split('\n')[0] ?? '';
}

function normalise(spec: ClipSpec): MediaClip['spec'] {
  const fps = spec.fps ?? 30;
  return {
    video: spec.video,
    audio: spec.audio,
    width: spec.width ?? 640,
    height: spec.height ?? 360,
    fps,
    seconds: spec.seconds ?? 2,
    bitrate: spec.bitrate,
    gopFrames: spec.gopFrames ?? fps,
    noise: spec.noise ?? false,
  };
}

interface ProbePacket {
  stream_index: number;
  pts?: number;
  dts?: number;
  flags: string;
  size: string;
  pos?: string;
}

async function probePackets(file: string, format?: string): Promise<ProbePacket[]> {
  const args = [
    '-v',
    'error',
    ...(format ? ['-f', format] : []),
    '-show_entries',
    'packet=stream_index,pts,dts,flags,size,pos',
    '-of',
    'json',
    file,
  ];
  const { stdout } = await run('ffprobe', args, { maxBuffer: 256 << 20 });
  return (JSON.parse(stdout) as { packets: ProbePacket[] }).packets;
}

interface ProbeStream {
  index: number;
  codec_name: string;
  codec_type: string;
  profile?: string;
  level?: number;
  width?: number;
  height?: number;
  sample_rate?: string;
  channels?: number;
  time_base: string;
}

async function probeStreams(file: string): Promise<ProbeStream[]> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream', '-of', 'json', file]);
  return (JSON.parse(stdout) as { streams: ProbeStream[] }).streams;
}

function timeBaseUs(tb: string): (t: number) => number {
  const [num, den] = tb.split('/').map(Number);
  return (t) => Math.round((t * num * 1e6) / den);
}

/** Annex B NAL units of a buffer (start codes removed). */
export function splitAnnexB(data: Buffer): Buffer[] {
  const starts: number[] = [];
  for (let i = 0; i + 2 < data.length; i++) {
    if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 1) {
      starts.push(i + 3);
      i += 2;
    }
  }
  return starts.map((s, k) => {
    let end = k + 1 < starts.length ? starts[k + 1] - 3 : data.length;
    while (end > s && data[end - 1] === 0) end--;
    return data.subarray(s, end);
  });
}

function parameterSets(codec: 'h264' | 'h265', au: Buffer): Buffer {
  const wanted = codec === 'h264' ? [7, 8] : [32, 33, 34];
  const nals = splitAnnexB(au).filter((n) => wanted.includes(codec === 'h264' ? n[0] & 0x1f : (n[0] >> 1) & 0x3f));
  return Buffer.concat(nals.flatMap((n) => [Buffer.from([0, 0, 0, 1]), n]));
}

// ASC from an ADTS header: 5 bits object type, 4 bits rate index, 4 bits channel config.
function adtsToAsc(h: Buffer): Buffer {
  const objectType = (h[2] >> 6) + 1;
  const rateIndex = (h[2] >> 2) & 0x0f;
  const channels = ((h[2] & 1) << 2) | (h[3] >> 6);
  const v = (objectType << 11) | (rateIndex << 7) | (channels << 3);
  return Buffer.from([v >> 8, v & 0xff]);
}

async function build(spec: MediaClip['spec'], dir: string): Promise<Index> {
  const mov = join(dir, 'clip.mov');
  const source = `testsrc=size=${spec.width}x${spec.height}:rate=${spec.fps}${spec.noise ? ',noise=alls=20:allf=t+u' : ''}`;
  const inputs = ['-f', 'lavfi', '-i', source];
  if (spec.audio)
    inputs.push('-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=${spec.audio === 'aac' ? 48000 : 8000}`);
  await run('ffmpeg', [
    '-v',
    'error',
    '-y',
    ...inputs,
    '-t',
    String(spec.seconds),
    '-map',
    '0:v',
    ...(spec.audio ? ['-map', '1:a'] : []),
    ...videoArgs(spec),
    ...(spec.audio ? audioArgs(spec.audio) : []),
    mov,
  ]);
  const vcodec = spec.video === 'h265' ? 'h265' : 'h264';
  const esFormat = vcodec === 'h265' ? 'hevc' : 'h264';
  await run('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-i',
    mov,
    '-map',
    '0:v',
    '-c',
    'copy',
    '-f',
    esFormat,
    join(dir, 'video.es'),
  ]);
  if (spec.audio) {
    const fmt = spec.audio === 'aac' ? 'adts' : 'mulaw';
    await run('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-i',
      mov,
      '-map',
      '0:a',
      '-c',
      'copy',
      '-f',
      fmt,
      join(dir, 'audio.raw'),
    ]);
  }

  const streams = await probeStreams(mov);
  const packets = await probePackets(mov);
  const vs = streams.find((s) => s.codec_type === 'video')!;
  const vToUs = timeBaseUs(vs.time_base);
  const vPackets = packets.filter((p) => p.stream_index === vs.index);
  const esPackets = await probePackets(join(dir, 'video.es'), esFormat);
  if (esPackets.length !== vPackets.length) {
    throw new Error(
      `media helper: ${esPackets.length} access units in the elementary stream, ${vPackets.length} packets in the .mov`,
    );
  }
  const es = await readFile(join(dir, 'video.es'));
  const vFrames: IndexFrame[] = vPackets.map((p, i) => ({
    ptsUs: vToUs(p.pts ?? 0),
    dtsUs: vToUs(p.dts ?? p.pts ?? 0),
    keyframe: p.flags.startsWith('K'),
    offset: Number(esPackets[i].pos),
    size: Number(esPackets[i].size),
  }));
  const first = es.subarray(vFrames[0].offset, vFrames[0].offset + vFrames[0].size);
  const lastV = vFrames.reduce((a, f) => Math.max(a, f.ptsUs), 0);
  const index: Index = {
    video: {
      codec: vcodec,
      codecId: CODEC_IDS[vcodec],
      file: 'video.es',
      extradata: parameterSets(vcodec, first).toString('hex'),
      width: vs.width,
      height: vs.height,
      frames: vFrames,
      probe: {
        codecName: vs.codec_name,
        profile: vs.profile,
        level: vs.level,
        frames: vFrames.length,
        durationUs: lastV - Math.min(...vFrames.map((f) => f.ptsUs)) + Math.round(1e6 / spec.fps),
      },
    },
  };

  if (spec.audio) {
    const as = streams.find((s) => s.codec_type === 'audio')!;
    const aToUs = timeBaseUs(as.time_base);
    const aPackets = packets.filter((p) => p.stream_index === as.index);
    const raw = await readFile(join(dir, 'audio.raw'));
    const frames: IndexFrame[] = [];
    let extradata = '';
    let pos = 0;
    for (const p of aPackets) {
      let size = Number(p.size);
      let offset = pos;
      if (spec.audio === 'aac') {
        // ADTS frame: 13-bit frame_length covers header + payload; keep the payload only.
        const length = ((raw[pos + 3] & 3) << 11) | (raw[pos + 4] << 3) | (raw[pos + 5] >> 5);
        const header = raw[pos + 1] & 1 ? 7 : 9;
        if (!extradata) extradata = adtsToAsc(raw.subarray(pos, pos + 7)).toString('hex');
        offset = pos + header;
        size = length - header;
        pos += length;
      } else {
        pos += size;
      }
      frames.push({ ptsUs: aToUs(p.pts ?? 0), dtsUs: aToUs(p.dts ?? p.pts ?? 0), keyframe: true, offset, size });
    }
    index.audio = {
      codec: spec.audio,
      codecId: CODEC_IDS[spec.audio],
      file: 'audio.raw',
      extradata,
      sampleRate: Number(as.sample_rate),
      channels: as.channels,
      frames,
      probe: { codecName: as.codec_name, frames: frames.length, durationUs: 0 },
    };
  }
  return index;
}

async function loadTrack(dir: string, t: IndexTrack): Promise<MediaTrack> {
  const bytes = await readFile(join(dir, t.file));
  const { file: _file, frames, extradata, ...rest } = t;
  return {
    ...rest,
    extradata: Buffer.from(extradata, 'hex'),
    frames: frames.map((f) => ({
      ptsUs: f.ptsUs,
      dtsUs: f.dtsUs,
      keyframe: f.keyframe,
      data: bytes.subarray(f.offset, f.offset + f.size),
    })),
  };
}

/** The clip for `spec`, generated on first use and cached. */
export async function mediaClip(spec: ClipSpec): Promise<MediaClip> {
  const s = normalise(spec);
  const key = createHash('sha256')
    .update(
      JSON.stringify({
        v: CACHE_VERSION,
        s,
        video: videoArgs(s),
        audio: s.audio ? audioArgs(s.audio) : null,
        ffmpeg: await ffmpegVersion(),
      }),
    )
    .digest('hex')
    .slice(0, 24);
  const root = join(process.env.ZMGATE_MEDIA_CACHE ?? join(tmpdir(), 'zmgate-media-cache'));
  const dir = join(root, key);
  if (!existsSync(join(dir, 'index.json'))) {
    const tmp = join(root, `${key}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    await mkdir(tmp, { recursive: true });
    try {
      await writeFile(join(tmp, 'index.json'), JSON.stringify(await build(s, tmp)));
      await rename(tmp, dir).catch(async (err: NodeJS.ErrnoException) => {
        // Another process won the race: its copy is identical.
        if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
        await rm(tmp, { recursive: true, force: true });
      });
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      throw err;
    }
  }
  const index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8')) as Index;
  return {
    spec: s,
    file: join(dir, 'clip.mov'),
    video: await loadTrack(dir, index.video),
    audio: index.audio ? await loadTrack(dir, index.audio) : undefined,
  };
}

/** ffprobe of a file: error output of ffprobe and of a full ffmpeg decode (empty when clean), frames and duration of its first video stream. */
export async function probeFile(file: string): Promise<{
  errors: string;
  frames: number;
  durationUs: number;
  width: number;
  height: number;
  codec: string;
  audioFrames: number;
}> {
  // Errors from probing and from decoding every frame.
  const errorsOf = (cmd: string, args: string[]) =>
    run(cmd, args).then(
      (r) => r.stderr,
      (e: { stderr?: string }) => e.stderr ?? String(e),
    );
  const errors =
    (await errorsOf('ffprobe', ['-v', 'error', file])) +
    (await errorsOf('ffmpeg', ['-v', 'error', '-i', file, '-f', 'null', '-']));
  const packets = await probePackets(file);
  const streams = await probeStreams(file);
  const v = streams.find((s) => s.codec_type === 'video');
  const a = streams.find((s) => s.codec_type === 'audio');
  const vp = packets.filter((p) => p.stream_index === v?.index);
  const toUs = timeBaseUs(v?.time_base ?? '1/90000');
  const pts = vp.map((p) => toUs(p.pts ?? 0));
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'packet=duration',
    '-of',
    'csv=p=0',
    file,
  ]);
  const lastDuration = toUs(Number(stdout.trim().split('\n').at(-1) ?? 0));
  return {
    errors: errors.trim(),
    frames: vp.length,
    durationUs: pts.length ? Math.max(...pts) - Math.min(...pts) + lastDuration : 0,
    width: v?.width ?? 0,
    height: v?.height ?? 0,
    codec: v?.codec_name ?? '',
    audioFrames: a ? packets.filter((p) => p.stream_index === a.index).length : 0,
  };
}

/**
 * The first video stream's Display Matrix side data as ffprobe reports it (from the tkhd matrix;
 * zmc's Orientation), or null when the matrix is the identity (ffprobe then shows none).
 */
export async function displayMatrixOf(file: string): Promise<{ rotation: number; matrix: string } | null> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream_side_data_list',
    '-of',
    'json',
    file,
  ]);
  const streams = (
    JSON.parse(stdout) as {
      streams: Array<{ side_data_list?: Array<{ side_data_type: string; displaymatrix?: string; rotation?: number }> }>;
    }
  ).streams;
  const side = streams[0]?.side_data_list?.find((s) => s.side_data_type === 'Display Matrix');
  return side ? { rotation: side.rotation ?? 0, matrix: side.displaymatrix ?? '' } : null;
}

/**
 * The extensions this machine's ffmpeg lets its HLS demuxer fetch (`allowed_segment_extensions`,
 * read from `ffmpeg -h demuxer=hls`); an older ffmpeg without the option gives null.
 */
export async function ffmpegHlsExtensions(): Promise<Set<string> | null> {
  const { stdout } = await run('ffmpeg', ['-hide_banner', '-h', 'demuxer=hls']);
  const m = /allowed_segment_extensions\s.*\(default "([^"]*)"\)/.exec(stdout);
  return m ? new Set(m[1].split(',')) : null;
}

/** The URIs of a playlist (URI lines and URI="…" attributes) whose path has none of `allowed` as its extension. */
export function urisWithoutAllowedExtension(playlist: string, allowed: Set<string>): string[] {
  const uris: string[] = [];
  for (const line of playlist.split('\n')) {
    if (line === '') continue;
    if (!line.startsWith('#')) uris.push(line);
    for (const m of line.matchAll(/URI="([^"]*)"/g)) uris.push(m[1]);
  }
  return uris.filter((uri) => {
    const ext = /\.([A-Za-z0-9]+)$/.exec(uri.split(/[?#]/)[0])?.[1]?.toLowerCase();
    return !ext || !allowed.has(ext);
  });
}

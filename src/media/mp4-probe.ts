// What /events/{id}/info and the stream routes need to know about an MP4 recording, read from the
// box headers only: whether it is fragmented (moov carries mvex), the first video track's codec
// (sample entry avc1/avc3 = H.264, hvc1/hev1 = H.265), coded size, duration and whether a
// display matrix (rotation tag) is set. It reads a few
// hundred bytes wherever the file's boxes are; sample tables and media data are skipped by size.
// (Sample-level demuxing, remux and HLS segmenting are the native demuxer's job.)
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';

export type VideoCodec = 'H264' | 'H265' | 'Unknown';

export interface Mp4Info {
  /** moov has an mvex box: the media is in moof/mdat fragments. */
  fragmented: boolean;
  codec: VideoCodec;
  /** The sample entry type of the first video track (e.g. `avc1`), null without one. */
  sampleEntry: string | null;
  width: number;
  height: number;
  /** Seconds; 0 when the file does not say (a fragmented file without mehd). */
  durationSeconds: number;
  hasAudio: boolean;
  /** The video track's tkhd matrix is not the identity (a rotation or flip tag). */
  displayMatrix: boolean;
}

interface Box {
  type: string;
  /** Offset of the payload (after the header). */
  start: number;
  end: number;
}

const CODECS: Record<string, VideoCodec> = { avc1: 'H264', avc3: 'H264', hvc1: 'H265', hev1: 'H265' };
/** Guards against garbage: a real file has a handful of boxes per level (top level: moof/mdat pairs). */
const MAX_BOXES_PER_LEVEL = 100_000;

async function readAt(h: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await h.read(buf, 0, length, offset);
  return buf.subarray(0, bytesRead);
}

async function* boxes(h: FileHandle, from: number, to: number): AsyncGenerator<Box> {
  let offset = from;
  for (let n = 0; offset + 8 <= to && n < MAX_BOXES_PER_LEVEL; n++) {
    const head = await readAt(h, offset, 16);
    if (head.length < 8) return;
    let size = head.readUInt32BE(0);
    const type = head.toString('latin1', 4, 8);
    let header = 8;
    if (size === 1) {
      if (head.length < 16) return;
      size = Number(head.readBigUInt64BE(8));
      header = 16;
    } else if (size === 0) {
      size = to - offset;
    }
    if (size < header || offset + size > to) return; // truncated or corrupt: stop at what we have
    yield { type, start: offset + header, end: offset + size };
    offset += size;
  }
}

async function child(h: FileHandle, parent: Box, type: string): Promise<Box | undefined> {
  for await (const b of boxes(h, parent.start, parent.end)) if (b.type === type) return b;
  return undefined;
}

/** version/flags then (creation, modification, timescale, duration), 32- or 64-bit by version. */
async function timescaleAndDuration(h: FileHandle, box: Box): Promise<{ timescale: number; duration: number }> {
  const b = await readAt(h, box.start, 36);
  if (b.length < 24) return { timescale: 0, duration: 0 };
  if (b[0] === 1)
    return b.length < 36
      ? { timescale: 0, duration: 0 }
      : { timescale: b.readUInt32BE(20), duration: Number(b.readBigUInt64BE(24)) };
  return { timescale: b.readUInt32BE(12), duration: b.readUInt32BE(16) };
}

interface Track {
  handler: string;
  timescale: number;
  duration: number;
  entry: string | null;
  width: number;
  height: number;
  matrix: boolean;
}

/** The identity matrix of tkhd: {1,0,0, 0,1,0, 0,0,1} in 16.16 / 2.30 fixed point. */
const IDENTITY = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000];

/** Whether a tkhd box's matrix is other than the identity. */
async function tkhdMatrix(h: FileHandle, tkhd: Box): Promise<boolean> {
  const version = (await readAt(h, tkhd.start, 1))[0];
  // version 0: 4 flags, 4+4 times, 4 track id, 4 reserved, 4 duration; version 1: 64-bit times and
  // duration. Then 8 reserved, 2 layer, 2 group, 2 volume, 2 reserved, and the 36-byte matrix.
  const m = await readAt(h, tkhd.start + (version === 1 ? 52 : 40), 36);
  if (m.length < 36) return false;
  return IDENTITY.some((v, i) => m.readInt32BE(i * 4) !== v);
}

async function track(h: FileHandle, trak: Box): Promise<Track | null> {
  const mdia = await child(h, trak, 'mdia');
  if (!mdia) return null;
  const t: Track = { handler: '', timescale: 0, duration: 0, entry: null, width: 0, height: 0, matrix: false };
  const tkhd = await child(h, trak, 'tkhd');
  if (tkhd) t.matrix = await tkhdMatrix(h, tkhd);
  for await (const b of boxes(h, mdia.start, mdia.end)) {
    if (b.type === 'mdhd') Object.assign(t, await timescaleAndDuration(h, b));
    if (b.type === 'hdlr') t.handler = (await readAt(h, b.start + 8, 4)).toString('latin1');
    if (b.type === 'minf') {
      const stbl = await child(h, b, 'stbl');
      const stsd = stbl && (await child(h, stbl, 'stsd'));
      if (stsd) {
        // full box header (4) + entry_count (4), then the first sample entry box.
        const e = await readAt(h, stsd.start + 8, 36);
        if (e.length >= 8) t.entry = e.toString('latin1', 4, 8);
        if (e.length >= 36 && t.handler !== 'soun') {
          t.width = e.readUInt16BE(32);
          t.height = e.readUInt16BE(34);
        }
      }
    }
  }
  return t;
}

/** The probe of an open file; null when it is not an ISO BMFF file with a moov box. */
export async function probeMp4Handle(h: FileHandle, size: number): Promise<Mp4Info | null> {
  let moov: Box | undefined;
  let first = true;
  for await (const b of boxes(h, 0, size)) {
    if (first && !['ftyp', 'styp', 'moov', 'free', 'skip', 'wide'].includes(b.type)) return null;
    first = false;
    if (b.type === 'moov') {
      moov = b;
      break;
    }
  }
  if (!moov) return null;
  let movie = { timescale: 0, duration: 0 };
  let fragmentDuration = 0;
  let fragmented = false;
  const tracks: Track[] = [];
  for await (const b of boxes(h, moov.start, moov.end)) {
    if (b.type === 'mvhd') movie = await timescaleAndDuration(h, b);
    if (b.type === 'trak') {
      const t = await track(h, b);
      if (t) tracks.push(t);
    }
    if (b.type === 'mvex') {
      fragmented = true;
      const mehd = await child(h, b, 'mehd');
      if (mehd) {
        const m = await readAt(h, mehd.start, 12);
        if (m.length >= 8)
          fragmentDuration = m[0] === 1 && m.length >= 12 ? Number(m.readBigUInt64BE(4)) : m.readUInt32BE(4);
      }
    }
  }
  const video = tracks.find((t) => t.handler === 'vide');
  const seconds = (d: number, ts: number) => (ts > 0 && d > 0 && d < 0xffffffff ? d / ts : 0);
  const durationSeconds =
    seconds(video?.duration ?? 0, video?.timescale ?? 0) ||
    seconds(movie.duration, movie.timescale) ||
    seconds(fragmentDuration, movie.timescale);
  return {
    fragmented,
    codec: (video?.entry && CODECS[video.entry]) || 'Unknown',
    sampleEntry: video?.entry ?? null,
    width: video?.width ?? 0,
    height: video?.height ?? 0,
    durationSeconds: Math.round(durationSeconds * 1000) / 1000,
    hasAudio: tracks.some((t) => t.handler === 'soun'),
    displayMatrix: video?.matrix ?? false,
  };
}

export async function probeMp4File(file: string): Promise<Mp4Info | null> {
  const h = await open(file, 'r');
  try {
    return await probeMp4Handle(h, (await h.stat()).size);
  } finally {
    await h.close();
  }
}

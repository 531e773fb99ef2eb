// The seam between the `/events/{id}/stream/*` routes and whatever reads samples: the routes
// do the ACL, locate the recording and serve the answer with byte ranges; an EventRemuxer only
// turns a recording into bytes: fragmented MP4 of the whole recording with real sample
// durations (or null: it already is fragmented MP4, served as written); a playlist of ~4 s
// segments whose URIs are relative to …/stream/ (`init.mp4`, `segment/0.m4s`, …); the init
// segment; segment `seq`, null when out of range. The implementation is NativeRemuxer
// (native-remuxer.ts); tests plug in others through createPlayback() in playback.ts.
import type { ByteSource } from '../../media/byte-source.js';
import type { EventRecord, VideoFile } from './event-media.js';

export interface RemuxInput {
  event: EventRecord;
  video: VideoFile;
}

export interface EventRemuxer {
  /** The whole recording as fragmented MP4 (video.mp4, media.mp4); null when it already is one. */
  fragmentedMp4(input: RemuxInput): Promise<ByteSource | null>;
  /** The HLS VOD playlist text. */
  vodPlaylist(input: RemuxInput): Promise<string>;
  /** The fMP4 initialisation segment. */
  initSegment(input: RemuxInput): Promise<ByteSource>;
  /** Media segment `seq` (0-based); null when the recording has no such segment. */
  mediaSegment(input: RemuxInput, seq: number): Promise<ByteSource | null>;
}

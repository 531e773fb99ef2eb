// A master playlist for a session whose first keyframe has not arrived yet. hls.js treats a 404
// on the manifest as fatal, so after the wait the master is answered anyway, from the codecs the
// HELLO announced (the packager's own master needs the first init). No RESOLUTION or FRAME-RATE:
// only the init knows them for sure. BANDWIDTH is required; with one variant it selects nothing.
import type { CodecInfo } from '../native/index.js';

/** What a player assumes for H.264 when the HELLO carried no usable configuration (Constrained Baseline 3.0). */
export const DEFAULT_VIDEO_CODECS = 'avc1.42e01e';
const PLACEHOLDER_BANDWIDTH = 2_000_000;

/** CODECS as the packager would write it: the video, and the audio when it can be packaged (AAC, Opus). */
export function announcedCodecs(codecs: { video?: CodecInfo; audio?: CodecInfo }): string {
  const safe = (s: string | undefined) => (s && /^[A-Za-z0-9._-]+$/.test(s) ? s : '');
  const video = safe(codecs.video?.codecString) || DEFAULT_VIDEO_CODECS;
  const audio =
    codecs.audio && (codecs.audio.codec === 'aac' || codecs.audio.codec === 'opus')
      ? safe(codecs.audio.codecString)
      : '';
  return audio ? `${video},${audio}` : video;
}

export function fallbackMasterPlaylist(codecs: string, mediaUri: string): string {
  return `#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-STREAM-INF:BANDWIDTH=${PLACEHOLDER_BANDWIDTH},CODECS="${codecs}"\n${mediaUri}\n`;
}

// What the offer carries, decided from the source's codecs before the offer (docs/contract/clients.md):
// H.264 or H.265 passed through as the camera sends it; G.711 and Opus audio passed through;
// any other audio (AAC) means a video-only session with has_audio false (no transcoding here).
import type { CodecInfo } from '../../../native/index.js';

export interface VideoOffer {
  codec: 'h264' | 'h265';
  /** Payload types offered, in order of preference, with their fmtp lines. */
  formats: Array<{ payloadType: number; fmtp: string }>;
}

export interface AudioOffer {
  codec: 'pcmu' | 'pcma' | 'opus';
  payloadType: number;
  /** RTP clock: 8000 for G.711, always 48000 for Opus (RFC 7587). */
  clockRate: number;
  /** The a=rtpmap encoding name/rate as node-datachannel writes it. */
  rtpmap: string;
  fmtp?: string;
}

export interface MediaOffer {
  video: VideoOffer;
  audio: AudioOffer | null;
}

// Two H.264 entries, constrained baseline and high, as the reference offers: Safari accepts only
// these two, and the camera's real bitstream is sent unchanged whichever the browser picks.
const H264_FORMATS = [
  { payloadType: 96, fmtp: 'profile-level-id=42e01f;level-asymmetry-allowed=1;packetization-mode=1' },
  { payloadType: 97, fmtp: 'profile-level-id=640c1f;level-asymmetry-allowed=1;packetization-mode=1' },
];
const H265_FORMATS = [{ payloadType: 96, fmtp: 'profile-id=1;tier-flag=0;level-id=120' }];

/** H.265 sources get an H.265-only offer; everything else (unknown included) is sent as H.264. */
export function videoOffer(video: CodecInfo | undefined): VideoOffer {
  return video?.codec === 'h265' ? { codec: 'h265', formats: H265_FORMATS } : { codec: 'h264', formats: H264_FORMATS };
}

/** null: the session is video only (has_audio false). */
export function audioOffer(audio: CodecInfo | undefined): AudioOffer | null {
  switch (audio?.codec) {
    case 'pcmu':
    case 'pcma': {
      // Static payload types 0/8 are 8 kHz mono by definition; anything else cannot be sent as is.
      if ((audio.sampleRate !== 0 && audio.sampleRate !== 8000) || audio.channels > 1) return null;
      const name = audio.codec === 'pcmu' ? 'PCMU' : 'PCMA';
      return {
        codec: audio.codec,
        payloadType: audio.codec === 'pcmu' ? 0 : 8,
        clockRate: 8000,
        rtpmap: `${name}/8000`,
      };
    }
    case 'opus':
      return {
        codec: 'opus',
        payloadType: 111,
        clockRate: 48000,
        rtpmap: 'opus/48000/2',
        fmtp: 'minptime=10;useinbandfec=1',
      };
    default:
      return null;
  }
}

export function mediaOffer(codecs: { video?: CodecInfo; audio?: CodecInfo }): MediaOffer {
  return { video: videoOffer(codecs.video), audio: audioOffer(codecs.audio) };
}

/** The m-section of an SDP whose a=mid is `mid`: its port and payload types (null when absent). */
export function mediaSection(sdp: string, mid: string): { port: number; payloadTypes: number[] } | null {
  const sections = sdp.split(/\r?\n(?=m=)/);
  for (const section of sections) {
    const mLine = /^m=\w+ (\d+)(?:\/\d+)? \S+ ?(.*)$/m.exec(section);
    if (!mLine) continue;
    if (!new RegExp(`^a=mid:${mid.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'm').test(section)) continue;
    const payloadTypes = mLine[2].split(/\s+/).filter(Boolean).map(Number).filter(Number.isInteger);
    return { port: Number(mLine[1]), payloadTypes };
  }
  return null;
}

/**
 * The payload type to send with: the first of ours the answer accepted, preferring the entry
 * that matches the source profile (high-profile cameras → 640c1f) when the browser took both.
 */
export function chooseVideoPayloadType(offer: VideoOffer, accepted: number[], sourceProfile = -1): number | null {
  const ours = offer.formats.map((f) => f.payloadType).filter((pt) => accepted.includes(pt));
  if (ours.length === 0) return null;
  if (offer.codec === 'h264' && ours.includes(97) && sourceProfile >= 100) return 97;
  return ours[0];
}

/** profile_idc of the first H.264 SPS in an Annex B access unit, or -1. */
export function h264ProfileIdc(au: Buffer): number {
  for (let i = 0; i + 4 < au.length; i++) {
    if (au[i] === 0 && au[i + 1] === 0 && au[i + 2] === 1) {
      if ((au[i + 3] & 0x1f) === 7) return au[i + 4];
      i += 2;
    }
  }
  return -1;
}

/** The source's H.264 profile: from the parsed codec details, else from the cached keyframe's SPS. */
export function sourceProfile(video: CodecInfo | undefined, keyframe: Buffer | undefined): number {
  if (video && video.profile >= 0) return video.profile;
  return keyframe ? h264ProfileIdc(keyframe) : -1;
}

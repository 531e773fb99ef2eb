// One viewer's PeerConnection (node-datachannel / libdatachannel). The server offers: sendonly
// tracks are added before setLocalDescription (adding them later makes libdatachannel
// renegotiate and DTLS never completes, docs/dependencies.md). Packetizers are attached once the answer says
// which payload type the browser took. H.264/H.265 use the `StartSequence` NAL separator: encoders
// mix 3- and 4-byte start codes inside one access unit, and `LongStartSequence` then decodes nothing.
import { randomInt } from 'node:crypto';
import { EventEmitter } from 'node:events';
import ndc from 'node-datachannel';
import type { IceServer } from 'node-datachannel';
import { chooseVideoPayloadType, mediaSection, type MediaOffer } from './codecs.js';
import type { RtpOutput } from './media-sender.js';
import { holdTrack } from './track-registry.js';

export const VIDEO_MID = '0';
export const AUDIO_MID = '1';
const CNAME = 'zmgate';

export interface PeerOptions {
  monitorId: number;
  offer: MediaOffer;
  /** The source's H.264 profile_idc (read when the answer arrives), to pick between the offered entries. */
  sourceProfile?: () => number;
  iceServers: Array<string | IceServer>;
  /** Restricts ICE host candidates to one local address (tests use 127.0.0.1). */
  bindAddress?: string;
  /** Counts the media bytes handed to the tracks (before RTP packetization). */
  sent?: (bytes: number) => void;
}

export interface PeerEvents {
  offer: [sdp: string];
  candidate: [candidate: string, mid: string | null];
  state: [state: string];
  iceState: [state: string];
}

export interface AnswerResult {
  videoPayloadType: number;
  /** The browser accepted the audio m-line (false also when none was offered). */
  audio: boolean;
}

const ssrc = () => randomInt(1, 2 ** 32 - 1);

class TrackOutput implements RtpOutput {
  readonly startTimestamp: number;
  constructor(
    private readonly track: ndc.Track,
    private readonly config: ndc.RtpPacketizationConfig,
    readonly clockRate: number,
    private readonly sent?: (bytes: number) => void,
  ) {
    this.startTimestamp = config.timestamp;
  }

  send(data: Buffer, rtpTimestamp: number): boolean {
    if (!this.track.isOpen()) return false;
    // The packetizer stamps every packet of this message with the config's current timestamp.
    this.config.timestamp = rtpTimestamp;
    try {
      const ok = this.track.sendMessageBinary(data);
      if (ok) this.sent?.(data.length);
      return ok;
    } catch {
      return false; // closed under us: the session notices through the state callback
    }
  }
}

export class LivePeer extends EventEmitter<PeerEvents> {
  readonly offer: MediaOffer;
  #pc: ndc.PeerConnection;
  #video: { track: ndc.Track; ssrc: number };
  #audio: { track: ndc.Track; ssrc: number } | null = null;
  #outputs: { video: RtpOutput; audio: RtpOutput | null } | null = null;
  #closed = false;
  #sourceProfile: (() => number) | undefined;
  readonly #sent: ((bytes: number) => void) | undefined;

  constructor(options: PeerOptions) {
    super();
    this.offer = options.offer;
    this.#sourceProfile = options.sourceProfile;
    this.#sent = options.sent;
    this.#pc = new ndc.PeerConnection(`zm-live-${options.monitorId}`, {
      iceServers: options.iceServers,
      ...(options.bindAddress ? { bindAddress: options.bindAddress } : {}),
    });
    const streamId = `zm-live-${options.monitorId}`;

    const video = new ndc.Video(VIDEO_MID, 'SendOnly');
    for (const f of options.offer.video.formats) {
      if (options.offer.video.codec === 'h264') video.addH264Codec(f.payloadType, f.fmtp);
      else video.addVideoCodec(f.payloadType, 'H265', f.fmtp);
    }
    const videoSsrc = ssrc();
    video.addSSRC(videoSsrc, CNAME, streamId, 'video');
    this.#video = { track: holdTrack(this.#pc.addTrack(video)), ssrc: videoSsrc };

    const a = options.offer.audio;
    if (a) {
      const audio = new ndc.Audio(AUDIO_MID, 'SendOnly');
      if (a.codec === 'opus') audio.addOpusCodec(a.payloadType, a.fmtp);
      else audio.addAudioCodec(a.payloadType, a.rtpmap);
      const audioSsrc = ssrc();
      audio.addSSRC(audioSsrc, CNAME, streamId, 'audio');
      this.#audio = { track: holdTrack(this.#pc.addTrack(audio)), ssrc: audioSsrc };
    }

    // Callbacks arrive from libdatachannel threads through thread-safe functions; after close()
    // nothing is passed on.
    this.#pc.onLocalDescription((sdp, type) => {
      if (!this.#closed && type === 'offer') this.emit('offer', sdp);
    });
    this.#pc.onLocalCandidate((candidate, mid) => {
      if (!this.#closed) this.emit('candidate', candidate.replace(/^a=/, ''), mid || null);
    });
    this.#pc.onStateChange((state) => {
      if (!this.#closed) this.emit('state', state);
    });
    this.#pc.onIceStateChange((state) => {
      if (!this.#closed) this.emit('iceState', state);
    });
  }

  /** Starts gathering and produces the offer ('offer' event, then 'candidate' events). */
  createOffer(): void {
    this.#pc.setLocalDescription();
  }

  /** The index of an m-line by mid in our offer (sdpMLineIndex for our candidates). */
  mLineIndex(mid: string | null): number | null {
    if (mid === VIDEO_MID) return 0;
    if (mid === AUDIO_MID && this.#audio) return 1;
    return null;
  }

  /**
   * Applies the browser's answer and attaches the packetizers for the payload types it chose.
   * @throws Error with a client-facing message when the answer is unusable
   */
  applyAnswer(sdp: string): AnswerResult {
    const video = mediaSection(sdp, VIDEO_MID);
    if (!video) throw new Error('Invalid SDP answer: no video media section (mid 0)');
    const pt =
      video.port === 0 ? null : chooseVideoPayloadType(this.offer.video, video.payloadTypes, this.#sourceProfile?.());
    if (pt === null)
      throw new Error(
        `Invalid SDP answer: the browser accepted none of the offered ${this.offer.video.codec.toUpperCase()} formats`,
      );
    const audioSection = this.#audio ? mediaSection(sdp, AUDIO_MID) : null;
    const audioAccepted =
      !!audioSection && audioSection.port !== 0 && audioSection.payloadTypes.includes(this.offer.audio!.payloadType);
    try {
      this.#pc.setRemoteDescription(sdp, 'answer');
    } catch (err) {
      throw new Error(`Invalid SDP answer: ${(err as Error).message}`, { cause: err });
    }

    const videoConfig = new ndc.RtpPacketizationConfig(this.#video.ssrc, CNAME, pt, 90000);
    const packetizer =
      this.offer.video.codec === 'h264'
        ? new ndc.H264RtpPacketizer('StartSequence', videoConfig)
        : new ndc.H265RtpPacketizer('StartSequence', videoConfig);
    packetizer.addToChain(new ndc.RtcpSrReporter(videoConfig));
    packetizer.addToChain(new ndc.RtcpNackResponder());
    this.#video.track.setMediaHandler(packetizer);
    const outputs: { video: RtpOutput; audio: RtpOutput | null } = {
      video: new TrackOutput(this.#video.track, videoConfig, 90000, this.#sent),
      audio: null,
    };

    if (this.#audio && audioAccepted) {
      const a = this.offer.audio!;
      const audioConfig = new ndc.RtpPacketizationConfig(this.#audio.ssrc, CNAME, a.payloadType, a.clockRate);
      const audioPacketizer = new ndc.RtpPacketizer(audioConfig); // one packet per message
      audioPacketizer.addToChain(new ndc.RtcpSrReporter(audioConfig));
      this.#audio.track.setMediaHandler(audioPacketizer);
      outputs.audio = new TrackOutput(this.#audio.track, audioConfig, a.clockRate, this.#sent);
    }
    this.#outputs = outputs;
    return { videoPayloadType: pt, audio: outputs.audio !== null };
  }

  /** @throws Error when libdatachannel refuses the candidate */
  addRemoteCandidate(candidate: string, mid: string): void {
    this.#pc.addRemoteCandidate(candidate, mid);
  }

  get outputs(): { video: RtpOutput; audio: RtpOutput | null } | null {
    return this.#outputs;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.removeAllListeners();
    try {
      // Closing the tracks lets their wrappers leave node-datachannel's registry (track-registry.ts).
      this.#video.track.close();
      this.#audio?.track.close();
      this.#pc.close();
    } catch {
      // already closed by libdatachannel
    }
  }
}

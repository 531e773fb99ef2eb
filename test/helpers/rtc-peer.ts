// A node-datachannel PeerConnection playing the browser: answers the server's offer received over
// the signalling socket, trickles its candidates back, and records every RTP packet per track.
import ndc from 'node-datachannel';
import { holdTrack } from '../../src/features/live/webrtc/track-registry.js';
import { parseRtp, type RtpPacket } from './rtp.js';
import type { SignalClient } from './ws-client.js';

/**
 * How the viewer trickles its candidates: `flat` as docs/contract/clients.md writes it, `json` as a
 * client sending `RTCIceCandidate.toJSON()` under `candidate` (plus usernameFragment), ending with a
 * null end-of-candidates and sending no session_id on candidates.
 */
export type CandidateShape = 'flat' | 'json';

export class NodeViewer {
  readonly pc: ndc.PeerConnection;
  readonly packets: { video: RtpPacket[]; audio: RtpPacket[] } = { video: [], audio: [] };
  readonly states: string[] = [];
  #tracks: ndc.Track[] = [];

  constructor(
    readonly signal: SignalClient,
    readonly sessionId: string,
    shape: CandidateShape = 'flat',
  ) {
    this.pc = new ndc.PeerConnection('viewer', { iceServers: [], bindAddress: '127.0.0.1' });
    this.pc.onStateChange((s) => this.states.push(s));
    this.pc.onLocalDescription((sdp, type) => {
      if (type === 'answer') signal.send({ type: 'answer', session_id: sessionId, sdp });
    });
    this.pc.onLocalCandidate((candidate, mid) => {
      const init = { candidate: candidate.replace(/^a=/, ''), sdpMid: mid, sdpMLineIndex: Number(mid) };
      if (shape === 'flat') signal.send({ type: 'icecandidate', session_id: sessionId, ...init });
      else signal.send({ type: 'icecandidate', candidate: { ...init, usernameFragment: null } });
    });
    if (shape === 'json') {
      this.pc.onGatheringStateChange(
        (state) => state === 'complete' && signal.send({ type: 'icecandidate', candidate: null }),
      );
    }
    this.pc.onTrack((track) => {
      this.#tracks.push(holdTrack(track));
      const kind = track.type() === 'audio' ? 'audio' : 'video';
      track.onMessage((msg) => {
        const p = parseRtp(Buffer.from(msg));
        if (p) this.packets[kind].push(p);
      });
    });
  }

  /** Applies the offer (libdatachannel then answers by itself) and the server's candidates as they come. */
  static async answer(signal: SignalClient, shape: CandidateShape = 'flat'): Promise<NodeViewer> {
    const offer = await signal.next('offer');
    const viewer = new NodeViewer(signal, offer.session_id, shape);
    viewer.pc.setRemoteDescription(offer.sdp, 'offer');
    let seen = 0;
    const pump = setInterval(() => {
      const candidates = signal.messages.filter((m) => m.type === 'icecandidate');
      for (const c of candidates.slice(seen)) viewer.pc.addRemoteCandidate(c.candidate, c.sdpMid ?? '0');
      seen = candidates.length;
      if (signal.closed) clearInterval(pump);
    }, 20);
    viewer.#pump = pump;
    return viewer;
  }

  #pump: NodeJS.Timeout | undefined;

  close(): void {
    clearInterval(this.#pump);
    for (const t of this.#tracks) t.close();
    this.pc.close();
  }
}

// One viewer's signalling session on the WebSocket: the server offers at once, candidates trickle
// both ways, `ready` goes out when the peer is connected and media starts then (docs/contract/clients.md
// §6). Everything the session holds (peer, reader retention, timers, listeners) is released when
// the socket closes, whichever side closes it.
import { randomUUID } from 'node:crypto';
import type { IceServer } from 'node-datachannel';
import { WebSocket, type RawData } from 'ws';
import type { Logger } from '../../../log.js';
import type { StreamClient } from '../../../native/index.js';
import type { LiveFeed, LiveFeeds, WebRtcStartup } from '../../../live-hub/feed.js';
import { mediaOffer, sourceProfile } from './codecs.js';
import { ViewerSender } from './media-sender.js';
import { parseClientMessage, type ClientMessage, type ServerMessage } from './messages.js';
import { AUDIO_MID, LivePeer, VIDEO_MID } from './peer.js';

export interface SessionTimeouts {
  /** How long a cold reader may take to say which codecs it has (then H.264 is assumed). */
  codecWaitMs: number;
  /** From the offer to a usable answer. */
  answerMs: number;
  /** From the answer to a connected peer (the reference's DTLS timeout). */
  connectMs: number;
}

const MAX_PENDING_CANDIDATES = 64;

export const DEFAULT_TIMEOUTS: SessionTimeouts = { codecWaitMs: 2000, answerMs: 60_000, connectMs: 30_000 };

/** At least this long for the offer to be made and sent, however short the answer timeout. */
const OFFER_WAIT_MS = 10_000;

export interface SessionOptions {
  monitorId: number;
  feed: LiveFeed;
  feeds: LiveFeeds;
  iceServers: Array<string | IceServer>;
  bindAddress?: string;
  log: Logger;
  timeouts?: Partial<SessionTimeouts>;
  /** Counts the media bytes sent (the live bytes metric). */
  sent?: (bytes: number) => void;
  /** Called once when the session has released everything. */
  onClosed?: () => void;
}

/**
 * Waits until the reader knows what it carries, at most `ms`: the video HELLO, and either the audio
 * HELLO or a media message (zmc sends both HELLOs before any media, so once media has been read an
 * absent audio codec means the monitor has none). The reader thread may have parsed the video HELLO
 * but not yet the audio one, so a known video codec alone is not enough.
 */
function codecsKnown(client: StreamClient, ms: number): Promise<void> {
  const settled = () => {
    const c = client.codecs();
    return c.video !== undefined && (c.audio !== undefined || client.stats().media > 0);
  };
  if (settled()) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('codec', check);
      client.off('media', check);
      resolve();
    };
    const check = () => settled() && done();
    const timer = setTimeout(done, ms);
    client.on('codec', check);
    client.on('media', check);
  });
}

export class WebRtcSession {
  readonly id = randomUUID();
  readonly #ws: WebSocket;
  readonly #o: SessionOptions;
  readonly #timeouts: SessionTimeouts;
  readonly #log: Logger;
  readonly #t0 = performance.now();
  readonly #startup: WebRtcStartup;
  #release: () => void;
  #peer: LivePeer | null = null;
  #sender: ViewerSender | null = null;
  #offerSent = false;
  #answered = false;
  #pendingLocal: Array<{ candidate: string; mid: string | null }> = [];
  #pendingRemote: Array<{ candidate: string; mid: string }> = [];
  #timer: NodeJS.Timeout | undefined;
  #watchdog: NodeJS.Timeout;
  #closed = false;
  #startupRecorded = false;
  /** The browser accepted the audio track (sent in `ready`). */
  #hasAudio = false;

  constructor(ws: WebSocket, options: SessionOptions) {
    this.#ws = ws;
    this.#o = options;
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.#log = options.log.child({ monitor_id: options.monitorId, session_id: this.id });
    const client = options.feed.client;
    this.#startup = {
      warm_start: client.codecs().video !== undefined,
      get_source_ms: null,
      offer_ms: null,
      ice_connected_ms: null,
      connected_ms: null,
      first_rtp_ms: null,
    };
    this.#release = options.feed.retain('webrtc', { audio: false });
    ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    ws.on('close', () => this.close());
    ws.on('error', (err) => this.#log.debug({ err: { message: err.message } }, 'webrtc socket error'));
    // The shared reader is closed by the live hub only when it goes away: end the session then.
    this.#watchdog = setInterval(() => client.closed && this.fail('Video source stopped'), 1000);
    this.#watchdog.unref();
  }

  #ms(): number {
    return Math.round(performance.now() - this.#t0);
  }

  /** Decides the media, creates the peer and sends the offer. A failure here closes the socket. */
  async start(): Promise<void> {
    const client = this.#o.feed.client;
    await codecsKnown(client, this.#timeouts.codecWaitMs);
    if (this.#closed) return;
    this.#startup.get_source_ms = this.#ms();
    const codecs = client.codecs();
    const offer = mediaOffer(codecs);
    if (offer.audio) {
      // Counted as an audio subscriber from here on (for /live/sources).
      const previous = this.#release;
      this.#release = this.#o.feed.retain('webrtc', { audio: true });
      previous();
    }
    try {
      this.#peer = new LivePeer({
        monitorId: this.#o.monitorId,
        offer,
        sourceProfile: () => (client.closed ? -1 : sourceProfile(client.codecs().video, client.latestKeyframe()?.data)),
        iceServers: this.#o.iceServers,
        bindAddress: this.#o.bindAddress,
        sent: this.#o.sent,
      });
    } catch (err) {
      this.#log.warn({ err: { message: (err as Error).message } }, 'webrtc peer creation failed');
      this.close(1011, 'peer connection could not be created');
      return;
    }
    const peer = this.#peer;
    peer.on('offer', (sdp) => this.#sendOffer(sdp));
    // Our candidates are held until the answer has been applied. A client that has them checks
    // at once, so under load (the answer waiting in our event loop) its ICE checks and DTLS
    // flights are already queued when the answer is applied; libdatachannel hands the answer to
    // ICE before it stores it for the DTLS fingerprint check, and such a queued handshake then
    // fails ("DTLS alert: unknown CA", "Peer connection failed"). Without our candidates the
    // client cannot start before the answer is in place. It costs one signalling round trip.
    peer.on('candidate', (candidate, mid) => {
      if (this.#answered) this.#sendCandidate(candidate, mid);
      else this.#pendingLocal.push({ candidate, mid });
    });
    peer.on('iceState', (state) => {
      if ((state === 'connected' || state === 'completed') && this.#startup.ice_connected_ms === null)
        this.#startup.ice_connected_ms = this.#ms();
    });
    peer.on('state', (state) => this.#onPeerState(state));
    peer.createOffer();
    // An offer that never comes. Making it may take a while under load, which is not the
    // client's time to answer: that timer starts when the offer is sent (#sendOffer).
    this.#arm(
      Math.max(this.#timeouts.answerMs, OFFER_WAIT_MS),
      `Connection timeout: no SDP offer within ${Math.round(Math.max(this.#timeouts.answerMs, OFFER_WAIT_MS) / 1000)} seconds`,
    );
  }

  /** The answer timeout counts from the offer the client got (its creation may take a while under load). */
  #armAnswer(): void {
    this.#arm(
      this.#timeouts.answerMs,
      `Connection timeout: no SDP answer within ${Math.round(this.#timeouts.answerMs / 1000)} seconds`,
    );
  }

  #send(message: ServerMessage): void {
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.send(JSON.stringify(message));
  }

  #sendOffer(sdp: string): void {
    // The contract wants trickle announced at session level; libdatachannel writes "ice2,trickle".
    const withTrickle = /^a=ice-options:.*\btrickle\b/m.test(sdp)
      ? sdp
      : sdp.replace(/\r?\nm=/, (m) => `\r\na=ice-options:trickle${m}`);
    this.#send({ type: 'offer', session_id: this.id, sdp: withTrickle });
    if (!this.#answered) this.#armAnswer();
    this.#offerSent = true;
    this.#startup.offer_ms = this.#ms();
  }

  #sendCandidate(candidate: string, mid: string | null): void {
    this.#send({
      type: 'icecandidate',
      session_id: this.id,
      candidate,
      sdpMid: mid,
      sdpMLineIndex: this.#peer?.mLineIndex(mid) ?? null,
    });
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    if (this.#closed) return;
    const raw = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    const parsed = parseClientMessage(raw, isBinary);
    if (parsed.kind === 'invalid') {
      // The client treats any `error` as the end of WebRTC (state `failed`, fall-back to HLS), so
      // only a malformed answer, which cannot lead anywhere, is told ("Invalid SDP answer: …", as
      // the contract has it); other malformed frames are ignored, as the reference does.
      if (parsed.answer) this.#send({ type: 'error', message: parsed.error });
      else this.#log.debug({ reason: parsed.error }, 'webrtc client message ignored');
      return;
    }
    if (parsed.kind === 'ignored') return;
    this.#handle(parsed.message);
  }

  #handle(message: ClientMessage): void {
    if (message.type === 'ping') {
      this.#send({ type: 'pong' });
      return;
    }
    // Another session's messages (a stale client tab) are ignored, as the reference does.
    if (message.session_id !== undefined && message.session_id !== this.id) return;
    if (message.type === 'answer') this.#onAnswer(message.sdp);
    else this.#onRemoteCandidate(message.candidate, message.sdpMid, message.sdpMLineIndex);
  }

  #onAnswer(sdp: string): void {
    const peer = this.#peer;
    if (!peer || !this.#offerSent) {
      this.#send({ type: 'error', message: 'Invalid SDP answer: no offer has been sent yet' });
      return;
    }
    if (this.#answered) {
      this.#send({ type: 'error', message: 'Invalid SDP answer: the offer was already answered' });
      return;
    }
    let result;
    try {
      result = peer.applyAnswer(sdp);
    } catch (err) {
      this.#send({ type: 'error', message: (err as Error).message });
      return;
    }
    this.#answered = true;
    const outputs = peer.outputs!;
    this.#sender = new ViewerSender(this.#o.feed.client, {
      video: outputs.video,
      audio: outputs.audio ? { output: outputs.audio, codec: peer.offer.audio!.codec } : null,
      onFirstSend: () => {
        this.#startup.first_rtp_ms = this.#ms();
        this.#recordStartup();
      },
    });
    this.#hasAudio = result.audio;
    for (const c of this.#pendingRemote) this.#addRemote(c.candidate, c.mid);
    this.#pendingRemote = [];
    for (const c of this.#pendingLocal) this.#sendCandidate(c.candidate, c.mid);
    this.#pendingLocal = [];
    this.#arm(
      this.#timeouts.connectMs,
      `Connection timeout: DTLS handshake did not complete within ${Math.round(this.#timeouts.connectMs / 1000)} seconds`,
    );
  }

  #onRemoteCandidate(candidate: string, sdpMid: string | null, index: number | null): void {
    if (candidate === '') return; // end of candidates: nothing to do
    const mid = sdpMid ?? (index === 1 ? AUDIO_MID : VIDEO_MID);
    if (this.#answered) this.#addRemote(candidate, mid);
    // Held until the answer; a browser has a handful, so the bound only stops a flood.
    else if (this.#pendingRemote.length < MAX_PENDING_CANDIDATES) this.#pendingRemote.push({ candidate, mid });
  }

  #addRemote(candidate: string, mid: string): void {
    try {
      this.#peer?.addRemoteCandidate(candidate, mid);
    } catch (err) {
      // e.g. an mDNS (.local) candidate libjuice cannot resolve: other candidates may still work.
      this.#log.debug({ err: { message: (err as Error).message } }, 'remote candidate refused');
    }
  }

  #onPeerState(state: string): void {
    switch (state) {
      case 'connected':
        if (this.#startup.connected_ms !== null) return;
        this.#startup.connected_ms = this.#ms();
        this.#disarm();
        this.#send({ type: 'ready', session_id: this.id, monitor_id: this.#o.monitorId, has_audio: this.#hasAudio });
        this.#sender?.start();
        this.#log.info(
          { has_audio: this.#hasAudio, connected_ms: this.#startup.connected_ms },
          'webrtc viewer connected',
        );
        return;
      case 'failed':
        return this.fail('Peer connection failed');
      case 'disconnected':
        return this.fail('Peer connection Disconnected');
      case 'closed':
        return this.fail('Peer connection closed unexpectedly');
    }
  }

  #arm(ms: number, message: string): void {
    this.#disarm();
    this.#timer = setTimeout(() => this.fail(message), ms);
    this.#timer.unref();
  }

  #disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #recordStartup(): void {
    if (this.#startupRecorded) return;
    this.#startupRecorded = true;
    this.#o.feeds.recordWebRtcStartup(this.#o.monitorId, { ...this.#startup });
  }

  /** Sends an `error` message and closes the socket (and with it the session). */
  fail(message: string): void {
    if (this.#closed) return;
    this.#log.info({ reason: message }, 'webrtc session ended');
    this.#send({ type: 'error', message });
    this.close(1011, message.slice(0, 120));
  }

  /** Releases everything; idempotent. */
  close(code = 1000, reason = ''): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#disarm();
    clearInterval(this.#watchdog);
    this.#sender?.stop();
    this.#peer?.close();
    this.#release();
    // A session that got as far as an offer leaves its timings for /stats, even unfinished.
    if (this.#startup.offer_ms !== null) this.#recordStartup();
    this.#log.info(
      { code, connected: this.#startup.connected_ms !== null, sender: this.#sender?.stats },
      'webrtc session closed',
    );
    if (this.#ws.readyState === WebSocket.OPEN || this.#ws.readyState === WebSocket.CONNECTING)
      this.#ws.close(code, reason);
    this.#o.onClosed?.();
  }

  get stats() {
    return { startup: { ...this.#startup }, sender: this.#sender ? { ...this.#sender.stats } : null };
  }
}

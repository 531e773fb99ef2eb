// The WebRTC signalling endpoint: owns the WebSocket server (noServer, driven by the HTTP(S)
// server's 'upgrade' event) and the live sessions. Each accepted socket gets one WebRtcSession
// over the monitor's shared LiveFeed.
import { ServerResponse, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import ndc, { type IceServer } from 'node-datachannel';
import { WebSocketServer, type WebSocket } from 'ws';
import { ServiceUnavailableError } from '../../../errors.js';
import { toApiError } from '../../../db/to-api-error.js';
import { redactUrl, type Logger } from '../../../log.js';
import type { LiveFeeds } from '../../../live-hub/feed.js';
import type { Metrics } from '../../../metrics.js';
import { iceServersFrom } from './ice-servers.js';
import { MAX_MESSAGE_BYTES } from './messages.js';
import { settleTracks } from './track-registry.js';
import { WebRtcSession, type SessionTimeouts } from './session.js';
import { authoriseUpgrade, handshakeProblem, routeNotFound, upgradeTarget, type UpgradeAuth } from './upgrade.js';
import type { AppConfig } from '../../../config/types.js';
import { refuseUpgrade } from '../../../media/refuse-upgrade.js';

export interface WebRtcServiceOptions extends UpgradeAuth {
  config: Pick<AppConfig, 'streaming'>;
  log: Logger;
  /** The live hub; null: live streaming is unavailable (upgrades answer 503). */
  feeds: LiveFeeds | null;
  /** Answers false while live streaming is switched off (503). */
  streamingEnabled?: () => boolean;
  /** Restricts ICE host candidates to one address (tests: 127.0.0.1). */
  bindAddress?: string;
  timeouts?: Partial<SessionTimeouts>;
  /** The live bytes metric (src/metrics.ts). */
  metrics?: Pick<Metrics, 'liveBytes'>;
  /** Concurrent sessions beyond this are refused with 503 (each holds a PeerConnection and DTLS state). */
  maxSessions?: number;
  /**
   * The plain HTTP handler (the express app). Node 20 sends every request carrying an Upgrade
   * header to 'upgrade' once anyone listens there, so requests asking for another protocol
   * (`curl --http2` sends `Upgrade: h2c`) are answered here as ordinary HTTP, as before.
   */
  http?: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * Multi-server: after the caller is checked, hands the upgrade of a monitor owned by another
   * host to that host (resolves true; rejects with 502/504 when it cannot be reached); false:
   * served here.
   */
  forward?: (monitorId: number, req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<boolean>;
}

const DEFAULT_MAX_SESSIONS = 256;
/** libdatachannel's global state is torn down when the last service closes. */
let openServices = 0;

export class WebRtcService {
  readonly #o: WebRtcServiceOptions;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false });
  readonly #sessions = new Set<WebRtcSession>();
  readonly #servers: Array<HttpServer | HttpsServer> = [];
  readonly #iceServers: Array<string | IceServer>;
  #closed = false;
  readonly #onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    void this.handleUpgrade(req, socket, head);

  constructor(options: WebRtcServiceOptions) {
    this.#o = options;
    // Parsed once, so a bad streaming.webrtc.turn.server stops start-up instead of every viewer.
    this.#iceServers = iceServersFrom(options.config);
    // libdatachannel logs to stderr unless given a callback (and 0.33.4 throws without one).
    ndc.initLogger('Warning', (level, message) => options.log.warn({ level }, `libdatachannel: ${message}`));
    openServices++;
  }

  /** Routes the server's WebSocket upgrades here. */
  attach(server: HttpServer | HttpsServer): this {
    server.on('upgrade', this.#onUpgrade);
    this.#servers.push(server);
    return this;
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy()); // a client vanishing mid-handshake is not our error
    const log = this.#o.log;
    if (this.#o.http && (req.headers.upgrade ?? '').toLowerCase() !== 'websocket' && head.length === 0) {
      serveWithoutUpgrade(this.#o.http, req, socket);
      return;
    }
    const target = upgradeTarget(req);
    try {
      if (target.monitorSegment === null) throw routeNotFound(target.path);
      const bad = handshakeProblem(req);
      if (bad) throw bad;
      const { monitorId } = await authoriseUpgrade(target, this.#o);
      if (this.#o.forward && (await this.#o.forward(monitorId, req, socket, head))) return;
      if (this.#o.streamingEnabled && !this.#o.streamingEnabled()) {
        throw new ServiceUnavailableError('Live streaming is disabled', [['setting', 'streaming.enabled']]);
      }
      if (this.#closed || !this.#o.feeds) throw new ServiceUnavailableError('Live streaming is not available');
      if (this.#sessions.size >= (this.#o.maxSessions ?? DEFAULT_MAX_SESSIONS)) {
        throw new ServiceUnavailableError('Too many WebRTC sessions', [
          ['limit', String(this.#o.maxSessions ?? DEFAULT_MAX_SESSIONS)],
        ]);
      }
      const feeds = this.#o.feeds;
      const feed = feeds.open(monitorId); // 404 MONITOR_NOT_FOUND "stream socket not available"
      if (socket.destroyed) return;
      this.#wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        const session = new WebRtcSession(ws, {
          monitorId,
          feed,
          feeds,
          iceServers: this.#iceServers,
          bindAddress: this.#o.bindAddress,
          log,
          timeouts: this.#o.timeouts,
          sent: this.#o.metrics?.liveBytes(monitorId, 'webrtc'),
          onClosed: () => this.#sessions.delete(session),
        });
        this.#sessions.add(session);
        session.start().catch((err: Error) => {
          log.warn({ err: { message: err.message } }, 'webrtc session start failed');
          session.close(1011, 'session could not start');
        });
      });
    } catch (err) {
      const apiError = toApiError(err);
      if (apiError.status >= 500 && apiError.status !== 503)
        log.error({ err, path: redactUrl(req.url ?? '') }, 'webrtc upgrade failed');
      else log.debug({ status: apiError.status, path: redactUrl(req.url ?? '') }, 'webrtc upgrade refused');
      refuseUpgrade(socket, apiError);
    }
  }

  /** Ends every session, stops accepting, and releases libdatachannel when no other service is open. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const server of this.#servers) server.off('upgrade', this.#onUpgrade);
    for (const session of [...this.#sessions]) session.close(1001, 'server shutting down');
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    if (--openServices === 0) {
      await settleTracks(); // closed tracks must have left node-datachannel's registry first
      ndc.cleanup();
    }
  }
}

/** Answers an upgrade request as a plain request on its own connection (closed afterwards). */
function serveWithoutUpgrade(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  req: IncomingMessage,
  socket: Duplex,
): void {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.on('finish', () => {
    res.detachSocket(socket as Socket);
    socket.end();
  });
  handler(req, res);
}

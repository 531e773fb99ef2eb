// The live HLS media answers (docs/contract/clients.md, done better): playlists from the session's
// LL-HLS packager with real parts and preload hints, blocking reloads on `_HLS_msn` and
// `_HLS_part`, the caller's `?token=` carried into every URI, reference segment names. Every
// request touches the session (idle reaping). A playlist request starts the monitor's session
// when there is none (the reference answers 404 until POST /start; a player given only the URL
// works here); init and segment requests are 404 without a session.
import type { AuthUser } from '../../auth/auth-service.js';
import { BadRequestError, InvalidInputError, NotFoundError } from '../../errors.js';
import { announcedCodecs, fallbackMasterPlaylist } from '../../live-hub/fallback-master.js';
import { parseRequestedName, renameUris } from '../../live-hub/hls-names.js';
import type { HlsSession } from '../../live-hub/hls-session.js';
import { LlHlsPackager } from '../../native/index.js';
import { LiveService } from './live-service.js';
import type { Services } from '../../registry.js';

/** How long a blocking reload, or a request for the next part, may wait (RFC 8216bis: ~3 targets). */
const WAIT_MS = 5000;

export interface HlsFile {
  body: Buffer;
  contentType: 'video/mp4' | 'video/iso.segment';
  /** The `init.mp4` alias: names whichever generation is current, so it must be revalidated. */
  current?: boolean;
}

export class LiveHlsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): LiveHlsService {
    return new LiveHlsService(s);
  }

  private readonly live: LiveService;
  private readonly lowLatency: boolean;

  constructor(services: Services) {
    this.live = services.get(LiveService);
    this.lowLatency = services.config.streaming.hls.ll_hls_enabled;
  }

  async master(user: AuthUser, monitorId: number, token: string | undefined): Promise<string> {
    const session = await this.session(user, monitorId, true);
    const query = uriQuery(session, token);
    let text = session.packager.masterPlaylist({ query });
    if (text === null) {
      // hls.js asks for the master right after /start: wait for the first media a little.
      await session.packager.waitFor(0, 0, WAIT_MS);
      session.touch();
      text = session.packager.masterPlaylist({ query });
    }
    if (text !== null) return text;
    // Still no keyframe (a long GOP, a camera slow to start): hls.js gives up for good on a
    // manifest 404, so answer from the HELLO's codecs; the media playlist then waits as usual.
    if (session.packager.stats().state === 'unsupported') throw notReady(monitorId, 'master.m3u8');
    return fallbackMasterPlaylist(announcedCodecs(session.helloCodecs()), `live.m3u8${query}`);
  }

  async media(user: AuthUser, monitorId: number, params: URLSearchParams, token: string | undefined): Promise<string> {
    const session = await this.session(user, monitorId, true);
    const { packager } = session;
    let blocking;
    try {
      blocking = LlHlsPackager.blockingRequest(params);
    } catch (err) {
      const message = (err as Error).message;
      throw new InvalidInputError('Invalid blocking playlist request', [
        [message.startsWith('_HLS_part') ? '_HLS_part' : '_HLS_msn', message],
      ]);
    }
    if (blocking && this.lowLatency) {
      if (packager.tooFarAhead(blocking.msn)) {
        throw new BadRequestError(`_HLS_msn ${blocking.msn} is more than two segments ahead of the playlist`, [
          ['_HLS_msn', String(blocking.msn)],
        ]);
      }
      // Answered with the current playlist either way, as soon as the segment/part exists or after WAIT_MS.
      await packager.waitFor(blocking.msn, blocking.part, WAIT_MS);
      session.touch();
    } else if (!packager.get('seg-0.m4s') && packager.stats().firstMsn === 0) {
      // Right after /start: wait for the first complete segment (hls.js calls a playlist of
      // parts only "empty" and retries a second later).
      await packager.waitFor(0, undefined, WAIT_MS);
      session.touch();
    }
    // Without LL-HLS the packager leaves out the parts and the whole open segment.
    const text = packager.playlist({ query: uriQuery(session, token), lowLatency: this.lowLatency });
    if (text === null) throw notReady(monitorId, 'live.m3u8');
    return renameUris(text);
  }

  async file(user: AuthUser, monitorId: number, name: string): Promise<HlsFile> {
    const requested = parseRequestedName(name);
    if (requested.kind === 'invalid') {
      throw new BadRequestError(`Invalid segment name: ${name.slice(0, 100)}`, [['segment', name.slice(0, 100)]]);
    }
    const session = await this.session(user, monitorId);
    const { packager } = session;
    if (requested.kind === 'current-init') {
      const body = packager.get(`init-${packager.stats().initId}.mp4`);
      if (!body) throw notReady(monitorId, 'init.mp4');
      return { body, contentType: 'video/mp4', current: true };
    }
    // A part or segment next in line (the preload hint) is waited for.
    const body = await packager.fetch(requested.name, WAIT_MS);
    session.touch();
    if (!body) {
      throw new NotFoundError(`Segment not found: ${name}`, [
        ['monitor_id', String(monitorId)],
        ['segment', name],
      ]);
    }
    return { body, contentType: requested.name.endsWith('.mp4') ? 'video/mp4' : 'video/iso.segment' };
  }

  private async session(user: AuthUser, monitorId: number, autoStart = false): Promise<HlsSession> {
    const session = await this.live.hlsSession(user, monitorId, autoStart);
    session.touch();
    return session;
  }
}

/** `?s=<session>` (cache key per session) and the caller's query token, if the playlist came with one. */
function uriQuery(session: HlsSession, token: string | undefined): string {
  return `?s=${session.epoch}${token ? `&token=${encodeURIComponent(token)}` : ''}`;
}

function notReady(monitorId: number, what: string): NotFoundError {
  return new NotFoundError(`The live stream of monitor ${monitorId} has no media yet`, [
    ['monitor_id', String(monitorId)],
    ['segment', what],
    ['reason', 'no media received yet'],
  ]);
}

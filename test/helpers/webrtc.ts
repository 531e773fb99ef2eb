// WebRTC test harness: a minimal LiveFeeds (one StreamClient per monitor over the fake zmc's
// socket directory, viewer counts, recorded start-up timings) and the app with the WebRTC
// endpoint attached, so signalling and media can be tested before/without the real live hub.
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/index.js';
import { createPool } from '../../src/db/pool.js';
import { createPrismaClient } from '../../src/db/prisma.js';
import { NotFoundError } from '../../src/errors.js';
import { createApp } from '../../src/http/app.js';
import type { LiveFeed, LiveFeeds, ViewerKind, WebRtcStartup } from '../../src/live-hub/feed.js';
import { WebRtcService, type WebRtcServiceOptions } from '../../src/features/live/webrtc/webrtc-service.js';
import { createLogger } from '../../src/log.js';
import { StreamClient, streamSocketPath } from '../../src/native/index.js';
import { createServices } from '../../src/app/services.js';
import { testEnv } from './app.js';
import type { FreshDatabase } from './mariadb.js';

export class TestLiveFeeds implements LiveFeeds {
  readonly feeds = new Map<number, LiveFeed & { viewers: Array<{ kind: ViewerKind; audio: boolean }> }>();
  readonly startups: Array<{ monitorId: number; startup: WebRtcStartup }> = [];

  constructor(readonly socketDir: string) {}

  open(monitorId: number): LiveFeed {
    const existing = this.feeds.get(monitorId);
    if (existing && !existing.client.closed) return existing;
    const path = streamSocketPath(this.socketDir, monitorId);
    if (!existsSync(path)) {
      throw new NotFoundError(
        `Monitor ${monitorId} not found`,
        [
          ['monitor_id', String(monitorId)],
          ['reason', 'stream socket not available'],
        ],
        'MONITOR',
      );
    }
    const client = new StreamClient({ path, reconnect: { initialDelayMs: 100, maxDelayMs: 400 } });
    const viewers: Array<{ kind: ViewerKind; audio: boolean }> = [];
    const feed = {
      monitorId,
      client,
      viewers,
      retain(kind: ViewerKind, options: { audio?: boolean } = {}) {
        const entry = { kind, audio: options.audio ?? false };
        viewers.push(entry);
        let released = false;
        return () => {
          if (released) return;
          released = true;
          viewers.splice(viewers.indexOf(entry), 1);
        };
      },
    };
    this.feeds.set(monitorId, feed);
    return feed;
  }

  recordWebRtcStartup(monitorId: number, startup: WebRtcStartup): void {
    this.startups.push({ monitorId, startup });
  }

  viewers(monitorId: number): number {
    return this.feeds.get(monitorId)?.viewers.length ?? 0;
  }

  async close(): Promise<void> {
    await Promise.all([...this.feeds.values()].map((f) => f.client.close()));
  }
}

export interface WebRtcApp {
  api(path: string): string;
  ws(monitorId: number | string, token?: string): string;
  feeds: TestLiveFeeds;
  webrtc: WebRtcService;
  close(): Promise<void>;
}

export async function startWebRtcApp(
  db: FreshDatabase,
  socketDir: string,
  options: Partial<Pick<WebRtcServiceOptions, 'timeouts' | 'streamingEnabled' | 'maxSessions'>> & {
    env?: Record<string, string>;
    feeds?: LiveFeeds | null;
  } = {},
): Promise<WebRtcApp> {
  const { config } = loadConfig({
    env: testEnv({ db, env: options.env }),
    defaultOperatorFile: '/nonexistent/prod.toml',
  });
  const log = createLogger({ level: 'fatal' });
  const pool = createPool(config.db);
  const prisma = createPrismaClient(config.db);
  const services = createServices(config, log, pool, prisma);
  const server = http.createServer(createApp(services));
  const feeds = new TestLiveFeeds(socketDir);
  const webrtc = new WebRtcService({
    auth: services.auth,
    acl: services.acl,
    config,
    log,
    feeds: options.feeds === undefined ? feeds : options.feeds,
    bindAddress: '127.0.0.1',
    timeouts: options.timeouts,
    streamingEnabled: options.streamingEnabled,
    maxSessions: options.maxSessions,
  }).attach(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    api: (path) => `http://127.0.0.1:${port}/api/v3${path}`,
    ws: (id, token) =>
      `ws://127.0.0.1:${port}/api/v3/live/${id}/webrtc/ws${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`,
    feeds,
    webrtc,
    async close() {
      await webrtc.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await feeds.close();
      await pool.end();
      await prisma.$disconnect();
    },
  };
}

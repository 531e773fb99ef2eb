// Starts the service: configuration, logger, pool, HTTP listener, and graceful shutdown.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadConfig } from './config/index.js';
import type { AppConfig, ConfigNotice } from './config/types.js';
import { createLogger, type Logger } from './log.js';
import { createPool, type DbPool } from './db/pool.js';
import { lazyPrismaClient } from './db/lazy-prisma.js';
import { DbGate } from './db/bounded.js';
import { runStartupMigrations } from './db/startup-migrations.js';
import { createServices, type Services } from './app/services.js';
import { createApp } from './http/app.js';
import { metricsEndpoint } from './http/metrics-endpoint.js';
import type { WebRtcService } from './features/live/webrtc/webrtc-service.js';
import { iceServersFrom } from './features/live/webrtc/ice-servers.js';
import { SERVICE_VERSION } from './version.js';
import { Maintenance } from './features/maintenance/index.js';
import { Daemons } from './features/daemons/daemon-manager.js';
import { RetentionService } from './features/retention/retention-service.js';
import { PushService } from './features/push/push-service.js';
import type { AcmeManager } from './infra/acme/acme-manager.js';
import { ClusterService } from './infra/cluster/cluster-service.js';
import { forwardOwnedUpgrade } from './infra/cluster/cluster-proxy.js';

export interface RunningServer {
  url: string;
  port: number;
  config: AppConfig;
  log: Logger;
  /** The app's infrastructure and service registry (tests read service state through it). */
  services: Services;
  /** The certificate manager when server.acme is enabled. */
  acme: AcmeManager | null;
  /** The metrics' own listener (`metrics.port`), when there is one. */
  metricsUrl: string | null;
  /** Stops accepting, drains open requests (up to the grace period), closes the pool. */
  close(): Promise<void>;
}

/**
 * The certificate for HTTPS when server.tls is enabled (null: plain HTTP). Read before anything
 * else starts, so a bad path stops start-up cleanly.
 */
function tlsCredentials(config: AppConfig): { cert: Buffer; key: Buffer } | null {
  const { tls, acme } = config.server;
  if (acme.enabled || !tls.enabled) return null;
  const read = (key: string, path: string) => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`${key}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, {
        cause: err,
      });
    }
  };
  return { cert: read('server.tls.cert_path', tls.cert_path), key: read('server.tls.key_path', tls.key_path) };
}

export function logNotices(log: Logger, notices: ConfigNotice[]): void {
  for (const n of notices) log[n.level]({ key: n.key, source: n.source }, n.msg);
}

export async function startServer(config: AppConfig, log: Logger): Promise<RunningServer> {
  const credentials = tlsCredentials(config);
  // acme-client and its X.509 stack (~8 MB of heap) load only when ACME is switched on.
  const acme = config.server.acme.enabled
    ? new (await import('./infra/acme/acme-manager.js')).AcmeManager(config.server.acme, log, {
        addr: config.server.addr,
      })
    : null;
  // Before the pool and the listener, so no request sees a half-migrated schema. Never throws:
  // a failure is one warning, and routes that need what is missing answer with the envelope.
  // On an older ZoneMinder it also prepares the tables zmgate keeps beside it (db/side-tables.ts).
  const tables = config.db.migrate_on_start ? (await runStartupMigrations(config.db, log)).tables : undefined;
  // One gate for both pools: a database found not answering fails every statement at once.
  const gate = new DbGate();
  const pool: DbPool = createPool(config.db, gate, tables);
  // Built on the first route that needs it (the polled set reads through the pool).
  const prisma = lazyPrismaClient(config.db, gate, tables);
  const services = createServices(config, log, pool, prisma, { gate, tables });
  const app = createApp(services);
  // One listener: HTTPS or HTTP, never both.
  // Live push (socket.io) answers its own path, HTTP and upgrades alike; everything else is the app's.
  const push = services.get(PushService);
  const handler = push.wrap(app);
  const server = acme
    ? https.createServer({ SNICallback: acme.sniCallback }, handler)
    : credentials
      ? https.createServer(credentials, handler)
      : http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  // tls-alpn-01 is answered on this listener: its connections are routed by their ClientHello.
  acme?.attach(server as https.Server);
  // Static TLS: SIGHUP re-reads the certificate files (what certbot's deploy hooks expect). Only
  // new handshakes get the new context; open connections carry on. A bad file keeps the old one.
  const reloadTls = () => {
    try {
      (server as https.Server).setSecureContext(tlsCredentials(config)!);
      log.info({ cert: config.server.tls.cert_path }, 'TLS certificate reloaded');
    } catch (err) {
      log.error(
        { err: { message: (err as Error).message } },
        'TLS certificate reload failed; still serving the previous certificate',
      );
    }
  };
  if (credentials) process.on('SIGHUP', reloadTls);
  // WebRTC signalling is a WebSocket on the same listener: every upgrade outside the push path.
  // libdatachannel and the session code load on the first such upgrade, so an API-only service
  // does not hold them; the TURN/ICE settings are still checked here, before the listener.
  iceServersFrom(config);
  let webrtc: Promise<WebRtcService> | null = null;
  const webrtcService = () =>
    (webrtc ??= import('./features/live/webrtc/webrtc-service.js').then(
      ({ WebRtcService }) =>
        new WebRtcService({
          auth: services.auth,
          acl: services.acl,
          config,
          log,
          feeds: services.live,
          streamingEnabled: () => config.streaming.enabled,
          metrics: services.metrics,
          http: app,
          // Multi-server: signalling for another host's monitor goes to that host.
          forward: (monitorId, req, socket, head) => forwardOwnedUpgrade(services, monitorId, req, socket, head),
        }),
    ));
  server.on('upgrade', (req, socket, head) => {
    if (push.owns(req)) push.handleUpgrade(req, socket, head);
    else
      void webrtcService().then(
        (w) => w.handleUpgrade(req, socket, head),
        (err: Error) => {
          log.error({ err: { message: err.message } }, 'webrtc could not be loaded');
          socket.destroy();
        },
      );
  });
  push.start();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.server.port, config.server.addr, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // After the listener is up: tls-alpn-01 is answered on it.
  await acme?.start();
  // Takeover mode: the supervisor starts once the API answers (its routes report what it does).
  const daemons = services.get(Daemons);
  await daemons?.run();
  const { port } = server.address() as AddressInfo;
  // Multi-server: publish this host's token keys and URL for the others (idle on a single server).
  await services.get(ClusterService).start(port);
  const host = config.server.addr === '0.0.0.0' || config.server.addr === '::' ? '127.0.0.1' : config.server.addr;
  const scheme = config.server.tls.enabled || acme ? 'https' : 'http';
  const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log.info({ addr: config.server.addr, port, version: SERVICE_VERSION }, 'listening');
  // Prometheus metrics on a listener of their own (plain HTTP), when `metrics.port` is set.
  const m = config.metrics;
  const metricsServer =
    m.enabled && m.port > 0 ? http.createServer(metricsEndpoint(services.metrics, m.bearer_token, m.path)) : null;
  if (metricsServer) {
    await new Promise<void>((resolve, reject) => {
      metricsServer.once('error', reject);
      metricsServer.listen(m.port, m.host, () => {
        metricsServer.off('error', reject);
        resolve();
      });
    });
    log.info({ addr: m.host, port: m.port, path: m.path }, 'metrics listening');
  }
  const metricsUrl = metricsServer
    ? `http://${m.host.includes(':') ? `[${m.host}]` : m.host}:${(metricsServer.address() as AddressInfo).port}${m.path}`
    : null;
  const maintenance = services.get(Maintenance);
  maintenance.start();
  const retention = services.get(RetentionService);
  retention.start();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      log.info('shutting down: no new connections, draining');
      await maintenance
        .stop()
        .catch((err: Error) => log.warn({ err: { message: err.message } }, 'maintenance stop failed'));
      process.off('SIGHUP', reloadTls);
      // Upgraded sockets are not HTTP connections: end the WebRTC sessions (close 1001) first.
      await retention
        .close()
        .catch((err: Error) => log.warn({ err: { message: err.message } }, 'retention close failed'));
      await acme?.close();
      await webrtc
        ?.then((w) => w.close())
        .catch((err: Error) => log.warn({ err: { message: err.message } }, 'webrtc close failed'));
      await push.close().catch((err: Error) => log.warn({ err: { message: err.message } }, 'push close failed'));
      await services
        .get(ClusterService)
        .close()
        .catch((err: Error) => log.warn({ err: { message: err.message } }, 'cluster close failed'));
      metricsServer?.close();
      metricsServer?.closeAllConnections();
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = new Promise<void>((resolve) =>
        setTimeout(resolve, config.server.shutdown_grace_secs * 1000).unref(),
      );
      await Promise.race([drained, grace]);
      server.closeAllConnections();
      // The supervised daemons stop cleanly (TERM, KILL after the grace) before the pool closes.
      await daemons
        ?.close()
        .catch((err: Error) => log.warn({ err: { message: err.message } }, 'daemon supervisor close failed'));
      // Readers are closed after the HTTP side: a live request in flight sees its playlist end.
      await services.live
        .close()
        .catch((err: Error) => log.warn({ err: { message: err.message } }, 'live hub close failed'));
      await pool.end().catch((err: Error) => log.warn({ err: { message: err.message } }, 'pool close failed'));
      await prisma
        .$disconnect()
        .catch((err: Error) => log.warn({ err: { message: err.message } }, 'prisma close failed'));
      log.info('stopped');
    })());

  return { url, port, config, log, services, acme, metricsUrl, close };
}

/** The `zmgate` server entry: load config (one line and exit 1 on error), start, wait for a signal. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let loaded;
  try {
    loaded = loadConfig({ env });
  } catch (err) {
    process.stderr.write(`zmgate: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const log = createLogger({ level: loaded.config.log.level });
  logNotices(log, loaded.notices);
  let running: RunningServer;
  try {
    running = await startServer(loaded.config, log);
  } catch (err) {
    // Start-up failures (port in use, unreadable certificate) are one line, not a stack.
    process.stderr.write(`zmgate: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const stop = (signal: string) => {
    log.info({ signal }, 'signal received');
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

// Built-in ACMEv2 certificates (`server.acme.*`) with acme-client: the account key and the
// certificate live in `cache_dir` (mode 0700, files 0600); a certificate is obtained at start-up
// when missing, renewed 30 days before it expires on a node-schedule timer, and swapped into the
// live listener through its SNI callback (new handshakes get the new context, open connections
// keep theirs). Failures are retried with back-off and logged with the CA's problem document.
// Until a first certificate exists, TLS handshakes fail with an alert and a logged reason.
// Challenges: tls-alpn-01 (default) is answered on the main listener itself (see alpn-router.ts);
// http-01 on a plain listener at `http_port`.
import { accessSync, chmodSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import * as acme from 'acme-client';
import schedule from 'node-schedule';
import type { AppConfig } from '../../config/types.js';
import type { Logger } from '../../log.js';
import { routeAcmeTlsAlpn } from './alpn-router.js';

const LETS_ENCRYPT = {
  production: 'https://acme-v02.api.letsencrypt.org/directory',
  staging: 'https://acme-staging-v02.api.letsencrypt.org/directory',
};
const DAY_MS = 86_400_000;
/** Renew this long before expiry; from WARN_DAYS on, every check logs at error level. */
const RENEW_DAYS = 30;
const WARN_DAYS = 7;
const CHALLENGE_PREFIX = '/.well-known/acme-challenge/';

export interface AcmeOptions {
  /** The address the http-01 listener binds (the main listener's). */
  addr?: string;
}

/** The cache directory, created with private modes; a clear error when it cannot be written. */
export function prepareCacheDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new Error(
      `server.acme.cache_dir: ${dir} is not writable by this user (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      { cause: err },
    );
  }
}

function problemOf(err: unknown): string {
  // acme-client puts the CA's problem document (RFC 8555 §6.7) into the message.
  return err instanceof Error ? err.message : String(err);
}

export class AcmeManager {
  private context: tls.SecureContext | null = null;
  private notAfter: Date | null = null;
  private readonly tokens = new Map<string, string>();
  /** tls-alpn-01: the challenge certificate per (lower-case) domain while its challenge is pending. */
  private readonly alpnContexts = new Map<string, tls.SecureContext>();
  private unroute: (() => void) | null = null;
  private httpServer: http.Server | null = null;
  private job: schedule.Job | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private failures = 0;
  private closed = false;
  /** Back-off after a failure: min, doubling up to max (one minute to six hours). */
  readonly retry = { minMs: 60_000, maxMs: 6 * 3600_000 };

  constructor(
    private readonly config: AppConfig['server']['acme'],
    private readonly log: Logger,
    private readonly options: AcmeOptions = {},
  ) {}

  private file(name: string): string {
    return join(this.config.cache_dir, name);
  }

  /** The SNI callback of the HTTPS listener: the current certificate, or a handshake failure. */
  readonly sniCallback = (servername: string, cb: (err: Error | null, ctx?: tls.SecureContext) => void): void => {
    if (this.context) return cb(null, this.context);
    this.log.warn({ servername }, 'ACME: no certificate yet; refusing the TLS handshake');
    cb(new Error('no certificate yet'));
  };

  /**
   * Connects the challenge to the main HTTPS listener: for tls-alpn-01, every new connection's
   * ClientHello is read first and `acme-tls/1` connections get the challenge certificate. Nothing
   * changes for http-01. Call before the listener accepts connections.
   */
  attach(server: tls.Server): void {
    if (this.config.challenge !== 'tls-alpn-01' || this.unroute) return;
    this.unroute = routeAcmeTlsAlpn(server, {
      challengeContext: (name) => this.alpnContexts.get(name) ?? null,
      log: this.log,
    });
  }

  /** When the certificate in use expires (null before the first one). */
  get expires(): Date | null {
    return this.notAfter;
  }

  /**
   * Loads the cached certificate, starts the http-01 listener when configured, obtains a
   * certificate when none is usable (in the background, retried), and schedules the daily check.
   */
  async start(): Promise<void> {
    prepareCacheDir(this.config.cache_dir);
    this.loadCached();
    if (this.config.challenge === 'http-01') await this.listenHttp01();
    // Daily at a random minute, so that many installs do not all call the CA at once.
    this.job = schedule.scheduleJob(`${Math.floor(Math.random() * 60)} 3 * * *`, () => void this.check());
    void this.check();
  }

  /** The port of the http-01 listener (tests use port 0). */
  get httpPort(): number | null {
    return this.httpServer ? (this.httpServer.address() as AddressInfo).port : null;
  }

  private loadCached(): void {
    if (!existsSync(this.file('cert.pem')) || !existsSync(this.file('key.pem'))) return;
    try {
      this.install(readFileSync(this.file('key.pem')), readFileSync(this.file('cert.pem')));
    } catch (err) {
      this.log.warn(
        { err: { message: (err as Error).message } },
        'ACME: the cached certificate is unusable; obtaining a new one',
      );
    }
  }

  private install(key: Buffer, cert: Buffer): void {
    const info = acme.crypto.readCertificateInfo(cert);
    this.context = tls.createSecureContext({ key, cert });
    this.notAfter = info.notAfter;
    this.log.info(
      { domains: info.domains.altNames, not_after: info.notAfter.toISOString() },
      'ACME: certificate in use',
    );
  }

  private daysLeft(): number {
    return this.notAfter ? (this.notAfter.getTime() - Date.now()) / DAY_MS : -Infinity;
  }

  /** Renews when missing or within RENEW_DAYS; `force` renews now (operators, tests). */
  check(force = false): Promise<void> {
    const left = this.daysLeft();
    if (this.notAfter && left < WARN_DAYS) {
      this.log.error(
        { not_after: this.notAfter.toISOString(), days_left: Math.floor(left) },
        left <= 0
          ? 'ACME: the certificate has EXPIRED and renewal has not succeeded'
          : 'ACME: the certificate expires soon and renewal has not succeeded',
      );
    }
    if (!force && left > RENEW_DAYS) return Promise.resolve();
    return (this.running ??= this.obtain().finally(() => {
      this.running = null;
    }));
  }

  private async obtain(): Promise<void> {
    try {
      const client = new acme.Client({
        directoryUrl:
          this.config.directory_url || (this.config.production ? LETS_ENCRYPT.production : LETS_ENCRYPT.staging),
        accountKey: this.accountKey(),
      });
      const [key, csr] = await acme.crypto.createCsr({ altNames: this.config.domains });
      const cert = await client.auto({
        csr,
        email: this.config.contact_emails[0],
        termsOfServiceAgreed: true,
        // The client's own pre-check dials port 80 and 443 by name, which is wrong behind NAT or
        // with another http_port; the CA's validation is the one that counts.
        skipChallengeVerification: true,
        challengePriority: [this.config.challenge],
        // The library's typings list only http-01 and dns-01 challenge objects.
        challengeCreateFn: async (authz, challenge, keyAuthorization) => {
          if ((challenge.type as string) === 'tls-alpn-01') {
            // RFC 8737: self-signed, the domain as its only name, the key authorization's digest in
            // the critical acmeIdentifier extension. An EC key: quick to make, small to send.
            const [alpnKey, alpnCert] = await acme.crypto.createAlpnCertificate(
              authz,
              keyAuthorization,
              await acme.crypto.createPrivateEcdsaKey(),
            );
            this.alpnContexts.set(
              authz.identifier.value.toLowerCase(),
              tls.createSecureContext({ key: alpnKey, cert: alpnCert }),
            );
          } else {
            this.tokens.set(challenge.token, keyAuthorization);
          }
        },
        challengeRemoveFn: async (authz, challenge) => {
          if ((challenge.type as string) === 'tls-alpn-01')
            this.alpnContexts.delete(authz.identifier.value.toLowerCase());
          else this.tokens.delete(challenge.token);
        },
      });
      writeFileSync(this.file('key.pem'), key, { mode: 0o600 });
      writeFileSync(this.file('cert.pem'), cert, { mode: 0o600 });
      this.install(key, Buffer.from(cert));
      this.failures = 0;
    } catch (err) {
      this.failures += 1;
      const delay = Math.min(this.retry.maxMs, this.retry.minMs * 2 ** (this.failures - 1));
      this.log.error(
        { problem: problemOf(err), attempt: this.failures, retry_in_ms: delay },
        'ACME: obtaining a certificate failed',
      );
      if (!this.closed) {
        this.retryTimer = setTimeout(() => void this.check(true), delay);
        this.retryTimer.unref();
      }
    }
  }

  private accountKey(): Buffer {
    const path = this.file('account.key');
    if (existsSync(path)) return readFileSync(path);
    // Created once per install; an EC key keeps the account's signatures small.
    const key = Buffer.from(
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    writeFileSync(path, key, { mode: 0o600 });
    return key;
  }

  /** http-01: a plain listener answering only the challenge path; everything else is a 404. */
  private listenHttp01(): Promise<void> {
    const server = http.createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0]!;
      const answer = path.startsWith(CHALLENGE_PREFIX)
        ? this.tokens.get(path.slice(CHALLENGE_PREFIX.length))
        : undefined;
      if (answer === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end(answer);
    });
    this.httpServer = server;
    return new Promise((resolve, reject) => {
      server.once('error', (err) =>
        reject(
          new Error(
            `server.acme.http_port: cannot listen on ${this.config.http_port} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
          ),
        ),
      );
      server.listen(this.config.http_port, this.options.addr, () => resolve());
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.job?.cancel();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.running?.catch(() => undefined);
    this.unroute?.();
    this.unroute = null;
    if (this.httpServer) await new Promise<void>((resolve) => this.httpServer!.close(() => resolve()));
  }
}

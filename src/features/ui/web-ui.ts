// Serves a browser UI's static build from `web.root` beside the API (`web.enabled`): files from
// the root, the single-page fallback to index.html for client routes, long-lived caching of
// hashed assets, precompressed `.br`/`.gz` siblings, ETag/304, the UI's own CSP, and a generated
// `/config.js` when the build has none. The contract is docs/contract/web-ui.md.
import { createReadStream, existsSync, realpathSync, statSync, type Stats } from 'node:fs';
import { extname, join, sep } from 'node:path';
import type { Express, Request, RequestHandler, Response } from 'express';
import type { AppConfig } from '../../config/types.js';
import type { Logger } from '../../log.js';

/** What a client build reads at run time; apiBase is where it finds the v3 API on this origin. */
export const GENERATED_CONFIG_JS = 'window.__ZM_CONFIG__ = {apiBase: "/api/v3"};\n';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * A bundler's content-hashed file name (`index-B7x9Qa1c.js`, `app.3f2a9c1d.css`): a run of eight or
 * more URL-safe characters with a digit or a capital after `-` or `.`, right before the extension.
 * Plain names (`favicon.ico`, `material-symbols.woff2`) are not hashed and are revalidated.
 */
export function isHashedAsset(name: string): boolean {
  const m = /[-.]([A-Za-z0-9_-]{8,})\.[A-Za-z0-9]+$/.exec(name);
  return m !== null && /[0-9A-Z]/.test(m[1]!);
}

/** The URL path as a list of decoded segments, or null when it could leave the root or is malformed. */
export function safeSegments(rawPath: string): string[] | null {
  const segments: string[] = [];
  for (const raw of rawPath.split('/')) {
    if (raw === '') continue;
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return null;
    }
    // Dot segments, separators smuggled in by encoding, NUL and other control characters.
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
    if (seg === '.' || seg === '..' || /[/\\\0-\x1f]/.test(seg)) return null;
    segments.push(seg);
  }
  return segments;
}

/** The path prefixes that belong to the API and never fall back to the UI. */
function reservedPrefixes(config: AppConfig): string[] {
  const explorer = config.server.explorer_path.replace(/\/+$/, '');
  return ['/api', explorer, '/api-docs', '/.well-known'];
}

function isReserved(path: string, prefixes: string[]): boolean {
  return prefixes.some((p) => path === p || path.startsWith(`${p}/`));
}

interface Found {
  file: string;
  stat: Stats;
}

/**
 * A regular file under `realRoot`; 'escape' when the path exists but resolves (through a symlink)
 * outside the root; null when there is no such file.
 */
function findFile(realRoot: string, segments: string[]): Found | 'escape' | null {
  const candidate = join(realRoot, ...segments);
  let real: string;
  try {
    real = realpathSync(candidate);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? null : 'escape';
  }
  if (!real.startsWith(realRoot + sep)) return 'escape';
  const stat = statSync(real, { throwIfNoEntry: false });
  return stat?.isFile() ? { file: real, stat } : null;
}

/** A file that exists inside the root, or null (missing or escaping). */
function fileInRoot(realRoot: string, segments: string[]): Found | null {
  const f = findFile(realRoot, segments);
  return f === 'escape' ? null : f;
}

function etagOf(stat: Stats, encoding: string): string {
  return `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}${encoding ? `-${encoding}` : ''}"`;
}

function setCsp(res: Response, csp: string): void {
  if (csp) res.setHeader('Content-Security-Policy', csp);
  else res.removeHeader('Content-Security-Policy');
}

/** Sends `found` (or its best precompressed sibling the client accepts) with validators. */
function sendFile(req: Request, res: Response, realRoot: string, segments: string[], found: Found): void {
  const name = segments.at(-1) ?? 'index.html';
  const siblings: Array<{ encoding: string; found: Found }> = [];
  for (const [encoding, suffix] of [
    ['br', '.br'],
    ['gzip', '.gz'],
  ] as const) {
    const s = fileInRoot(realRoot, [...segments.slice(0, -1), name + suffix]);
    if (s) siblings.push({ encoding, found: s });
  }
  let chosen = found;
  let encoding = '';
  if (siblings.length > 0) {
    // The smallest the client accepts (brotli before gzip), whatever order the client lists them.
    const sibling = siblings.find((s) => req.acceptsEncodings(s.encoding) === s.encoding);
    if (sibling) {
      chosen = sibling.found;
      encoding = sibling.encoding;
    }
  }
  res.type(extname(name) || 'html');
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('Cache-Control', isHashedAsset(name) ? IMMUTABLE : 'no-cache');
  res.setHeader('ETag', etagOf(chosen.stat, encoding));
  res.setHeader('Last-Modified', chosen.stat.mtime.toUTCString());
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  if (encoding) res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', String(chosen.stat.size));
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = createReadStream(chosen.file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

/**
 * The UI handler, registered after every API route and before the JSON 404. Logs a warning (once,
 * here) when the root has no index.html: the API is then served alone.
 */
export function webUiHandler(config: AppConfig, log: Logger): RequestHandler {
  const { root, content_security_policy: csp } = config.web;
  let realRoot: string | null = null;
  try {
    realRoot = realpathSync(root);
  } catch {
    /* warned below */
  }
  const hasIndex = realRoot !== null && existsSync(join(realRoot, 'index.html'));
  if (!hasIndex) log.warn({ root }, 'web.enabled: web.root has no index.html; serving the API only');
  const reserved = reservedPrefixes(config);

  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isReserved(req.path, reserved)) return next();
    const segments = safeSegments(req.path);
    // Anything that could name a file outside the root is a plain 404, never the fallback.
    if (segments === null) return next();
    const found = realRoot !== null && segments.length ? findFile(realRoot, segments) : null;
    // A symlink out of the root is a 404 too, not the fallback.
    if (found === 'escape') return next();
    if (found) {
      setCsp(res, csp);
      sendFile(req, res, realRoot!, segments, found);
      return;
    }
    if (segments.length === 1 && segments[0] === 'config.js') {
      setCsp(res, csp);
      res.setHeader('Cache-Control', 'no-cache');
      res.type('js').send(GENERATED_CONFIG_JS);
      return;
    }
    // Client routes (`/events/123`) get index.html; a missing file with an extension (an old
    // chunk, a typo) stays a 404 unless a browser navigates to it.
    const last = segments.at(-1) ?? '';
    const navigation = !last.includes('.') || /\btext\/html\b/.test(req.get('accept') ?? '');
    if (!hasIndex || !navigation) return next();
    const index = fileInRoot(realRoot!, ['index.html']);
    if (!index) return next();
    setCsp(res, csp);
    sendFile(req, res, realRoot!, ['index.html'], index);
  };
}

export function registerWebUi(app: Express, config: AppConfig, log: Logger): void {
  app.use(webUiHandler(config, log));
}

// CORS origins: validating `server.allowed_origins` entries and matching request origins.
// Entries are exact origins (`scheme://host[:port]`) or `scheme://host:*` (any port);
// a bare `*` is refused so a deployment never opens its API to every site by accident.
import { BadValue, list, type ListType, type ValueType } from './values.js';

/** Used when no origins are configured: browsers on this machine only. */
export const DEFAULT_ALLOWED_ORIGINS: readonly string[] = [
  'http://localhost:*',
  'http://127.0.0.1:*',
  'http://[::1]:*',
];

interface OriginParts {
  scheme: string;
  host: string;
  /** null: no port, or the scheme's default port; '*': any port. */
  port: string | null;
}

const ORIGIN_RE = /^([a-z][a-z0-9+.-]*):\/\/(\[[0-9a-f:.]+\]|[a-z0-9._~-]+)(?::(\d{1,5}|\*))?$/i;
// Browsers leave the default port out of the Origin header, so `:443` and no port are the same.
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

function splitOrigin(text: string): OriginParts | null {
  const m = ORIGIN_RE.exec(text.trim());
  if (!m) return null;
  const scheme = m[1].toLowerCase();
  const host = m[2].toLowerCase();
  let port: string | null = m[3] ?? null;
  if (port !== null && port !== '*') {
    const n = Number(port);
    if (n < 1 || n > 65535) return null;
    port = DEFAULT_PORTS[scheme] === String(n) ? null : String(n);
  }
  return { scheme, host, port };
}

function joinOrigin(o: OriginParts): string {
  return `${o.scheme}://${o.host}${o.port === null ? '' : `:${o.port}`}`;
}

const ENTRY_ALLOWED =
  'must be an exact origin scheme://host[:port] (no path) or scheme://host:* (any port); a bare "*" is not accepted';

/** One configured entry, returned normalised (lower case, default port dropped). */
export const originEntry: ValueType<string> = {
  allowed: ENTRY_ALLOWED,
  parse(raw) {
    const parts = typeof raw === 'string' ? splitOrigin(raw) : null;
    if (!parts) throw new BadValue(ENTRY_ALLOWED);
    return joinOrigin(parts);
  },
};

/** `server.allowed_origins`: a TOML array or a comma-separated string. */
export const originList: ListType = list(originEntry);

/** The CORS check: true when `origin` (an Origin header value) is allowed. */
export function originMatcher(allowed: readonly string[]): (origin: string) => boolean {
  const entries = allowed.map(splitOrigin).filter((o): o is OriginParts => o !== null);
  return (origin) => {
    const o = splitOrigin(origin);
    if (!o || o.port === '*') return false;
    return entries.some((e) => e.scheme === o.scheme && e.host === o.host && (e.port === '*' || e.port === o.port));
  };
}

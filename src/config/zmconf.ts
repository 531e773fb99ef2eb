// ZoneMinder's own configuration (zm.conf, then conf.d/*.conf beside it), read the way
// ZoneMinder reads it, for the database settings, paths and the multi-server identity only.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, type ConfigNotice } from './types.js';
import type { RawEntry } from './layers.js';

/** Where a relative ZM_DIR_EVENTS is anchored when zm.conf does not say ZM_PATH_WEB (Debian). */
const DEFAULT_PATH_WEB = '/usr/share/zoneminder/www';
const MYSQL_PORT = 3306;

interface ZmValue {
  value: string;
  /** The file the value was last set in. */
  source: string;
}

/**
 * One file's NAME=VALUE lines, names upper-cased. Blank and `#` lines are skipped, whitespace
 * around name, `=` and value trimmed, one pair of surrounding quotes stripped, and a trailing
 * backslash is dropped and the next line appended as it is (as Perl's usual idiom does).
 * Returns the line numbers that are not NAME=VALUE.
 */
export function parseZmConf(text: string): { values: Map<string, string>; badLines: number[] } {
  const values = new Map<string, string>();
  const badLines: number[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const first = i + 1;
    let line = lines[i];
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      line = line.replace(/\\\s*$/, '') + lines[++i];
    }
    line = line.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    const name = eq > 0 ? line.slice(0, eq).trim() : '';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      badLines.push(first);
      continue;
    }
    values.set(name.toUpperCase(), unquote(line.slice(eq + 1).trim()));
  }
  return { values, badLines };
}

function unquote(s: string): string {
  const q = s[0];
  return s.length >= 2 && (q === '"' || q === "'") && s.endsWith(q) ? s.slice(1, -1) : s;
}

/** ZM_DB_HOST: `host`, `host:port` or `host:/path/to.sock` (there is no ZM_DB_PORT). */
export function parseDbHost(text: string): { host: string; port: number; socket: string | null } | null {
  const t = text.trim();
  let host: string;
  let rest: string | undefined;
  if (t.startsWith('[')) {
    // Bracketed IPv6 literal, a courtesy: ZoneMinder itself splits at the first colon.
    const end = t.indexOf(']');
    if (end < 0 || (end + 1 < t.length && t[end + 1] !== ':')) return null;
    host = t.slice(1, end);
    rest = end + 1 < t.length ? t.slice(end + 2) : undefined;
  } else {
    const colon = t.indexOf(':');
    host = colon < 0 ? t : t.slice(0, colon);
    rest = colon < 0 ? undefined : t.slice(colon + 1);
  }
  // libmysql treats an empty host as localhost.
  if (host === '') host = 'localhost';
  // Plain `localhost` means libmysql's default socket, whose path differs per distribution;
  // we connect over TCP to localhost:3306 instead, which MariaDB/MySQL also accept by default.
  if (rest === undefined) return { host, port: MYSQL_PORT, socket: null };
  if (/^\d+$/.test(rest)) {
    const port = Number(rest);
    return port >= 1 && port <= 65535 ? { host, port, socket: null } : null;
  }
  if (rest.startsWith('/')) return { host, port: MYSQL_PORT, socket: rest };
  return null;
}

function errorCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/** zm.conf then conf.d/*.conf in name order; later files override earlier ones. */
export function readZmConfFiles(
  configPath: string,
  notices: ConfigNotice[],
): { values: Map<string, ZmValue>; files: string[] } {
  const values = new Map<string, ZmValue>();
  const files: string[] = [];
  const readOne = (file: string, missing: 'info' | 'silent') => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      const code = errorCode(err);
      if (code === 'ENOENT' && missing === 'info') {
        notices.push({
          level: 'info',
          msg: `ZoneMinder configuration ${file} not found; database settings and paths come from zmgate's configuration`,
          key: 'zoneminder.config_path',
          source: file,
        });
      } else if (code !== 'ENOENT') {
        notices.push({ level: 'warn', msg: `cannot read ${file} (${code ?? String(err)}); skipped`, source: file });
      }
      return;
    }
    files.push(file);
    const parsed = parseZmConf(text);
    for (const line of parsed.badLines) {
      notices.push({ level: 'warn', msg: `${file} line ${line} is not NAME=VALUE; ignored`, source: file });
    }
    for (const [name, value] of parsed.values) values.set(name, { value, source: file });
  };

  readOne(configPath, 'info');
  const confD = join(dirname(configPath), 'conf.d');
  let names: string[] = [];
  try {
    names = readdirSync(confD)
      .filter((n) => n.endsWith('.conf'))
      .sort();
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') {
      notices.push({
        level: 'warn',
        msg: `cannot list ${confD} (${errorCode(err) ?? String(err)}); skipped`,
        source: confD,
      });
    }
  }
  for (const name of names) readOne(join(confD, name), 'silent');
  return { values, files };
}

/** Settings taken from ZoneMinder: database connection and paths, nothing else. */
const SIMPLE: Array<[string, string]> = [
  ['ZM_DB_NAME', 'db.database_name'],
  ['ZM_DB_USER', 'db.username'],
  ['ZM_DB_PASS', 'db.password'],
  ['ZM_PATH_SOCKS', 'zoneminder.path_socks'],
  ['ZM_PATH_MAP', 'zoneminder.path_map'],
  ['ZM_PATH_BIN', 'daemon.bin_dir'],
];

/** The zm.conf layer as dotted-key entries; errors name the ZM_ variable and its file. */
export function zmConfEntries(values: Map<string, ZmValue>): Array<[string, RawEntry]> {
  const entries: Array<[string, RawEntry]> = [];
  const dbHost = values.get('ZM_DB_HOST');
  if (dbHost) {
    const parsed = parseDbHost(dbHost.value);
    if (!parsed) {
      throw new ConfigError('ZM_DB_HOST', dbHost.source, 'must be host, host:port or host:/path/to.sock', dbHost.value);
    }
    const from = { source: dbHost.source, name: 'ZM_DB_HOST' };
    entries.push(['db.host', { value: parsed.host, ...from }]);
    entries.push(['db.port', { value: parsed.port, ...from }]);
    entries.push(['db.socket', { value: parsed.socket ?? '', ...from }]);
  }
  for (const [zmName, key] of SIMPLE) {
    const v = values.get(zmName);
    if (v) entries.push([key, { value: v.value, source: v.source, name: zmName }]);
  }
  // Multi-server identity: ZM_SERVER_ID wins; otherwise the name (ZM_SERVER_NAME, older installs ZM_SERVER_HOST).
  const serverId = values.get('ZM_SERVER_ID');
  if (serverId && serverId.value !== '') {
    if (!/^\d+$/.test(serverId.value)) {
      throw new ConfigError(
        'ZM_SERVER_ID',
        serverId.source,
        'must be a Servers.Id (a non-negative integer)',
        serverId.value,
      );
    }
    entries.push([
      'cluster.server_id',
      { value: Number(serverId.value), source: serverId.source, name: 'ZM_SERVER_ID' },
    ]);
  }
  const serverName = values.get('ZM_SERVER_NAME') ?? values.get('ZM_SERVER_HOST');
  if (serverName && serverName.value !== '') {
    const name = values.has('ZM_SERVER_NAME') ? 'ZM_SERVER_NAME' : 'ZM_SERVER_HOST';
    entries.push(['cluster.server_name', { value: serverName.value, source: serverName.source, name }]);
  }
  const events = values.get('ZM_DIR_EVENTS');
  if (events) {
    // ZoneMinder takes a relative events directory relative to its web root.
    const web = values.get('ZM_PATH_WEB')?.value || DEFAULT_PATH_WEB;
    const dir = events.value === '' ? '' : resolve(web, events.value);
    entries.push(['zoneminder.dir_events', { value: dir, source: events.source, name: 'ZM_DIR_EVENTS' }]);
  }
  return entries;
}

// `zmgate-db -u URL` / DATABASE_URL: mysql:// or mariadb://user:password@host[:port]/database,
// user and password percent-encoded. `?socket=/path/to/mysqld.sock` connects over that unix
// socket instead (the host is then ignored; write e.g. mysql://zmuser:zmpass@localhost/zm?socket=...).
import type { ConnectionConfig } from 'mariadb';

export class DatabaseUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUrlError';
  }
}

export interface ParsedDatabaseUrl {
  database: string;
  connection: ConnectionConfig;
  /** For messages: the URL without its password. */
  display: string;
}

export function parseDatabaseUrl(text: string): ParsedDatabaseUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DatabaseUrlError(`not a URL: expected mysql://user:password@host:port/database`);
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    throw new DatabaseUrlError(`unsupported scheme '${url.protocol.replace(/:$/, '')}': use mysql:// or mariadb://`);
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database || database.includes('/'))
    throw new DatabaseUrlError('the URL names no database: mysql://user:password@host:port/database');
  for (const key of url.searchParams.keys()) {
    if (key !== 'socket')
      throw new DatabaseUrlError(`unknown URL parameter '${key}' (only ?socket=/path is understood)`);
  }
  const socket = url.searchParams.get('socket');
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  if (!user) throw new DatabaseUrlError('the URL names no user: mysql://user:password@host:port/database');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : 3306;
  const connection: ConnectionConfig = socket
    ? { socketPath: socket, user, password, database }
    : { host: host || 'localhost', port, user, password, database };
  const where = socket ? `socket ${socket}` : `${host || 'localhost'}:${port}`;
  return { database, connection, display: `${url.protocol}//${encodeURIComponent(user)}@${where}/${database}` };
}

// Writes prisma/schema.prisma from a database's information_schema. This replaces
// `prisma db pull`, which needs Prisma's native schema engine (not downloadable offline).
//
//   npm run db:introspect                      # the schema `zmgate-db up` creates (default)
//   npm run db:introspect -- --url mysql://user:pw@host:3306/zm   # an existing database
//   npm run db:introspect -- --out other.prisma | --stdout
//
// By default a throwaway MariaDB is started, an empty database is converged with the real
// converger (src/db/converge), read back and stopped again, so the committed file is exactly
// what the converger creates and a re-run on a clean tree shows no diff.
import { writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createConnection, type ConnectionConfig } from 'mariadb';
import { convergeSchema } from '../src/db/converge/index.js';
import { ZONEMINDER_VERSION } from '../src/db/schema/index.js';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { readSchema, type DbTable } from './prisma-read-schema.js';
import { renderSchema } from './prisma-render.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    out: { type: 'string', default: join(root, 'prisma', 'schema.prisma') },
    stdout: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});
const log = (line: string) => process.stderr.write(`db:introspect: ${line}\n`);

/** mysql://user:pw@host:port/db[?socket=/path] -> driver options. */
function fromUrl(url: string): ConnectionConfig & { database: string } {
  const u = new URL(url);
  if (!/^(mysql|mariadb):$/.test(u.protocol))
    throw new Error(`--url must be mysql:// or mariadb://, got ${u.protocol}`);
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!database) throw new Error('--url must name the database, e.g. mysql://zmuser:zmpass@localhost/zm');
  const socket = u.searchParams.get('socket');
  return {
    ...(socket ? { socketPath: socket } : { host: u.hostname || 'localhost', port: Number(u.port || 3306) }),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database,
  };
}

async function fromUrlDatabase(url: string): Promise<DbTable[]> {
  const config = fromUrl(url);
  const conn = await createConnection(config);
  try {
    return await readSchema(conn, config.database);
  } finally {
    await conn.end();
  }
}

async function fromConvergedDatabase(): Promise<DbTable[]> {
  const server = await startThrowawayMariaDb({ log: args.verbose ? log : undefined });
  try {
    const database = 'zm';
    await server.createDatabase(database);
    const conn = await createConnection(server.connectionConfig(database));
    try {
      const result = await convergeSchema(conn, { database });
      if (args.verbose) log(`converged in ${result.applied.length} steps`);
      return await readSchema(conn, database);
    } finally {
      await conn.end();
    }
  } finally {
    await server.stop();
  }
}

const t0 = performance.now();
const tables = args.url ? await fromUrlDatabase(args.url) : await fromConvergedDatabase();
const source = args.url
  ? [`Source: database \`${fromUrl(args.url).database}\`, introspected with --url.`]
  : [
      `Source: the schema \`zmgate-db up\` converges to: ZoneMinder ${ZONEMINDER_VERSION} plus zmgate's own`,
      'tables, created in a throwaway MariaDB by src/db/converge and read back.',
    ];
const text = renderSchema(tables, { source });

if (args.stdout) {
  process.stdout.write(text);
} else {
  const out = resolve(args.out);
  writeFileSync(out, text);
  const relations = tables.reduce((n, t) => n + t.foreignKeys.length, 0);
  const enums = (text.match(/^enum /gm) ?? []).length;
  log(
    `wrote ${relative(process.cwd(), out)}: ${tables.length} models, ${enums} enums, ${relations} relations ` +
      `(${Math.round(performance.now() - t0)} ms)`,
  );
}

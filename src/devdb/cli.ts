// Manual use: start a throwaway MariaDB, print how to reach it, stop it on Ctrl-C.
//   npx tsx src/devdb/cli.ts [--port N] [--keep] [--database NAME]

import { parseArgs } from 'node:util';
import { startThrowawayMariaDb } from './throwaway-mariadb.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    keep: { type: 'boolean', default: false },
    database: { type: 'string' },
  },
});

const db = await startThrowawayMariaDb({
  port: values.port ? Number(values.port) : 0,
  keep: values.keep,
  log: (line) => console.error(line),
});
if (values.database) await db.createDatabase(values.database);

console.log(`url:     ${db.url(values.database)}`);
console.log(`socket:  ${db.socket}`);
console.log(`client:  mariadb --socket=${db.socket} -uroot${values.database ? ` ${values.database}` : ''}`);
console.log(`logs:    ${db.errorLog}`);
console.log('Ctrl-C to stop');

// The server handle is unref'd, so something has to keep this process alive.
const keepAlive = setInterval(() => {}, 1 << 30);
let stopping = false;
const shutdown = () => {
  if (stopping) return;
  stopping = true;
  clearInterval(keepAlive);
  db.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);

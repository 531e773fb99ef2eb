// `npm run db:generate`: `prisma generate` without network access. Prisma insists on a schema
// engine binary even though generate never runs it, and would download one from
// binaries.prisma.sh; pointing PRISMA_SCHEMA_ENGINE_BINARY at our stub keeps it offline.
// Extra arguments are passed on to `prisma generate`.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const result = spawnSync(join(root, 'node_modules', '.bin', 'prisma'), ['generate', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: join(root, 'prisma', 'offline-schema-engine.sh'),
    // No update check or telemetry: they would only time out offline.
    CHECKPOINT_DISABLE: '1',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  },
});
if (result.error) throw result.error;
process.exit(result.status ?? 1);

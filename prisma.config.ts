// Prisma CLI configuration. Only `generate` and `validate` are used: zmgate never runs
// `prisma migrate`/`db push` (ZoneMinder and the converger own the schema) nor `db pull`
// (offline; scripts/introspect.ts replaces it), so no datasource URL is configured here. The
// service builds its client from the layered config instead (src/db/prisma.ts).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
});

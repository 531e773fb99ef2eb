// TypeScript build: the Prisma client, the generated DTO interfaces, tsoa routes + spec, the OpenAPI 3.1 pass, tsc, and the spec copied into dist.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

run(process.execPath, [join(root, 'scripts', 'prisma-generate.mjs')]);
// The wide tables' request/response interfaces, from their field tables (tsoa reads them next).
run(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'generate-dtos.mjs')]);
// The plain controllers, from their route tables (src/features/**/*.api.ts).
run(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'generate-controllers.mjs')]);
run(bin('tsoa'), ['spec-and-routes']);
// tsx: the OpenAPI pass loads the route table's TypeScript (src/http/media-table.ts).
run(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'openapi-post.mjs')]);
rmSync(join(root, 'dist'), { recursive: true, force: true });
run(bin('tsc'), ['-p', 'tsconfig.build.json']);
mkdirSync(join(root, 'dist', 'generated'), { recursive: true });
copyFileSync(join(root, 'src', 'generated', 'openapi.json'), join(root, 'dist', 'generated', 'openapi.json'));

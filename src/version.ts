// The service version, read once from package.json so it cannot drift.
import { readFileSync } from 'node:fs';
import { packageRoot } from './paths.js';
import { join } from 'node:path';

export const SERVICE_VERSION: string = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version;

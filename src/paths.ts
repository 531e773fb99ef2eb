// Locations inside the installed package. Source (tsx) and compiled (dist/) files both sit one
// level below the package root for this module, so one relative path serves both.
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';

export const packageRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// What the app relies on of express's (and compression's) insides is kept in src/http/fast-path/,
// whose README lists it: no other source that imports express reaches its entry point, its
// compiled settings, its response prototype or a router's layers.
import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../src/', import.meta.url));
const INTERNALS: Array<[RegExp, string]> = [
  [/\.handle\b/, "the app's entry point (app.handle)"],
  [/'trust proxy fn'/, "express's compiled trust-proxy setting"],
  [/\bapp\.response\b|\bapp\.request\b/, "the app's response or request prototype"],
  [/\.stack\b|\._router\b|\.router\b/, "a router's layers or the app's router"],
];

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'generated' && p !== join(src, 'http', 'fast-path')) yield* sources(p);
    } else if (p.endsWith('.ts')) yield p;
  }
}

test("express's internals are used in src/http/fast-path/ only", (t) => {
  const found: string[] = [];
  for (const file of sources(src)) {
    const text = readFileSync(file, 'utf8');
    if (!/from 'express'/.test(text)) continue;
    text.split('\n').forEach((line, i) => {
      for (const [re, what] of INTERNALS)
        if (re.test(line)) found.push(`src/${relative(src, file)}:${i + 1}: ${what}: ${line.trim()}`);
    });
  }
  t.deepEqual(found, []);
});

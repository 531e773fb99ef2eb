// The OpenAPI 3.1 document produced at build time (scripts/openapi-post.mjs). The HTTP route and
// `zmgate --openapi` both emit these exact bytes.
import { readFileSync } from 'node:fs';

let cached: Buffer | undefined;

/** The document's bytes, read once and kept (the route serves them on every request). */
export function openapiDocument(): Buffer {
  cached ??= readOpenapiDocument();
  return cached;
}

/** The document's bytes, read now and not kept (start-up reads what it needs from it once). */
export function readOpenapiDocument(): Buffer {
  const file = new URL('../generated/openapi.json', import.meta.url);
  try {
    return readFileSync(file);
  } catch {
    throw new Error(`OpenAPI document missing at ${file.pathname}: run \`npm run build\``);
  }
}

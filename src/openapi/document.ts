// The OpenAPI 3.1 document produced at build time (scripts/openapi-post.mjs). The HTTP route and
// `zmgate --openapi` both emit these exact bytes.
import { readFileSync } from 'node:fs';

let cached: Buffer | undefined;

export function openapiDocument(): Buffer {
  if (!cached) {
    const file = new URL('../generated/openapi.json', import.meta.url);
    try {
      cached = readFileSync(file);
    } catch {
      throw new Error(`OpenAPI document missing at ${file.pathname}: run \`npm run build\``);
    }
  }
  return cached;
}

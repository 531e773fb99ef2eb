// Cached answers carry their JSON body (infra/read-cache/json-text.ts): express's res.json() is
// replaced on the app's response prototype (app.response) so that such a body is sent as it is,
// with the headers res.json() gives a string body, and nothing on the wire changes. Where the
// compression middleware would compress it, the answer's kept compressed form is sent instead (the
// middleware then leaves it alone, as it does any encoded body, and only adds its Vary).
import type { Express, Request, Response } from 'express';
import { encodedBody, jsonBodyOf } from '../../infra/read-cache/json-text.js';
import { keptEncoding } from './kept-encoding.js';

/**
 * Installs the override on `app`. `compressible` is the compression middleware's filter
 * (undefined when compression is off).
 */
export function sendJsonOnce(app: Express, compressible: ((req: Request, res: Response) => boolean) | undefined): void {
  const json = app.response.json;
  app.response.json = function jsonOnce(this: Response, body: unknown) {
    let bytes = jsonBodyOf(body);
    if (bytes === undefined || this.get('Content-Type') !== undefined) return json.call(this, body);
    this.set('Content-Type', 'application/json; charset=utf-8');
    const encoding =
      compressible?.(this.req, this) && !/no-transform/.test(String(this.get('Cache-Control') ?? ''))
        ? keptEncoding(this.req, bytes.length)
        : undefined;
    if (encoding) {
      this.set('Content-Encoding', encoding);
      bytes = encodedBody(bytes, encoding);
    }
    return this.send(bytes);
  };
}

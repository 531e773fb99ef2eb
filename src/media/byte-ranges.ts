// Serving a byte source with HTTP range requests (RFC 9110 §14), for recorded video.
//
//   no Range, or a Range we ignore      200, whole body, Accept-Ranges: bytes
//   one satisfiable range               206, Content-Range: bytes a-b/size
//   one unsatisfiable range             416, Content-Range: bytes */size, JSON envelope
//
// Ignored (RFC 9110 §14.2 lets a server ignore Range; the client then gets the whole body,
// which every player handles): a unit other than `bytes`, a malformed spec (`bytes=5-2`,
// `bytes=x`), a multi-range request (`bytes=0-1,5-6`: no player needs multipart/byteranges),
// and any Range whose If-Range validator does not match the current representation.
// HEAD answers with the same status and headers and no body.
import type { Request, Response } from 'express';
import { pipeline } from 'node:stream';
import { RangeNotSatisfiableError } from '../errors.js';
import type { ByteSource } from './byte-source.js';

export type RangeRequest = { kind: 'none' } | { kind: 'range'; start: number; end: number } | { kind: 'unsatisfiable' };

const SPEC = /^(\d*)-(\d*)$/;

/** The one range a `Range` header asks of a body of `size` bytes (`end` inclusive). */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'none' };
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!m) return { kind: 'none' };
  const specs = m[1].split(',').map((s) => s.trim());
  if (specs.length !== 1) return { kind: 'none' };
  const spec = SPEC.exec(specs[0]);
  if (!spec || (spec[1] === '' && spec[2] === '')) return { kind: 'none' };
  if (spec[1] === '') {
    // Suffix: the last n bytes; all of them when n exceeds the size.
    const n = Number(spec[2]);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(spec[1]);
  const last = spec[2] === '' ? Infinity : Number(spec[2]);
  if (last < start) return { kind: 'none' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', start, end: Math.min(last, size - 1) };
}

/**
 * If-Range (RFC 9110 §13.1.5): the Range applies only when the validator still describes the
 * representation. An entity tag must match strongly (a weak tag never does); a date must equal
 * Last-Modified exactly.
 */
export function ifRangeHolds(
  header: string | undefined,
  etag: string | undefined,
  lastModified: Date | undefined,
): boolean {
  if (header === undefined) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith('W/'))
    return etag !== undefined && !value.startsWith('W/') && value === etag;
  const date = Date.parse(value);
  if (Number.isNaN(date) || !lastModified) return false;
  return Math.floor(date / 1000) === Math.floor(lastModified.getTime() / 1000);
}

export interface ServeOptions {
  cacheControl: string;
  /** Extra response headers (e.g. Content-Disposition). */
  headers?: Record<string, string>;
}

/**
 * Answers `req` from `source`, honouring Range, If-Range and HEAD. Throws (before anything is
 * written) RangeNotSatisfiableError; the caller's error handler renders it. Streams from the
 * source; a client that goes away stops the read.
 */
export function serveBytes(req: Request, res: Response, source: ByteSource, options: ServeOptions): void {
  const { size } = source;
  let range = parseRange(req.headers.range, size);
  if (range.kind !== 'none' && !ifRangeHolds(header(req, 'if-range'), source.etag, source.lastModified))
    range = { kind: 'none' };

  res.setHeader('Accept-Ranges', 'bytes');
  if (range.kind === 'unsatisfiable') {
    // Decided before the body's headers: the 416 is a JSON envelope, and must not go out
    // labelled as the video nor be cached as it.
    res.setHeader('Content-Range', `bytes */${size}`);
    source.close();
    throw new RangeNotSatisfiableError(size);
  }
  res.setHeader('Content-Type', source.contentType);
  res.setHeader('Cache-Control', options.cacheControl);
  if (source.etag) res.setHeader('ETag', source.etag);
  if (source.lastModified) res.setHeader('Last-Modified', source.lastModified.toUTCString());
  for (const [name, value] of Object.entries(options.headers ?? {})) res.setHeader(name, value);
  const start = range.kind === 'range' ? range.start : 0;
  const end = range.kind === 'range' ? range.end : size - 1;
  if (range.kind === 'range') {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${start}-${end}/${size}`);
  } else {
    res.status(200);
  }
  res.setHeader('Content-Length', String(end - start + 1));
  if (req.method === 'HEAD' || size === 0) {
    source.close();
    res.end();
    return;
  }
  pipeline(source.read(start, end), res, () => {
    // A client that closes early is normal (seeking players do it constantly); nothing to do.
    source.close();
  });
}

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

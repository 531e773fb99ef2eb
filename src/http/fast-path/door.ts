// The door, express's entry point (app.handle, which app(req, res) calls), wrapped: a path that
// does not percent-decode is marked and goes straight to express's chain, whose first layer
// answers it 400 (middleware/request-target.ts). The polled reads are answered before express's
// own per-request set-up and everything below, when that gives the same answer (hot-reads.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';
import proxyaddr from 'proxy-addr';
import { POLLED_READS } from '../../generated/controllers/polled-reads.js';
import { markMalformed } from '../middleware/request-target.js';
import { hotReads, type HotReadLane, type HotReadOptions } from './hot-reads.js';

/** express's own entry point (app.handle), which app(req, res) calls. */
type Handle = (req: IncomingMessage, res: ServerResponse, callback?: (err?: unknown) => void) => void;

export interface DoorOptions extends Omit<HotReadOptions, 'reads' | 'clientIp'> {
  /** The hot-read lane; off only to compare its answers with the full chain's. */
  hotReads: boolean;
}

/**
 * Wraps `app`'s entry point; call it after the app's 'trust proxy' setting. Returns the lane (also
 * app.locals.hotReads), undefined when it is off.
 */
export function openDoor(app: Express, o: DoorOptions): HotReadLane | undefined {
  const express = app as unknown as { handle: Handle };
  const handle = express.handle.bind(app);
  let enter: Handle = handle;
  let lane: HotReadLane | undefined;
  if (o.hotReads) {
    // The client's address exactly as express's req.ip works it out (its compiled 'trust proxy').
    const trustProxy = app.get('trust proxy fn') as (addr: string, i: number) => boolean;
    const answer = hotReads({ ...o, reads: POLLED_READS, clientIp: (req) => proxyaddr(req, trustProxy) });
    app.locals.hotReads = lane = answer;
    enter = (req, res, callback) => answer(req, res, () => handle(req, res, callback));
  }
  express.handle = (req, res, callback) =>
    markMalformed(req) ? handle(req, res, callback) : enter(req, res, callback);
  return lane;
}

// Live images from shared memory, served by plain express handlers (binary answers; tsoa answers
// JSON only): the monitor snapshot and the live MJPEG stream, entries of the route table
// (src/http/media-table.ts). Both are gated by Stream View (header or `?token=`), then the row ACL
// in LiveImagesService. Their OpenAPI operations are in live-images-openapi.ts.
import type { Request } from 'express';
import { InvalidInputError } from '../../errors.js';
import { LiveMjpegStreams } from './live-mjpeg.js';
import { LiveImagesService } from '../../zm/live-images.js';
import type { Services } from '../../registry.js';
import { mediaRoute, type MediaHandler, type MediaRoute } from '../../media/media-route.js';
import { monitorIdParam } from '../../media/path-ids.js';
import { mjpegQueueBound } from '../../media/mjpeg-response.js';
import { liveImagePaths } from './live-images-openapi.js';

const route = (path: string, handler: MediaHandler): MediaRoute =>
  mediaRoute(path, 'stream:View', liveImagePaths[path]?.get, handler);

/** Stop a live MJPEG stream after this long without a new image (zmc stopped for good). */
const MJPEG_IDLE_MS = 30_000;

const monitorId = (req: Request) => monitorIdParam(req.params.monitor_id);

/**
 * Lowest `maxfps`: one poll every 10 s. Far smaller rates would make the poll period overflow
 * setTimeout (it then fires after 1 ms: a busy loop), and outlast the idle stop anyway.
 */
const MIN_FPS = 0.1;

/** `maxfps`: a number >= MIN_FPS; above the configured cap it is lowered to the cap. */
function frameRate(req: Request, cap: number): number {
  const v = req.query.maxfps;
  if (v === undefined) return cap;
  const n = typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) ? Number(v) : NaN;
  if (!(n >= MIN_FPS)) throw new InvalidInputError('Invalid input', [['maxfps', `must be a number >= ${MIN_FPS}`]]);
  return Math.min(n, cap);
}

const serviceOf = (s: Services) => s.get(LiveImagesService);

export const LIVE_IMAGE_ROUTES: MediaRoute[] = [
  route('/api/v3/monitors/{monitor_id}/snapshot', async (s, req, res, user) => {
    const jpeg = await serviceOf(s).snapshot(user, monitorId(req));
    res.status(200).type('image/jpeg').setHeader('Cache-Control', 'no-cache, no-store');
    res.setHeader('Content-Length', String(jpeg.length));
    res.end(req.method === 'HEAD' ? undefined : jpeg);
  }),
  route('/api/v3/live/{monitor_id}/mjpeg', async (s, req, res, user) => {
    const fps = frameRate(req, s.config.streaming.mjpeg.max_fps);
    const live = serviceOf(s);
    const m = await live.monitor(user, monitorId(req));
    const shm = live.open(m);
    let first;
    try {
      // The first image decides between a 503 envelope and a stream (headers not sent yet).
      first = await live.jpeg(shm, m);
    } catch (err) {
      shm.close();
      throw err;
    }
    let pending: typeof first | null = first;
    let last = first!.timestampUs;
    await s.get(LiveMjpegStreams).write(
      res,
      {
        async next() {
          if (pending) {
            const p = pending;
            pending = null;
            return p;
          }
          const got = await live.jpeg(shm, m, last);
          if (got) last = got.timestampUs;
          return got;
        },
        close: () => shm.close(),
      },
      {
        monitorId: m.id,
        fps,
        idleMs: MJPEG_IDLE_MS,
        bound: mjpegQueueBound(s.config.streaming.mjpeg),
        log: s.log,
        sent: s.metrics.liveBytes(m.id, 'mjpeg'),
      },
    );
  }),
];

// The OpenAPI operations of the live-image routes (LIVE_IMAGE_ROUTES in live-image-routes.ts takes
// each one by path), in OpenAPI 3.0 form. The snapshot keeps the reference surface's path, operationId, tag and parameter; the
// MJPEG stream is new (stock ZoneMinder has no stream socket, so shared memory is its live view).

import { error, monitorIdParam, tokenParam } from '../../media/openapi-parts.js';
import type { OpenApiOperation } from '../../media/media-route.js';
const binary = (type: string, description: string) => ({
  description,
  content: { [type]: { schema: { type: 'string', format: 'binary' } } },
});

const monitorId = monitorIdParam;
const token = tokenParam('Access token, for <img> URLs that cannot carry an Authorization header');

const common = {
  400: error('Invalid monitor id or query parameter'),
  401: error('Missing, invalid or revoked token (header or `?token=`)'),
  403: error('Stream permission required'),
  404: error('No such monitor, or hidden by the row-level ACL (MONITOR_NOT_FOUND_ERROR)'),
  503: error(
    'The monitor is not capturing: no shared memory, capturing off, a stale heartbeat or no image yet (`reason` in details)',
  ),
};

function op(
  operationId: string,
  summary: string,
  description: string,
  parameters: object[],
  ok: object,
): { get: OpenApiOperation } {
  return {
    get: {
      operationId,
      tags: ['Live Streaming'],
      summary,
      description,
      security: [{ jwt: ['stream:View'] }],
      parameters,
      responses: { 200: ok, ...common },
    },
  };
}

export const liveImagePaths: Record<string, { get: OpenApiOperation }> = {
  '/api/v3/monitors/{monitor_id}/snapshot': op(
    'getMonitorSnapshot',
    'Live snapshot (JPEG)',
    "The newest image in the monitor's shared memory (every ZoneMinder layout: 1.36, 1.38, 1.39), encoded as JPEG. The capture daemon has already turned it per the monitor's Orientation (for ROTATE_90/270 it is Height×Width), so it is served as it is. `Cache-Control: no-cache, no-store`.",
    [monitorId, token],
    binary('image/jpeg', 'JPEG'),
  ),
  '/api/v3/live/{monitor_id}/mjpeg': op(
    'getLiveMjpegStream',
    'Live MJPEG stream from shared memory',
    "`multipart/x-mixed-replace` JPEG parts of the monitor's newest shared-memory image, polled at `maxfps` (capped by `streaming.mjpeg.max_fps`, default 5); a part is sent only when a new image was captured. Each part carries X-Frame-Number and X-Timestamp (capture time, Unix seconds). Works on stock ZoneMinder (no stream socket). In the monitor's Orientation, like the snapshot. Ends when the client disconnects or after 30 s without a new image.",
    [
      monitorId,
      token,
      {
        in: 'query',
        name: 'maxfps',
        required: false,
        description:
          'Frames per second, at least 0.1; values above the configured cap are lowered to it (default: the cap)',
        schema: { type: 'number', minimum: 0.1 },
      },
    ],
    binary('multipart/x-mixed-replace', 'MJPEG stream'),
  ),
};

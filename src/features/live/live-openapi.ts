// The OpenAPI operations of the live HLS routes (LIVE_ROUTES in live-routes.ts takes each one by
// path), in OpenAPI 3.0 form like the playback ones; operationIds are the v3 reference surface's.
import { error, monitorIdParam, tokenParam } from '../../media/openapi-parts.js';
import type { OpenApiOperation } from '../../media/media-route.js';

const body = (type: string, description: string) => ({
  description,
  headers: { 'Cache-Control': { schema: { type: 'string' } } },
  content: { [type]: { schema: { type: 'string', format: type.startsWith('video/') ? 'binary' : undefined } } },
});

const monitorId = monitorIdParam;
const token = tokenParam(
  'Access token, for players that cannot set an Authorization header; a playlist requested with it carries it in every URI',
);

const common = {
  400: error('Invalid monitor id or parameter'),
  401: error('Missing, invalid or revoked token (header or `?token=`)'),
  403: error('Stream permission required'),
  404: error(
    'Monitor not found or hidden, or without a stream socket; no live session (init and segments; a playlist request starts one); no such segment; or no media yet',
  ),
  500: error('Internal error'),
  503: error('Live streaming is disabled (streaming.enabled = false)'),
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
      parameters: [monitorId, ...parameters, token],
      responses: { 200: ok, ...common },
    },
  };
}

// Drop `format: undefined` so the document stays plain JSON.
const clean = <T>(o: T): T => JSON.parse(JSON.stringify(o));

export const livePaths: Record<string, { get: OpenApiOperation }> = clean({
  '/api/v3/live/{monitor_id}/hls/master.m3u8': op(
    'getLiveMasterPlaylist',
    'LL-HLS master playlist',
    "One variant (CODECS from the stream, RESOLUTION, FRAME-RATE, BANDWIDTH) pointing at live.m3u8. Starts the monitor's HLS session when there is none (as POST /live/{monitor_id}/start), and waits up to 5 s for the first media.",
    [],
    body('application/vnd.apple.mpegurl', 'Master playlist (`Cache-Control: no-cache, no-store, must-revalidate`)'),
  ),
  '/api/v3/live/{monitor_id}/hls/live.m3u8': op(
    'getLiveMediaPlaylist',
    'LL-HLS media playlist',
    "Starts the monitor's HLS session when there is none. Fragmented MP4 segments (`segment_NNNNN.m4s`, cut at a keyframe after streaming.hls.segment_duration_seconds) with partial segments (`segment_NNNNN.P.m4s`), a preload hint and blocking reload: with `_HLS_msn` (and `_HLS_part`) the answer waits up to 5 s until that segment (part) exists, then returns the current playlist. A zmc restart shows as EXT-X-DISCONTINUITY with a new init segment.",
    [
      {
        in: 'query',
        name: '_HLS_msn',
        required: false,
        description: 'Blocking reload: wait for this media sequence number (400 when more than two segments ahead)',
        schema: { type: 'integer', minimum: 0 },
      },
      {
        in: 'query',
        name: '_HLS_part',
        required: false,
        description: 'Blocking reload: and for this part of it (needs _HLS_msn)',
        schema: { type: 'integer', minimum: 0 },
      },
    ],
    body('application/vnd.apple.mpegurl', 'Media playlist (`Cache-Control: no-cache, no-store, must-revalidate`)'),
  ),
  '/api/v3/live/{monitor_id}/hls/init.mp4': op(
    'getLiveInitSegment',
    'Current initialisation segment',
    'The init segment of the current stream parameters (playlists name each one `init-<n>.mp4`). 404 (details `segment: init.mp4`) until it exists.',
    [],
    body('video/mp4', 'Init segment (`Cache-Control: max-age=31536000`)'),
  ),
  '/api/v3/live/{monitor_id}/hls/{segment}': op(
    'getLiveSegment',
    'Media segment, partial segment or init segment',
    '`segment_NNNNN.m4s` (a segment), `segment_NNNNN.P.m4s` (its part P), or `init-<n>.mp4`. The next part (the preload hint) is waited for up to 5 s. Other names are 400; unknown or evicted ones 404.',
    [
      {
        in: 'path',
        name: 'segment',
        required: true,
        description: 'File name from the playlist',
        schema: { type: 'string' },
      },
    ],
    body('video/iso.segment', 'Segment or part (`Cache-Control: max-age=31536000`); init segments are video/mp4'),
  ),
});

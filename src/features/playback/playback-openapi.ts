// The OpenAPI operations of the recorded-playback media routes (PLAYBACK_ROUTES in
// playback-routes.ts takes each one by path), in OpenAPI 3.0 form: the build merges them into the
// tsoa document before the 3.1 upgrade. operationIds follow the v3 reference surface where it has
// the route.
import { error, tokenParam } from '../../media/openapi-parts.js';
import type { OpenApiOperation } from '../../media/media-route.js';
const body = (types: string[], description: string, headers?: object) => ({
  description,
  ...(headers && { headers }),
  content: Object.fromEntries(types.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
});

/** The event id path parameter (the synopsis routes share it). */
export const id = {
  in: 'path',
  name: 'id',
  required: true,
  description: 'Event id',
  schema: { type: 'integer', format: 'int64', minimum: 0 },
};
export const token = tokenParam('Access token, for <img>/<video> URLs that cannot carry an Authorization header');
const range = {
  in: 'header',
  name: 'Range',
  required: false,
  description:
    'One byte range: `bytes=a-b`, `bytes=a-` or `bytes=-n`. A multi-range or malformed value is ignored (200, whole body)',
  schema: { type: 'string' },
};
const ifRange = {
  in: 'header',
  name: 'If-Range',
  required: false,
  description: 'ETag (strong) or Last-Modified date; the Range applies only while it matches',
  schema: { type: 'string' },
};

const rangeHeaders = {
  'Accept-Ranges': { schema: { type: 'string', enum: ['bytes'] } },
  ETag: { schema: { type: 'string' } },
  'Last-Modified': { schema: { type: 'string' } },
};
const partialHeaders = {
  ...rangeHeaders,
  'Content-Range': { description: '`bytes a-b/size`', schema: { type: 'string' } },
};

const VIDEO_TYPES = ['video/mp4', 'video/x-matroska', 'video/webm', 'video/quicktime'];

const common = {
  400: error('Invalid id or query parameter'),
  401: error('Missing, invalid or revoked token (header or `?token=`)'),
  403: error('Events permission required'),
  500: error('Internal error'),
};

function op(
  operationId: string,
  tags: string[],
  summary: string,
  description: string,
  parameters: object[],
  responses: object,
): { get: OpenApiOperation } {
  return {
    get: {
      operationId,
      tags,
      summary,
      description,
      security: [{ jwt: ['events'] }],
      parameters,
      responses: { ...responses, ...common },
    },
  };
}

const ranged = (types: string[], what: string) => ({
  200: body(types, `${what} (whole body)`, rangeHeaders),
  206: body(types, `${what} (the requested range)`, partialHeaders),
  416: error('The range starts beyond the end (`Content-Range: bytes */size`)'),
});

const unavailable = error('Too many image jobs waiting (SERVICE_UNAVAILABLE_ERROR)');
const noAddon = error(
  'The native media addon (zmgate.node) cannot be loaded on this install (SERVICE_UNAVAILABLE_ERROR)',
);
const unstreamable =
  "No such event or recording, the event's monitor is hidden, or the recording cannot be streamed (no H.264/H.265 video, or no index yet while a plain MP4 is being written; HLS routes: not MP4; `reason` says which)";
const hidden = "No such event or file, or the event's monitor is hidden";

export const playbackPaths: Record<string, { get: OpenApiOperation }> = {
  '/api/v3/events/{id}/video': op(
    'getEventVideo',
    ['Event Playback'],
    'The recording as written',
    "The event's recording file (Events.DefaultVideo, else the version-specific names), streamed from disk with byte ranges, If-Range and HEAD. Content-Type by container. An event in progress serves the growing file (`Cache-Control: no-cache`).",
    [id, token, range, ifRange],
    { ...ranged(VIDEO_TYPES, 'Recording'), 404: error(hidden) },
  ),
  '/api/v3/events/{id}/thumbnail': op(
    'getEventThumbnail',
    ['Event Playback'],
    'Event thumbnail (JPEG)',
    "snapshot.jpg, else alarm.jpg, else the first capture (then analysis) JPEG, else a frame of the recording at most 320 pixels wide; turned per the event's Orientation (ROTATE_0 is streamed untouched).",
    [id, token],
    { 200: body(['image/jpeg'], 'JPEG', rangeHeaders), 404: error(hidden), 503: unavailable },
  ),
  '/api/v3/events/{id}/stream/video.mp4': op(
    'getEventStreamVideo',
    ['Event Playback'],
    'Fragmented MP4 of the event',
    'A recording that already is fragmented MP4 (ZoneMinder 1.39, or the growing file of an event in progress) is served as is. Any other MP4 is remuxed (no re-encoding) into fragmented MP4 — an init segment, then one moof+mdat fragment per GOP with the recorded sample durations — streamed as it is produced. Its exact size is known up front from the sample index, so byte ranges (200/206/416, If-Range, HEAD) work on the remux too and only the fragments a range touches are read. A recording in another container (mkv, webm) cannot be remuxed and is served as written (its own content type).',
    [id, token, range, ifRange],
    {
      ...ranged(['video/mp4', 'video/x-matroska', 'video/webm'], 'Fragmented MP4 (or a non-MP4 recording as written)'),
      404: error(unstreamable),
      503: noAddon,
    },
  ),
  '/api/v3/events/{id}/stream/media.mp4': op(
    'getEventStreamMedia',
    ['Event Playback'],
    'Fragmented MP4 media of the event (HLS byte-range target)',
    'As stream/video.mp4.',
    [id, token, range, ifRange],
    { ...ranged(['video/mp4'], 'Fragmented MP4'), 404: error(unstreamable), 503: noAddon },
  ),
  '/api/v3/events/{id}/stream/playlist.m3u8': op(
    'getEventPlaylist',
    ['Event Playback'],
    'HLS VOD playlist',
    'HLS (version 7, fMP4) of segments cut at keyframes, about 4 s each, URIs relative to …/stream/ (`init.mp4`, `segment/{n}`). A closed event gets `#EXT-X-PLAYLIST-TYPE:VOD` and `#EXT-X-ENDLIST`. An event in progress gets `#EXT-X-PLAYLIST-TYPE:EVENT` without ENDLIST, listing every segment but the last (still growing) one; players reload it, and segment numbers never change as the recording grows. When the request carried `?token=`, the URIs carry it too (for players that cannot send a header; a header wins over the query).',
    [id, token],
    { 200: body(['application/vnd.apple.mpegurl'], 'Playlist'), 404: error(unstreamable), 503: noAddon },
  ),
  '/api/v3/events/{id}/stream/init.mp4': op(
    'get_event_init',
    ['Event Playback'],
    'HLS VOD initialisation segment',
    "The fMP4 initialisation segment (ftyp + moov) of the playlist's segments.",
    [id, token],
    { 200: body(['video/mp4'], 'Init segment', rangeHeaders), 404: error(unstreamable), 503: noAddon },
  ),
  '/api/v3/events/{id}/stream/segment/{seq}': op(
    'get_event_segment',
    ['Event Playback'],
    'HLS VOD media segment',
    'Segment `seq` (0-based, as listed by the playlist: `N.m4s`; plain `N` is accepted too): moof + mdat starting at a keyframe. Segments of closed events are kept in a memory cache bounded by `playback.segment_cache_bytes`.',
    [
      id,
      {
        in: 'path',
        name: 'seq',
        required: true,
        schema: { type: 'string', pattern: '^[0-9]{1,9}(\\.m4s)?$', examples: ['0.m4s'] },
      },
      token,
    ],
    {
      200: body(['video/mp4'], 'Media segment', rangeHeaders),
      404: error(`${unstreamable}, or no such segment (details \`event_id\`, \`segment\`)`),
      503: noAddon,
    },
  ),
  '/api/v3/events/{id}/stream/mjpeg': op(
    'getEventMjpegStream',
    ['Event Playback'],
    'Paced MJPEG stream of a JPEG-only event',
    'The stored capture JPEGs (else analysis JPEGs) as `multipart/x-mixed-replace`, one part per frame at its recorded time (Frames.Delta, interpolated between rows) divided by `speed`; a single pause is shortened to 2 s. Each part carries X-Frame-Number and X-Timestamp (seconds from the event start). Ends with the closing boundary after the last frame, or when the client disconnects. /info announces it (`recommended_mode: mjpeg`, `mjpeg_url`).',
    [
      id,
      token,
      {
        in: 'query',
        name: 'speed',
        required: false,
        description: 'Playback speed, 0.25 to 16 (default 1)',
        schema: { type: 'number', minimum: 0.25, maximum: 16 },
      },
    ],
    { 200: body(['multipart/x-mixed-replace'], 'MJPEG stream'), 404: error(`${hidden}, or no JPEG frames`) },
  ),
  '/api/v3/events/{id}/frames/{fid}/image': op(
    'getEventFrameImage',
    ['Event Playback'],
    'Image of one frame of an event',
    "`fid` is a frame number (>= 1): its capture JPEG (else the analysis JPEG; `?type=` picks one), else the frame taken from the recording at its recorded offset. Or `alarm`, `snapshot`, `objdetect` for those stills. Turned per the event's Orientation.",
    [
      id,
      {
        in: 'path',
        name: 'fid',
        required: true,
        description: 'Frame number >= 1, or alarm | snapshot | objdetect',
        schema: { type: 'string', pattern: '^(\\d+|alarm|snapshot|objdetect)$' },
      },
      {
        in: 'query',
        name: 'type',
        required: false,
        description: 'capture or analyse (default: capture, else analyse)',
        schema: { type: 'string', enum: ['capture', 'analyse'] },
      },
      token,
    ],
    {
      200: body(['image/jpeg'], 'JPEG', rangeHeaders),
      404: error(`${hidden}, or no image for that frame`),
      503: unavailable,
    },
  ),
  '/api/v3/frames/{id}/image': op(
    'getFrameImage',
    ['Frames'],
    'Image of a Frames row',
    'The image of the frame with Frames.Id `id`, as /events/{event_id}/frames/{frame_id}/image.',
    [
      {
        in: 'path',
        name: 'id',
        required: true,
        description: 'Frames.Id',
        schema: { type: 'integer', format: 'int64', minimum: 0 },
      },
      {
        in: 'query',
        name: 'type',
        required: false,
        description: 'capture or analyse (default: capture, else analyse)',
        schema: { type: 'string', enum: ['capture', 'analyse'] },
      },
      token,
    ],
    {
      200: body(['image/jpeg'], 'JPEG', rangeHeaders),
      404: error("No such frame or image, or the frame's event is hidden"),
      503: unavailable,
    },
  ),
};

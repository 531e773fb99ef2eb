// The media routes of recordings by time (entries of src/http/media-table.ts): GET, gated by the
// Events feature, the token also as `?token=`. The instant is resolved to an event here
// (RecordingsService), then served as that event's stills are (features/playback).
import { InvalidInputError } from '../../errors.js';
import { mediaRoute, type MediaRoute } from '../../media/media-route.js';
import { serveBytes } from '../../media/byte-ranges.js';
import { error, tokenParam } from '../../media/openapi-parts.js';
import { monitorIdParam, singleQuery } from '../../media/path-ids.js';
import { playbackFor } from '../playback/playback.js';
import { RecordingsService } from './recordings-service.js';

/** Largest `?width=` of a still. */
export const MAX_STILL_WIDTH = 4096;

function widthParam(text: string | undefined): number | null {
  if (text === undefined) return null;
  const n = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 16 && n <= MAX_STILL_WIDTH))
    throw new InvalidInputError('Invalid input', [
      ['width', `must be a whole number of pixels 16..${MAX_STILL_WIDTH}`],
    ]);
  return n;
}

const STILL = '/api/v3/monitors/{id}/recordings/still.jpg';

const stillOperation = {
  operationId: 'get_monitor_recording_still',
  tags: ['Recordings'],
  summary: 'The recorded image nearest an instant (JPEG)',
  description:
    "The frame a monitor recorded nearest `at`, from whichever event covers that instant: zmc's own capture JPEG of that frame when it saved one, else the frame decoded from the recording, upright by the event's Orientation (docs/zoneminder/orientation.md). 404 when nothing was recorded at that instant (docs/recordings.md).",
  security: [{ jwt: ['events'] }],
  parameters: [
    {
      in: 'path',
      name: 'id',
      required: true,
      description: 'Monitor id',
      schema: { type: 'integer', format: 'int32', minimum: 0 },
    },
    {
      in: 'query',
      name: 'at',
      required: true,
      description:
        'The instant: ISO 8601 (with `Z`/offset an instant; without, ZoneMinder local time), `now` or `-N unit`.',
      schema: { type: 'string' },
    },
    {
      in: 'query',
      name: 'width',
      required: false,
      description: `Scale down to at most this many pixels wide (16..${MAX_STILL_WIDTH}; aspect kept, never enlarged).`,
      schema: { type: 'integer', minimum: 16, maximum: MAX_STILL_WIDTH },
    },
    tokenParam('Access token, for <img> URLs that cannot carry an Authorization header'),
  ],
  responses: {
    200: { description: 'JPEG', content: { 'image/jpeg': { schema: { type: 'string', format: 'binary' } } } },
    400: error('Invalid id, instant or width'),
    401: error('Missing, invalid or revoked token (header or `?token=`)'),
    403: error('Events permission required'),
    404: error('No such monitor (or it is hidden), or nothing recorded at that instant'),
    500: error('Internal error'),
  },
};

export const RECORDING_ROUTES: MediaRoute[] = [
  mediaRoute(STILL, 'events', stillOperation, async (s, req, res, user) => {
    const width = widthParam(singleQuery(req.query, 'width'));
    const { eventId, offset } = await s
      .get(RecordingsService)
      .instant(user, monitorIdParam(req.params.id, 'id'), singleQuery(req.query, 'at'));
    const body = await playbackFor(s).stills.atOffset(user, eventId, offset, width);
    await serveBytes(req, res, body.source, { cacheControl: body.cacheControl });
  }),
];

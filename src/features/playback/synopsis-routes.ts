// The motion-synopsis routes of the v3 reference (P1 still, P2 layout, P3 render status and mp4,
// P4 range overview). Its router serves them beside recorded playback (media auth: token in the
// header or `?token=`, Events feature) but leaves them out of its OpenAPI document. zmgate has no
// synopsis renderer, so each answers as the reference does with synopsis disabled: the event (or
// the monitor, for the range) is checked first, with the row ACL, then 503 "service unavailable:
// motion synopsis is disabled". The mp4 route has no such check there: with nothing rendered it is the event's 404.
import type { Request } from 'express';
import { InvalidInputError, ServiceUnavailableError } from '../../errors.js';
import { requireVisibleMonitor } from '../../auth/monitor-acl.js';
import { mediaRoute, type MediaRoute, type OpenApiOperation } from '../../media/media-route.js';
import { error } from '../../media/openapi-parts.js';
import { eventIdParam, parseMonitorId } from '../../media/path-ids.js';
import { eventNotFound } from './event-media.js';
import { id, token } from './playback-openapi.js';
import { playbackFor } from './playback.js';

const disabled = () => new ServiceUnavailableError('service unavailable: motion synopsis is disabled');

const classes = {
  in: 'query',
  name: 'class',
  required: false,
  description: 'Comma-separated class ids to keep (ignored: synopsis is off)',
  schema: { type: 'string' },
};
const integer = (name: string, description: string, format: string) => ({
  in: 'query',
  name,
  required: true,
  description,
  schema: { type: 'integer', format },
});

function op(operationId: string, summary: string, parameters: object[], responses: object): OpenApiOperation {
  return {
    operationId,
    tags: ['Motion Synopsis'],
    summary,
    description:
      'Served for clients of the v3 reference, which has this route outside its OpenAPI document. zmgate renders no motion synopsis: the answer is the one the reference gives with synopsis disabled.',
    security: [{ jwt: ['events'] }],
    parameters,
    responses: {
      ...responses,
      400: error('Invalid id or query parameter'),
      401: error('Missing, invalid or revoked token (header or `?token=`)'),
      403: error('Events permission required'),
    },
  };
}

const eventHidden = error("No such event, or the event's monitor is hidden (EVENT_NOT_FOUND_ERROR)");
const off = error('Motion synopsis is disabled (SERVICE_UNAVAILABLE_ERROR)');

/** A single-valued integer query parameter (a repeated or missing one is a 400). */
function integerQuery(req: Request, name: string, parse: (text: string) => number | null): number {
  const v = req.query[name];
  const n = typeof v === 'string' ? parse(v) : null;
  if (n === null) throw new InvalidInputError('Invalid input', [[name, 'must be given once, as an integer']]);
  return n;
}

const epochSeconds = (text: string) => (/^-?\d{1,15}$/.test(text) ? Number(text) : null);

const eventRoute = (path: string, openapi: OpenApiOperation, rendered: boolean): MediaRoute =>
  mediaRoute(path, 'events', openapi, async (services, req, _res, user) => {
    const eventId = eventIdParam(req.params.id);
    await playbackFor(services).media.event(user, eventId); // 404 for a missing or hidden event
    throw rendered ? eventNotFound(eventId) : disabled();
  });

export const SYNOPSIS_ROUTES: MediaRoute[] = [
  eventRoute(
    '/api/v3/events/{id}/synopsis/review',
    op('getEventSynopsisReview', 'Motion synopsis composite still (not rendered by zmgate)', [id, token], {
      404: eventHidden,
      503: off,
    }),
    false,
  ),
  eventRoute(
    '/api/v3/events/{id}/synopsis/layout',
    op('getEventSynopsisLayout', 'Motion synopsis layout (not rendered by zmgate)', [id, classes, token], {
      404: eventHidden,
      503: off,
    }),
    false,
  ),
  eventRoute(
    '/api/v3/events/{id}/synopsis',
    op('getEventSynopsis', 'Motion synopsis render status (not rendered by zmgate)', [id, token], {
      404: eventHidden,
      503: off,
    }),
    false,
  ),
  eventRoute(
    '/api/v3/events/{id}/synopsis/mp4',
    op('getEventSynopsisMp4', 'Motion synopsis video (never rendered by zmgate)', [id, token], {
      404: error(
        "Nothing rendered for the event, no such event, or the event's monitor is hidden (EVENT_NOT_FOUND_ERROR)",
      ),
    }),
    true,
  ),
  mediaRoute(
    '/api/v3/events/synopsis',
    'events',
    op(
      'getRangeSynopsis',
      'Motion synopsis overview of a monitor over a time range (not rendered by zmgate)',
      [
        integer('monitor_id', 'Monitor id', 'int32'),
        integer('from', 'Window start, Unix epoch seconds', 'int64'),
        integer('to', 'Window end, Unix epoch seconds', 'int64'),
        classes,
        token,
      ],
      { 404: error('The monitor is hidden from the caller (MONITOR_NOT_FOUND_ERROR)'), 503: off },
    ),
    async (services, req, _res, user) => {
      const monitorId = integerQuery(req, 'monitor_id', parseMonitorId);
      integerQuery(req, 'from', epochSeconds);
      integerQuery(req, 'to', epochSeconds);
      requireVisibleMonitor(await services.acl.scope(user), monitorId);
      throw disabled();
    },
  ),
];

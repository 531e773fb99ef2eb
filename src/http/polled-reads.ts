// The reads the hot-read lane answers (hot-reads.ts): what a logged-in console polls every few
// seconds (docs/api-caches.md). Each makes the same service call as the generated controller
// (src/generated/controllers/), from the parameters the lane hands over.
import type { Services } from '../registry.js';
import { EventsService } from '../features/events/events-service.js';
import { MonitorStatusService } from '../features/monitors/monitor-status-service.js';
import { MonitorsService } from '../features/monitors/monitors-service.js';
import { MeService } from '../features/users/me-service.js';
import type { HotRead } from './hot-reads.js';

/** Integer parameters arrive as numbers. */
const int = (v: number | string | undefined) => v as number | undefined;

export function polledReads(services: Services): HotRead[] {
  return [
    {
      operationId: 'list_monitors',
      answer: (user, q) => services.get(MonitorsService).list(user, int(q.page), int(q.page_size)),
    },
    {
      operationId: 'list_monitor_statuses',
      answer: (user, q) => services.get(MonitorStatusService).list(user, int(q.page), int(q.page_size)),
    },
    {
      operationId: 'listEvents',
      // Integers as numbers and plain strings as strings, as the document types them: the
      // controller's filter object, with the parameters the lane leaves alone (archived) absent.
      answer: (user, q) => services.get(EventsService).list(user, q as Parameters<EventsService['list']>[1]),
    },
    { operationId: 'me', answer: (user) => services.get(MeService).describe(user) },
  ];
}

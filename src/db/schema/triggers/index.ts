// ZoneMinder 1.39.22's twelve triggers, with bodies written for zmgate from the documented
// semantics (docs/zoneminder/database.md). The names, tables, timing and events are ZoneMinder's own.
import type { TriggerDef } from '../types.js';
import { BUCKET_TRIGGERS } from './bucket-triggers.js';
import { EVENT_TRIGGERS } from './event-triggers.js';
import { ZONE_TRIGGERS } from './zone-triggers.js';

export const ZONEMINDER_TRIGGERS: TriggerDef[] = [...BUCKET_TRIGGERS, ...EVENT_TRIGGERS, ...ZONE_TRIGGERS];

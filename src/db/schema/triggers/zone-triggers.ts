// Zones triggers: Monitors.ZoneCount is the number of Zones rows of the monitor, recounted after
// every insert and delete (a recount rather than +1/-1, so a drifted count heals itself).
// Nothing maintains Zones.Area (docs/zoneminder/database.md). Zones removed by the ON DELETE CASCADE from
// Monitors do not fire triggers, which is fine: their monitor row is gone too.
import type { TriggerDef } from '../types.js';

function zoneCountTrigger(name: string, event: 'INSERT' | 'DELETE', row: 'NEW' | 'OLD'): TriggerDef {
  return {
    name,
    table: 'Zones',
    timing: 'AFTER',
    event,
    body: `BEGIN
  UPDATE Monitors SET ZoneCount = (SELECT COUNT(*) FROM Zones WHERE MonitorId = ${row}.MonitorId)
  WHERE Id = ${row}.MonitorId;
END`,
  };
}

export const ZONE_TRIGGERS: TriggerDef[] = [
  zoneCountTrigger('Zone_Insert_Trigger', 'INSERT', 'NEW'),
  zoneCountTrigger('Zone_Delete_Trigger', 'DELETE', 'OLD'),
];

// The Events_Hour/Day/Week/Month ("bucket") triggers: each bucket table holds one row per
// recent event, and Event_Summaries keeps, per monitor, how many rows each bucket has
// ({Bucket}Events) and how much disk they use ({Bucket}EventDiskSpace).
//
// - zmstats ages the buckets by deleting old rows; the BEFORE DELETE trigger takes the row's
//   count and disk space off the monitor's summary.
// - event_update_trigger copies Events.DiskSpace into the bucket rows; the AFTER UPDATE trigger
//   moves the difference into the summary. A row that changes monitor takes its disk space
//   from the old monitor's summary to the new one's (one UPDATE over both summary rows, so the
//   two rows are locked in index order).
//
// Disk space may be NULL (zmc inserts bucket rows with NULL): COALESCE makes NULL count as 0,
// and GREATEST(…, 0) keeps a summary that was already out of step from going negative.
import type { TriggerDef } from '../types.js';

export const BUCKETS = ['Hour', 'Day', 'Week', 'Month'] as const;
export type Bucket = (typeof BUCKETS)[number];

function bucketDeleteTrigger(bucket: Bucket): TriggerDef {
  return {
    name: `Events_${bucket}_delete_trigger`,
    table: `Events_${bucket}`,
    timing: 'BEFORE',
    event: 'DELETE',
    body: `BEGIN
  UPDATE Event_Summaries SET
    ${bucket}Events = GREATEST(COALESCE(${bucket}Events, 0) - 1, 0),
    ${bucket}EventDiskSpace = GREATEST(COALESCE(${bucket}EventDiskSpace, 0) - COALESCE(OLD.DiskSpace, 0), 0)
  WHERE MonitorId = OLD.MonitorId;
END`,
  };
}

function bucketUpdateTrigger(bucket: Bucket): TriggerDef {
  return {
    name: `Events_${bucket}_update_trigger`,
    table: `Events_${bucket}`,
    timing: 'AFTER',
    event: 'UPDATE',
    body: `BEGIN
  IF NOT (NEW.DiskSpace <=> OLD.DiskSpace) OR NEW.MonitorId <> OLD.MonitorId THEN
    UPDATE Event_Summaries SET
      ${bucket}EventDiskSpace = GREATEST(COALESCE(${bucket}EventDiskSpace, 0)
        + IF(MonitorId = NEW.MonitorId, COALESCE(NEW.DiskSpace, 0), 0)
        - IF(MonitorId = OLD.MonitorId, COALESCE(OLD.DiskSpace, 0), 0), 0)
    WHERE MonitorId IN (OLD.MonitorId, NEW.MonitorId);
  END IF;
END`,
  };
}

export const BUCKET_TRIGGERS: TriggerDef[] = BUCKETS.flatMap((bucket) => [
  bucketDeleteTrigger(bucket),
  bucketUpdateTrigger(bucket),
]);

// The Events triggers (1.39.22 semantics, docs/zoneminder/database.md). Since 1.37.77 there is no insert
// trigger: zmc itself writes the four bucket rows and the Event_Summaries upsert when an event
// starts. Since 1.37.69 Storage.DiskSpace is maintained in code, so no trigger touches Storage.
//
// Lock order. Every writer keeps Events -> Events_Hour/Day/Week/Month -> Event_Summaries
// (Events_Archived sits with the buckets). Updating or deleting a bucket row fires that
// bucket's trigger, which locks the monitor's Event_Summaries row; so before touching the
// first bucket row these triggers lock all four bucket rows of the event (SELECT … FOR UPDATE),
// and do their own Event_Summaries change last.
//
// Events.DiskSpace is BIGINT UNSIGNED: differences are taken on CAST(… AS SIGNED) values, since
// an unsigned subtraction going below zero is an error, not a negative number.

import type { TriggerDef } from '../types.js';

function lockBuckets(id: 'NEW.Id' | 'OLD.Id', indent: string): string {
  return ['Hour', 'Day', 'Week', 'Month']
    .map(
      (bucket) => `${indent}SELECT COUNT(*) INTO bucket_rows FROM Events_${bucket} WHERE EventId = ${id} FOR UPDATE;`,
    )
    .join('\n');
}

// AFTER UPDATE ON Events.
// - When DiskSpace actually changed: copy it into the event's bucket rows (their triggers move
//   the difference into {Bucket}EventDiskSpace) and add the difference to TotalEventDiskSpace.
// - When Archived flips on: add the Events_Archived row, ArchivedEvents + 1 and its disk space.
//   Flips off: remove the row, ArchivedEvents - 1 and its disk space. Stays on while DiskSpace
//   changes: keep the Events_Archived row and ArchivedEventDiskSpace in step.
// A counter is only written when its own quantity changes (an untouched NULL stays NULL).
// An event is not expected to change monitor; the summary row of NEW.MonitorId is the one kept.
const eventUpdateTrigger: TriggerDef = {
  name: 'event_update_trigger',
  table: 'Events',
  timing: 'AFTER',
  event: 'UPDATE',
  body: `BEGIN
  DECLARE space_changed BOOLEAN DEFAULT NOT (NEW.DiskSpace <=> OLD.DiskSpace);
  DECLARE old_space BIGINT DEFAULT CAST(COALESCE(OLD.DiskSpace, 0) AS SIGNED);
  DECLARE new_space BIGINT DEFAULT CAST(COALESCE(NEW.DiskSpace, 0) AS SIGNED);
  DECLARE archived_count_delta INT DEFAULT 0;
  DECLARE archived_space_delta BIGINT DEFAULT 0;
  DECLARE bucket_rows INT DEFAULT 0;

  IF NEW.Archived AND NOT OLD.Archived THEN
    INSERT INTO Events_Archived (EventId, MonitorId, DiskSpace)
      VALUES (NEW.Id, NEW.MonitorId, NEW.DiskSpace)
      ON DUPLICATE KEY UPDATE MonitorId = NEW.MonitorId, DiskSpace = NEW.DiskSpace;
    SET archived_count_delta = 1, archived_space_delta = new_space;
  ELSEIF OLD.Archived AND NOT NEW.Archived THEN
    DELETE FROM Events_Archived WHERE EventId = OLD.Id;
    SET archived_count_delta = -1, archived_space_delta = -old_space;
  ELSEIF NEW.Archived AND space_changed THEN
    UPDATE Events_Archived SET DiskSpace = NEW.DiskSpace WHERE EventId = NEW.Id;
    SET archived_space_delta = new_space - old_space;
  END IF;

  IF space_changed THEN
${lockBuckets('NEW.Id', '    ')}
    UPDATE Events_Hour SET DiskSpace = NEW.DiskSpace WHERE EventId = NEW.Id;
    UPDATE Events_Day SET DiskSpace = NEW.DiskSpace WHERE EventId = NEW.Id;
    UPDATE Events_Week SET DiskSpace = NEW.DiskSpace WHERE EventId = NEW.Id;
    UPDATE Events_Month SET DiskSpace = NEW.DiskSpace WHERE EventId = NEW.Id;
  END IF;

  IF new_space <> old_space OR archived_count_delta <> 0 OR archived_space_delta <> 0 THEN
    UPDATE Event_Summaries SET
      TotalEventDiskSpace = IF(new_space = old_space, TotalEventDiskSpace,
        GREATEST(COALESCE(TotalEventDiskSpace, 0) + new_space - old_space, 0)),
      ArchivedEvents = IF(archived_count_delta = 0, ArchivedEvents,
        GREATEST(COALESCE(ArchivedEvents, 0) + archived_count_delta, 0)),
      ArchivedEventDiskSpace = IF(archived_count_delta = 0 AND archived_space_delta = 0, ArchivedEventDiskSpace,
        GREATEST(COALESCE(ArchivedEventDiskSpace, 0) + archived_space_delta, 0))
    WHERE MonitorId = NEW.MonitorId;
  END IF;
END`,
};

// BEFORE DELETE ON Events: the event's bucket rows and Events_Archived row go (the bucket
// delete triggers take their counts and disk space off the summary), then TotalEvents and
// TotalEventDiskSpace drop by this event, and the Archived* counters too when it was archived.
const eventDeleteTrigger: TriggerDef = {
  name: 'event_delete_trigger',
  table: 'Events',
  timing: 'BEFORE',
  event: 'DELETE',
  body: `BEGIN
  DECLARE old_space BIGINT DEFAULT CAST(COALESCE(OLD.DiskSpace, 0) AS SIGNED);
  DECLARE bucket_rows INT DEFAULT 0;

${lockBuckets('OLD.Id', '  ')}
  DELETE FROM Events_Archived WHERE EventId = OLD.Id;
  DELETE FROM Events_Hour WHERE EventId = OLD.Id;
  DELETE FROM Events_Day WHERE EventId = OLD.Id;
  DELETE FROM Events_Week WHERE EventId = OLD.Id;
  DELETE FROM Events_Month WHERE EventId = OLD.Id;

  UPDATE Event_Summaries SET
    TotalEvents = GREATEST(COALESCE(TotalEvents, 0) - 1, 0),
    TotalEventDiskSpace = GREATEST(COALESCE(TotalEventDiskSpace, 0) - old_space, 0),
    ArchivedEvents = IF(OLD.Archived, GREATEST(COALESCE(ArchivedEvents, 0) - 1, 0), ArchivedEvents),
    ArchivedEventDiskSpace = IF(OLD.Archived, GREATEST(COALESCE(ArchivedEventDiskSpace, 0) - old_space, 0), ArchivedEventDiskSpace)
  WHERE MonitorId = OLD.MonitorId;
END`,
};

export const EVENT_TRIGGERS: TriggerDef[] = [eventDeleteTrigger, eventUpdateTrigger];

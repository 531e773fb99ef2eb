// Demo content for `npm run demo`: the ZoneMinder database `zm` with a `zmuser` account, created
// by `zmgate-db up` (schema, seed rows, admin/admin) plus a small installation on top:
//   - 3 monitors, one per common mode: Front Door (motion: Modect), Driveway (continuous: Record),
//     Backyard (watch only: Monitor). Front Door and Driveway are the simulated cameras that
//     `npm run demo` starts (src/sim/: 640×360 rgb24, 3 ring slots), so their rows say so;
//     Backyard has no capture daemon and shows what "not capturing" looks like;
//   - a group "Outside" (Driveway, Backyard) and 4 zones, in percent as 1.39 stores them;
//   - 20 events with 10 frames each over the last two days, with the Events_* buckets,
//     Event_Summaries and Storage.DiskSpace filled in as zmc would;
//   - a second user viewer/viewer who may view Front Door only.
import { createConnection, type Connection } from 'mariadb';
import { migrate } from '../db/migrator.js';
import type { ThrowawayMariaDb } from './throwaway-mariadb.js';

/** bcrypt (cost 10, $2b$) of 'viewer', made with libxcrypt's crypt(3); checked the same way. */
const VIEWER_PASSWORD_HASH = '$2b$10$HY/gdlSZfvBEGQN53TbUteWk5e204EJRcdE.Kdksy3EEfUnu29kmy';

const MONITORS = [
  {
    id: 1,
    name: 'Front Door',
    fn: 'Modect',
    analysing: 'Always',
    recording: 'OnMotion',
    width: 640,
    height: 360,
    colours: 3,
    host: '192.0.2.10',
  },
  {
    id: 2,
    name: 'Driveway',
    fn: 'Record',
    analysing: 'None',
    recording: 'Always',
    width: 640,
    height: 360,
    colours: 3,
    host: '192.0.2.11',
  },
  {
    id: 3,
    name: 'Backyard',
    fn: 'Monitor',
    analysing: 'None',
    recording: 'None',
    width: 640,
    height: 480,
    colours: 4,
    host: '192.0.2.12',
  },
] as const;

/** The monitors `npm run demo` runs a simulated camera for (their rows match SIM_CLIP). */
export const SIMULATED_MONITOR_IDS = [1, 2] as const;

const ZONES = [
  { monitor: 1, name: 'All', type: 'Active', coords: '0.00,0.00 100.00,0.00 100.00,100.00 0.00,100.00', area: 10000 },
  {
    monitor: 1,
    name: 'Porch',
    type: 'Active',
    coords: '30.00,55.00 70.00,55.00 70.00,100.00 30.00,100.00',
    area: 1800,
  },
  { monitor: 1, name: 'Street', type: 'Inactive', coords: '0.00,0.00 100.00,0.00 100.00,20.00 0.00,20.00', area: 2000 },
  {
    monitor: 2,
    name: 'Drive',
    type: 'Active',
    coords: '10.00,40.00 90.00,40.00 100.00,100.00 0.00,100.00',
    area: 5400,
  },
] as const;

const EVENTS = 20;
const FRAMES_PER_EVENT = 10;

/** 'YYYY-MM-DD HH:MM:SS' in local time: ZoneMinder stores local wall-clock DATETIMEs. */
function localDateTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

async function insertMonitors(conn: Connection): Promise<void> {
  for (const m of MONITORS) {
    await conn.query(
      `INSERT INTO Monitors (Id, Name, Type, \`Function\`, Capturing, Analysing, Recording, Enabled, StorageId, Protocol, Method, Host, Port, Path,
                             Width, Height, Colours, ImageBufferCount, MaxFPS, VideoWriter, OutputContainer, SaveJPEGs, Sequence, Importance)
       VALUES (?, ?, 'Ffmpeg', ?, 'Always', ?, ?, 1, 1, 'rtsp', 'rtpRtsp', ?, '554', ?, ?, ?, ?, 3, 25.00, 2, 'mp4', 0, ?, 'Normal')`,
      [
        m.id,
        m.name,
        m.fn,
        m.analysing,
        m.recording,
        m.host,
        `rtsp://${m.host}:554/stream1`,
        m.width,
        m.height,
        m.colours,
        m.id,
      ],
    );
  }
  await conn.query("INSERT INTO `Groups` (Id, Name, ParentId) VALUES (1, 'Outside', NULL)");
  await conn.query('INSERT INTO Groups_Monitors (GroupId, MonitorId) VALUES (1, 2), (1, 3)');
  // Zone_Insert_Trigger keeps Monitors.ZoneCount.
  for (const z of ZONES) {
    await conn.query(
      `INSERT INTO Zones (MonitorId, Name, Type, Units, NumCoords, Coords, Area, AlarmRGB, CheckMethod,
                          MinPixelThreshold, MaxPixelThreshold, MinAlarmPixels, MaxAlarmPixels, FilterX, FilterY,
                          MinFilterPixels, MaxFilterPixels, MinBlobPixels, MinBlobs)
       VALUES (?, ?, ?, 'Percent', ?, ?, ?, 16711680, 'Blobs', 25, NULL, 3.00, 75.00, 3, 3, 3.00, 75.00, 2.00, 1)`,
      [z.monitor, z.name, z.type, z.coords.split(' ').length, z.coords, z.area],
    );
  }
}

async function insertEvents(conn: Connection): Promise<void> {
  const now = Date.now();
  const events: unknown[][] = [];
  const frames: unknown[][] = [];
  for (let id = 1; id <= EVENTS; id++) {
    // Alternate the two recording monitors; spread the events back over 48 hours.
    const monitor = MONITORS[(id - 1) % 2];
    const start = new Date(now - (EVENTS - id) * 2.4 * 3600_000 - 600_000);
    start.setMilliseconds(0);
    const length = monitor.recording === 'Always' ? 600 : 20 + (id % 5) * 8;
    const end = new Date(start.getTime() + length * 1000);
    const alarmed = monitor.recording === 'OnMotion';
    const scores = Array.from({ length: FRAMES_PER_EVENT }, (_, i) =>
      alarmed && i >= 3 && i <= 6 ? 10 + ((id * 7 + i * 13) % 60) : 0,
    );
    const maxScore = Math.max(...scores);
    const alarmFrames = scores.filter((s) => s > 0).length;
    const total = scores.reduce((a, b) => a + b, 0);
    const diskSpace = 1_048_576 * (2 + (id % 7));
    events.push([
      id,
      monitor.id,
      `Event-${id}`,
      alarmed ? 'Motion' : 'Continuous',
      alarmed ? `Motion: ${id % 3 ? 'All' : 'Porch'}` : null,
      localDateTime(start),
      localDateTime(end),
      monitor.width,
      monitor.height,
      length.toFixed(2),
      FRAMES_PER_EVENT,
      alarmFrames,
      total,
      alarmFrames ? Math.round(total / alarmFrames) : 0,
      maxScore,
      maxScore ? scores.indexOf(maxScore) + 1 : null,
      `${id}-video.mp4`,
      id === 3 ? 1 : 0,
      diskSpace,
    ]);
    for (let f = 1; f <= FRAMES_PER_EVENT; f++) {
      const delta = ((length * (f - 1)) / FRAMES_PER_EVENT).toFixed(2);
      const type = scores[f - 1] > 0 ? 'Alarm' : f === FRAMES_PER_EVENT ? 'Bulk' : 'Normal';
      frames.push([id, f, type, localDateTime(new Date(start.getTime() + Number(delta) * 1000)), delta, scores[f - 1]]);
    }
  }
  await conn.batch(
    `INSERT INTO Events (Id, MonitorId, Name, Cause, Notes, StartDateTime, EndDateTime, Width, Height, Length, Frames, AlarmFrames,
                         TotScore, AvgScore, MaxScore, MaxScoreFrameId, DefaultVideo, Archived, DiskSpace,
                         StorageId, SecondaryStorageId, Videoed, SaveJPEGs, StateId, Scheme)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 0, 1, 0, 1, 'Medium')`,
    events,
  );
  await conn.batch(
    'INSERT INTO Frames (EventId, FrameId, Type, TimeStamp, Delta, Score) VALUES (?, ?, ?, ?, ?, ?)',
    frames,
  );

  // What zmc and the Events triggers keep in 1.39: the time buckets, the per-monitor summary,
  // the archive table and the storage total.
  for (const [table, interval] of [
    ['Events_Hour', '1 HOUR'],
    ['Events_Day', '1 DAY'],
    ['Events_Week', '1 WEEK'],
    ['Events_Month', '1 MONTH'],
  ]) {
    await conn.query(
      `INSERT INTO ${table} (EventId, MonitorId, StartDateTime, DiskSpace)
       SELECT Id, MonitorId, StartDateTime, DiskSpace FROM Events WHERE StartDateTime > NOW() - INTERVAL ${interval}`,
    );
  }
  await conn.query(
    'INSERT INTO Events_Archived (EventId, MonitorId, DiskSpace) SELECT Id, MonitorId, DiskSpace FROM Events WHERE Archived = 1',
  );
  await conn.query(
    `INSERT INTO Event_Summaries (MonitorId, TotalEvents, TotalEventDiskSpace, HourEvents, HourEventDiskSpace, DayEvents, DayEventDiskSpace,
                                  WeekEvents, WeekEventDiskSpace, MonthEvents, MonthEventDiskSpace, ArchivedEvents, ArchivedEventDiskSpace)
     SELECT m.Id,
            (SELECT COUNT(*) FROM Events e WHERE e.MonitorId = m.Id), (SELECT COALESCE(SUM(DiskSpace), 0) FROM Events e WHERE e.MonitorId = m.Id),
            (SELECT COUNT(*) FROM Events_Hour b WHERE b.MonitorId = m.Id), (SELECT COALESCE(SUM(DiskSpace), 0) FROM Events_Hour b WHERE b.MonitorId = m.Id),
            (SELECT COUNT(*) FROM Events_Day b WHERE b.MonitorId = m.Id), (SELECT COALESCE(SUM(DiskSpace), 0) FROM Events_Day b WHERE b.MonitorId = m.Id),
            (SELECT COUNT(*) FROM Events_Week b WHERE b.MonitorId = m.Id), (SELECT COALESCE(SUM(DiskSpace), 0) FROM Events_Week b WHERE b.MonitorId = m.Id),
            (SELECT COUNT(*) FROM Events_Month b WHERE b.MonitorId = m.Id), (SELECT COALESCE(SUM(DiskSpace), 0) FROM Events_Month b WHERE b.MonitorId = m.Id),
            (SELECT COUNT(*) FROM Events_Archived b WHERE b.MonitorId = m.Id), (SELECT COALESCE(SUM(DiskSpace), 0) FROM Events_Archived b WHERE b.MonitorId = m.Id)
       FROM Monitors m`,
  );
  await conn.query(
    'UPDATE Storage SET DiskSpace = (SELECT SUM(DiskSpace) FROM Events WHERE StorageId = 1) WHERE Id = 1',
  );
}

async function insertViewer(conn: Connection): Promise<void> {
  const { insertId } = (await conn.query(
    `INSERT INTO Users (Username, Password, Name, Enabled, Stream, Events, Control, Monitors, \`Groups\`, Devices, Snapshots, \`System\`, APIEnabled)
     VALUES ('viewer', ?, 'Demo viewer', 1, 'View', 'View', 'None', 'View', 'None', 'None', 'None', 'None', 1)`,
    [VIEWER_PASSWORD_HASH],
  )) as { insertId: number };
  // Front Door only: an explicit None for the others (the 1.39 fallback would show them).
  await conn.batch(
    'INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES (?, ?, ?)',
    MONITORS.map((m) => [m.id, insertId, m.id === 1 ? 'View' : 'None']),
  );
}

export async function prepareDemoDatabase(db: ThrowawayMariaDb): Promise<void> {
  await db.createDatabase('zm');
  await db.createUser('zmuser', 'zmpass', 'zm');
  const conn = await createConnection({
    ...db.connectionConfig('zm', 'zmuser', 'zmpass'),
    bigIntAsNumber: true,
    insertIdAsNumber: true,
  });
  try {
    await migrate(conn, 'up', { database: 'zm' });
    await conn.beginTransaction();
    await insertMonitors(conn);
    await insertEvents(conn);
    await insertViewer(conn);
    await conn.commit();
  } finally {
    await conn.end();
  }
}

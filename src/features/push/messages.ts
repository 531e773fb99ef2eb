// The push protocol's messages, version 1 (docs/push.md has the JSON schema). Every message the
// server sends is a socket.io event named after its `type`, with one JSON object whose `v` is the
// protocol version. Field names follow the REST API (snake_case, times as ISO 8601 UTC).

export const PUSH_PROTOCOL_VERSION = 1;
/** The one socket.io path, under the API prefix so a proxy forwarding /api/v3/ forwards it too. */
export const PUSH_PATH = '/api/v3/socket.io';

/** What a message is about decides who may receive it. */
export type Topic = 'alarm' | 'event' | 'daemon';

export interface AlarmMessage {
  v: 1;
  type: 'alarm';
  monitor_id: number;
  /** start: the monitor entered Alarm; end: it left Alarm/Alert for Idle (or stopped). */
  phase: 'start' | 'end';
  /** SharedData.state as zmc wrote it when the change was seen. */
  state: string;
  /** The last analysed frame's score at the change (0 at the end). */
  score: number;
  /** SharedData.alarm_cause, e.g. "Motion: All" or a forced alarm's cause. */
  cause: string;
  time: string;
}

export interface PushEvent {
  id: number;
  monitor_id: number;
  name: string;
  cause: string | null;
  /** As the REST API emits Events times: UTC, `YYYY-MM-DDTHH:MM:SSZ`. */
  start_date_time: string | null;
  end_date_time: string | null;
  /** Seconds, as a decimal string like the REST API's `length`. */
  length: string | null;
  frames: number | null;
  alarm_frames: number | null;
  max_score: number | null;
  /** The event's thumbnail route (Events View, `?token=` may be appended). */
  thumbnail_url: string;
}

export interface EventMessage {
  v: 1;
  type: 'event_start' | 'event_end';
  event: PushEvent;
  /** Present and true when sent in answer to a `replay` request. */
  replay?: true;
  time: string;
}

export type MonitorDbStatus = 'Unknown' | 'NotRunning' | 'Running' | 'Connected' | 'Signal';

export interface MonitorStatusMessage {
  v: 1;
  type: 'monitor_status';
  monitor_id: number;
  /** The capture daemon's shared memory is valid, capturing is on and the heartbeat is fresh. */
  capturing: boolean;
  /** The shared memory exists but zmc's heartbeat is older than 45 s (zmwatch's rule). */
  heartbeat_stale: boolean;
  /** Monitor_Status.Status (null when the row is absent). */
  status: MonitorDbStatus | null;
  /** From shared memory, else Monitor_Status.CaptureFPS; null when neither is known. */
  capture_fps: number | null;
  /** capture_fps below `push.capture_fps_threshold` while capturing. */
  fps_below_threshold: boolean;
  time: string;
}

/** A daemon change, published by the daemon supervisor when zmgate runs ZoneMinder's daemons. */
export interface DaemonMessage {
  v: 1;
  type: 'daemon';
  /** The monitor the daemon serves (zmc, zma), or null for a global daemon (zmfilter, zmwatch…). */
  monitor_id: number | null;
  daemon: string;
  state: 'started' | 'exited' | 'restarting';
  /** For exited: the exit code or signal, in words. */
  cause: string | null;
  /** For restarting: the delay before the next start, in seconds. */
  restart_in_secs: number | null;
  time: string;
}

export type DaemonChange = Omit<DaemonMessage, 'v' | 'type' | 'time' | 'cause' | 'restart_in_secs'> & {
  cause?: string | null;
  restart_in_secs?: number | null;
};

export type PushMessage = AlarmMessage | EventMessage | MonitorStatusMessage | DaemonMessage;

export function nowIso(now = Date.now()): string {
  return `${new Date(now).toISOString().slice(0, 19)}Z`;
}

export function thumbnailUrl(eventId: number): string {
  return `/api/v3/events/${eventId}/thumbnail`;
}

export function topicOf(message: PushMessage): Topic {
  if (message.type === 'event_start' || message.type === 'event_end') return 'event';
  if (message.type === 'daemon') return 'daemon';
  return 'alarm'; // alarm and monitor_status share the Stream-or-Monitors rule
}

export function monitorOf(message: PushMessage): number | null {
  return 'event' in message ? message.event.monitor_id : message.monitor_id;
}

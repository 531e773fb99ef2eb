// Live push, delivery (docs/push.md): one socket.io room per topic and monitor (`alarm:3`,
// `event:3`, and `daemon`). A connection is in a room only while it subscribed to that monitor,
// may see it (row ACL) and holds the topic's feature permission, so a hidden monitor's messages
// never reach it and subscribing to one answers exactly like subscribing to a missing one.
import type { Socket } from 'socket.io';
import type { AuthUser } from '../../auth/auth-service.js';
import { canSee, type MonitorScope } from '../../auth/monitor-acl.js';
import { allows, type Permissions } from '../../auth/permissions.js';
import type { Topic } from './messages.js';

/** One push connection and what it asked for. */
export interface Client {
  socket: Socket;
  user: AuthUser;
  token: string;
  scope: MonitorScope;
  /** Monitors asked for: 'all' follows new monitors too. */
  monitors: 'all' | Set<number>;
  topics: Set<Topic>;
  timers: NodeJS.Timeout[];
  replaying: boolean;
  window: { start: number; count: number };
}

export const TOPICS: readonly Topic[] = ['alarm', 'event', 'daemon'];

/** The feature permission each topic needs (Stream or Monitors View for alarms and status). */
export function allowedTopics(perms: Permissions): Set<Topic> {
  const out = new Set<Topic>();
  if (allows(perms, 'stream', 'View') || allows(perms, 'monitors', 'View')) out.add('alarm');
  if (allows(perms, 'events', 'View')) out.add('event');
  if (allows(perms, 'system', 'View')) out.add('daemon');
  return out;
}

/** Monitors that exist (`monitorIds`) and the user may see. */
export function visibleMonitors(client: Client, monitorIds: Iterable<number>): Set<number> {
  return new Set([...monitorIds].filter((id) => canSee(client.scope, id)));
}

/** The visible monitors the connection asked for. */
export function subscribedMonitors(client: Client, monitorIds: Iterable<number>): Set<number> {
  const visible = visibleMonitors(client, monitorIds);
  if (client.monitors === 'all') return visible;
  const asked = client.monitors;
  return new Set([...visible].filter((id) => asked.has(id)));
}

/** What a subscribe or unsubscribe answers: the monitors and topics the connection now receives. */
export function subscriptionSummary(client: Client, monitorIds: Iterable<number>) {
  const monitors = [...subscribedMonitors(client, monitorIds)].sort((a, b) => a - b);
  const allowed = allowedTopics(client.user.perms);
  return { monitors, topics: [...client.topics].filter((t) => allowed.has(t)) };
}

/** Puts the connection in exactly the rooms it may receive; returns the rooms joined now. */
export function syncRooms(client: Client, monitorIds: Iterable<number>): string[] {
  const allowed = allowedTopics(client.user.perms);
  const topics = [...client.topics].filter((t) => allowed.has(t));
  const want = new Set<string>();
  const monitors = subscribedMonitors(client, monitorIds);
  for (const topic of topics) for (const id of monitors) want.add(`${topic}:${id}`);
  if (topics.includes('daemon')) want.add('daemon');
  const socket = client.socket;
  const joined: string[] = [];
  for (const room of socket.rooms) if (room !== socket.id && !want.has(room)) void socket.leave(room);
  for (const room of want) {
    if (socket.rooms.has(room)) continue;
    void socket.join(room);
    joined.push(room);
  }
  return joined;
}

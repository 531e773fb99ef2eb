// A socket.io client of the push service (/api/v3/socket.io/) that records every message, for
// the push tests and the push benchmark.
import { availableParallelism, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { io, type Socket } from 'socket.io-client';

export const PUSH_MESSAGES = [
  'hello',
  'alarm',
  'event_start',
  'event_end',
  'monitor_status',
  'daemon',
  'token_expiring',
  'session_ended',
  'push_error',
];

export interface Received {
  name: string;
  body: any;
  at: number;
}

export interface PushClientOptions {
  token?: unknown;
  /** The token as ?token= instead of auth.token. */
  queryToken?: string;
  transports?: Array<'websocket' | 'polling'>;
}

export class PushClient {
  readonly socket: Socket;
  readonly received: Received[] = [];
  disconnectReason: string | null = null;

  constructor(baseUrl: string, o: PushClientOptions = {}) {
    this.socket = io(baseUrl, {
      path: '/api/v3/socket.io',
      ...(o.token !== undefined ? { auth: { token: o.token } } : {}),
      ...(o.queryToken !== undefined ? { query: { token: o.queryToken } } : {}),
      transports: o.transports ?? ['websocket'],
      reconnection: false,
      forceNew: true,
    });
    for (const name of PUSH_MESSAGES)
      this.socket.on(name, (body: unknown) => this.received.push({ name, body, at: Date.now() }));
    this.socket.on('disconnect', (reason) => (this.disconnectReason = reason));
  }

  /** Resolves when connected; rejects with the connect_error (message + data) when refused. */
  connected(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.socket.connected) return resolve();
      this.socket.once('connect', () => resolve());
      this.socket.once('connect_error', (err) => reject(err));
    });
  }

  /** Emits with an acknowledgement and resolves with it. */
  request(name: string, payload?: unknown): Promise<any> {
    return this.socket.timeout(10_000).emitWithAck(name, payload);
  }

  of(name: string): any[] {
    return this.received.filter((r) => r.name === name).map((r) => r.body);
  }

  /** Waits for a message matching `pred` (generous timeout: a failure, not a measurement). */
  async waitFor(name: string, pred: (body: any) => boolean = () => true, timeoutMs = 10_000): Promise<any> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.received.find((r) => r.name === name && pred(r.body));
      if (hit) return hit.body;
      if (Date.now() > end)
        throw new Error(
          `no ${name} message within ${timeoutMs} ms; got ${JSON.stringify(this.received.map((r) => r.name))}`,
        );
      await sleep(10);
    }
  }

  /**
   * A latency bound as a condition: waits for a message matching `pred` and fails unless it
   * arrived within `boundMs` of `since` (ms since the epoch, the moment the trigger was sent). Its
   * arrival time is taken when the client's handler ran, not when this loop looked. The bound is
   * the service's on an idle machine; when the run queue is longer than the cores (other tests,
   * ffmpeg, the database on the same box) it is stretched by that factor, because the service
   * cannot be faster than the scheduler lets it run.
   */
  async arrivedWithin(name: string, pred: (body: any) => boolean, since: number, boundMs: number): Promise<any> {
    const stretch = Math.max(1, loadavg()[0] / availableParallelism());
    const deadline = since + Math.round(boundMs * stretch);
    // Past the deadline it still waits a while, so a failure says by how much it was missed.
    const body = await this.waitFor(name, pred, Math.max(0, deadline - Date.now()) + 10_000);
    const hit = this.received.find((r) => r.name === name && r.body === body)!;
    if (hit.at > deadline)
      throw new Error(
        `the ${name} message arrived ${hit.at - deadline} ms after its deadline (bound ${boundMs} ms × ${stretch.toFixed(2)})`,
      );
    return body;
  }

  async waitDisconnected(timeoutMs = 15_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    while (this.disconnectReason === null) {
      if (Date.now() > end) throw new Error('still connected');
      await sleep(20);
    }
    return this.disconnectReason;
  }

  close(): void {
    this.socket.close();
  }
}

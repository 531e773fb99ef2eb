// A fake zmcontrol.pl control server (docs/zoneminder/ptz.md): a unix socket at <dir>/zmcontrol-<id>.sock that
// reads one message per connection until the client half-closes, and records what it received
// (parsed JSON, or the raw text when it is not JSON; empty connections are probes).
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FakeZmControl {
  path: string;
  /** Every non-empty message, in arrival order. */
  messages: Array<Record<string, unknown>>;
  /** Connections that closed without sending anything (status probes). */
  probes: number;
  /** Resolves once at least `count` messages have arrived (fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Array<Record<string, unknown>>>;
  /** Resolves once at least `count` probes have arrived. */
  waitForProbes(count: number, timeoutMs?: number): Promise<void>;
  /** Forgets what was received so far. */
  clear(): void;
  close(): Promise<void>;
}

export async function startFakeZmControl(dir: string, monitorId: number): Promise<FakeZmControl> {
  const path = join(dir, `zmcontrol-${monitorId}.sock`);
  const messages: Array<Record<string, unknown>> = [];
  const fake: FakeZmControl = {
    path,
    messages,
    probes: 0,
    async waitFor(count, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} zmcontrol messages, got ${messages.length}: ${JSON.stringify(messages)}`);
        await sleep(5);
      }
      return messages.slice();
    },
    async waitForProbes(count, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (fake.probes < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} probes, got ${fake.probes}`);
        await sleep(5);
      }
    },
    clear() {
      messages.length = 0;
      fake.probes = 0;
    },
    async close() {
      server.close();
      await once(server, 'close');
    },
  };
  const server: Server = createServer((socket) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => {
      if (text === '') fake.probes++;
      else {
        try {
          messages.push(JSON.parse(text));
        } catch {
          messages.push({ raw: text });
        }
      }
      socket.end();
    });
    socket.on('error', () => undefined);
  });
  server.listen(path);
  await once(server, 'listening');
  return fake;
}

// A `ws` client for the WebRTC signalling socket: waits for typed messages, and reads the HTTP
// answer of a refused upgrade.
import { WebSocket } from 'ws';

export interface Refusal {
  status: number;
  contentType: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** Opens `url` expecting the upgrade to be refused; resolves with the HTTP status and JSON body. */
export function refusedUpgrade(url: string, headers: Record<string, string> = {}): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const timer = setTimeout(() => reject(new Error('no answer to the upgrade within 10 s')), 10_000);
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        clearTimeout(timer);
        let body: any;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], headers: res.headers, body });
      });
    });
    ws.on('open', () => {
      clearTimeout(timer);
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.on('error', () => {}); // the refusal also surfaces as an error after unexpected-response
  });
}

export class SignalClient {
  readonly messages: any[] = [];
  readonly #waiters: Array<() => void> = [];
  closed: { code: number; reason: string } | null = null;
  /** The headers of the server's 101 answer. */
  upgradeHeaders: Record<string, string | string[] | undefined> = {};

  private constructor(readonly ws: WebSocket) {
    ws.once('upgrade', (res) => (this.upgradeHeaders = res.headers));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      this.messages.push(JSON.parse(data.toString()));
      for (const w of this.#waiters.splice(0)) w();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const w of this.#waiters.splice(0)) w();
    });
  }

  static connect(url: string, headers: Record<string, string> = {}): Promise<SignalClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      const client = new SignalClient(ws); // listening before 'open': the offer comes at once
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  /** The next message (from index `from`) matching `type`, waiting up to `ms`. */
  async next(type: string, ms = 10_000, from = 0): Promise<any> {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = this.messages.slice(from).find((m) => m.type === type);
      if (hit) return hit;
      if (this.closed)
        throw new Error(`socket closed (${this.closed.code} ${this.closed.reason}) before a ${type} message`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no ${type} message within ${ms} ms; got ${JSON.stringify(this.messages.map((m) => m.type))}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' || Buffer.isBuffer(message) ? message : JSON.stringify(message));
  }

  /** Resolves when the socket has closed (server- or client-initiated). */
  async waitClosed(ms = 10_000): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + ms;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('socket still open');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 50);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.closed;
  }

  close(): void {
    this.ws.close();
  }
}

// `zmgate-watch`: prints the live push stream (docs/push.md) of one user, one JSON message a
// line, for operators and tests. Signs in with a password (or takes an access token), keeps the
// token fresh through the refresh token, subscribes, and optionally asks for missed events first.
// Exit codes: 0 stopped by a signal, 1 connection refused or lost, 2 usage, 3 ended by the server.
import { parseArgs } from 'node:util';
import { io, type Socket } from 'socket.io-client';

const USAGE =
  'Usage: zmgate-watch --url http://host:8080 (--user NAME [--password P] | --token ACCESS_TOKEN)\n' +
  '                    [--monitors all|1,2,3] [--topics alarm,event,daemon] [--since EVENT_ID] [--polling]\n' +
  'The password may come from ZMGATE_PASSWORD. Prints one JSON message per line.\n';

const MESSAGES = [
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

interface Tokens {
  access_token: string;
  refresh_token: string | null;
}

async function post(url: string, body: unknown): Promise<Tokens> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok)
    throw new Error(`${new URL(url).pathname}: HTTP ${res.status} ${String(json.error_message ?? '')}`.trim());
  return {
    access_token: String(json.access_token),
    refresh_token: typeof json.refresh_token === 'string' ? json.refresh_token : null,
  };
}

function line(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        url: { type: 'string' },
        user: { type: 'string' },
        password: { type: 'string' },
        token: { type: 'string' },
        monitors: { type: 'string', default: 'all' },
        topics: { type: 'string' },
        since: { type: 'string' },
        polling: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`zmgate-watch: ${(err as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const monitors = values.monitors === 'all' ? 'all' : values.monitors.split(',').map(Number);
  const topics = values.topics?.split(',');
  const since = values.since === undefined ? undefined : Number(values.since);
  if (
    !values.url ||
    (!values.user && !values.token) ||
    (monitors !== 'all' && !monitors.every((n) => Number.isInteger(n) && n >= 0)) ||
    (since !== undefined && !(Number.isInteger(since) && since >= 0))
  ) {
    process.stderr.write(USAGE);
    process.exitCode = 2;
    return;
  }
  const base = values.url.replace(/\/+$/, '');
  let tokens: Tokens;
  try {
    tokens = values.token
      ? { access_token: values.token, refresh_token: null }
      : await post(`${base}/api/v3/auth/login`, {
          username: values.user,
          password: values.password ?? env.ZMGATE_PASSWORD ?? '',
        });
  } catch (err) {
    process.stderr.write(`zmgate-watch: ${(err as Error).message}\n`);
    process.exitCode = 1;
    return;
  }

  const socket: Socket = io(base, {
    path: '/api/v3/socket.io',
    auth: (cb) => cb({ token: tokens.access_token }), // a reconnection uses the newest token
    transports: values.polling ? ['polling'] : ['websocket'],
    reconnection: true,
  });
  let ended = false;
  const finish = (code: number) => {
    ended = true;
    process.exitCode = code;
    socket.close();
  };
  for (const name of MESSAGES) socket.on(name, (message: unknown) => line(message));
  socket.on('session_ended', () => finish(3));
  socket.on('token_expiring', () => {
    if (!tokens.refresh_token) return;
    post(`${base}/api/v3/auth/refresh`, { token: tokens.refresh_token })
      .then((fresh) => {
        tokens = fresh;
        socket.emit('refresh_token', { token: fresh.access_token }, (ack: unknown) =>
          line({ type: 'refresh_token_ack', ...(ack as object) }),
        );
      })
      .catch((err: Error) => process.stderr.write(`zmgate-watch: token refresh failed: ${err.message}\n`));
  });
  socket.on('connect_error', (err: Error & { data?: unknown }) => {
    line({ type: 'connect_error', message: err.message, error: err.data ?? null });
    // A refusal by the server (bad token, no permission) will not change by retrying.
    if (err.data || !socket.active) finish(1);
  });
  socket.on('connect', () => {
    socket.emit('subscribe', { monitors, ...(topics ? { topics } : {}) }, (ack: unknown) => {
      line({ type: 'subscribe_ack', ...(ack as object) });
      if (since !== undefined)
        socket.emit('replay', { since_event_id: since }, (r: unknown) =>
          line({ type: 'replay_ack', ...(r as object) }),
        );
    });
  });
  socket.on('disconnect', (reason) => {
    if (!ended)
      process.stderr.write(`zmgate-watch: disconnected (${reason})${socket.active ? ', reconnecting' : ''}\n`);
    if (!socket.active && !ended) finish(1);
  });
  const stop = () => finish(0);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// The OpenAPI operation of the live push endpoint (docs/push.md), its entry in the route table.
// socket.io is not an HTTP API that OpenAPI can describe: this documents the path, the handshake
// and refusals, and carries the message schemas of docs/push-messages.schema.json, turned into the
// 3.0 style (nullable, no $ref) the OpenAPI build expects before it upgrades the document.
import { readFileSync } from 'node:fs';
import { error } from '../../media/openapi-parts.js';
import type { MediaRoute, OpenApiOperation } from '../../media/media-route.js';
import { packageRoot } from '../../paths.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON Schema document walked generically
const schema: Json = JSON.parse(readFileSync(`${packageRoot}/docs/push-messages.schema.json`, 'utf8'));

/** Inlines #/$defs refs and rewrites 2020-12 spellings (type arrays with null, const) for 3.0. */
function toOpenApi30(node: Json): Json {
  if (Array.isArray(node)) return node.map(toOpenApi30);
  if (!node || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') return toOpenApi30(schema.$defs[node.$ref.replace('#/$defs/', '')]);
  const out: Json = {};
  for (const [key, value] of Object.entries<Json>(node)) {
    if (key === '$schema' || key === '$id' || key === '$defs' || key === 'title') continue;
    if (key === 'const') {
      out.type = typeof value === 'boolean' ? 'boolean' : 'string';
      out.enum = [value];
    } else if (key === 'type' && Array.isArray(value)) {
      out.type = value.find((t) => t !== 'null');
      if (value.includes('null')) out.nullable = true;
    } else if (key === 'enum' && value.includes(null)) {
      out.type = 'string';
      out.enum = value.filter((v: unknown) => v !== null);
      out.nullable = true;
    } else out[key] = toOpenApi30(value);
  }
  if (out.enum && !out.type) out.type = 'string';
  return out;
}

export const pushPaths: Record<string, { get: OpenApiOperation }> = {
  '/api/v3/socket.io/': {
    get: {
      operationId: 'livePushSocket',
      tags: ['Live Streaming'],
      summary: 'Live event push (socket.io)',
      description:
        'A socket.io 4 endpoint (Engine.IO protocol 4): connect a socket.io client with `path: "/api/v3/socket.io"`, WebSocket or HTTP long-polling. ' +
        'Authenticate with the access token in the handshake, `auth: {token}`, or `?token=` for clients that cannot set it; a refusal is a `connect_error` whose message is the reason and whose `data` is the error envelope. A bad `?token=` is refused before the session opens, as an HTTP 401 with the error envelope (also as the answer to a WebSocket upgrade); beyond `push.max_clients` the handshake is a 503 with Retry-After. ' +
        'Client messages (each may take an acknowledgement callback answered with `{ok: true, …}` or `{ok: false, error}`): `subscribe {monitors: "all" | [ids], topics?: ["alarm","event","daemon"]}`, `unsubscribe {monitors}`, `refresh_token {token}` (send a newer access token before `expires_at`, or the connection ends), `replay {since_event_id}` (missed events, at most `push.replay_max`). ' +
        'Server messages are socket.io events named after `type`, described by the 101 response schema (protocol version 1; docs/push.md). Alarms and monitor status need Stream or Monitors View, events need Events View, daemon messages System View; monitors hidden by the row ACL are never mentioned.',
      parameters: [
        {
          in: 'query',
          name: 'EIO',
          required: true,
          description: 'Engine.IO protocol version (4), set by the client library',
          schema: { type: 'string', enum: ['4'] },
        },
        {
          in: 'query',
          name: 'transport',
          required: true,
          description: 'Set by the client library',
          schema: { type: 'string', enum: ['websocket', 'polling'] },
        },
        {
          in: 'query',
          name: 'token',
          required: false,
          description: 'Access token, for clients that cannot send `auth.token`',
          schema: { type: 'string' },
        },
      ],
      responses: {
        101: {
          description: 'Switching to the WebSocket; then socket.io packets carrying these messages',
          content: { 'application/json': { schema: toOpenApi30({ oneOf: schema.oneOf }) } },
        },
        200: { description: 'HTTP long-polling: Engine.IO packets' },
        400: { description: "Not an Engine.IO request (Engine.IO's own JSON error)" },
        401: error('Refused before the session opened: an invalid, expired or revoked `?token=`'),
        404: error('The push endpoint is disabled (push.enabled = false)'),
      },
    },
  },
};

/** The push endpoint in the route table: socket.io answers its path (HTTP and upgrades) before express. */
export const PUSH_ROUTE: MediaRoute = {
  path: '/api/v3/socket.io/',
  operationId: 'livePushSocket',
  policy: 'stream:View',
  serve: 'websocket',
  queryToken: true,
  compress: false,
  limited: false,
  openapi: pushPaths['/api/v3/socket.io/'].get,
};

// The OpenAPI operation of the WebRTC signalling WebSocket, which express and tsoa never see: the
// upgrade is handled on the HTTP server's 'upgrade' event. Written in 3.0 style (nullable) like the
// other media operations: the build upgrades the whole document. operationId and responses as the
// v3 reference surface (webrtcSignalingStream).
import { error } from '../../../media/openapi-parts.js';
import type { OpenApiOperation } from '../../../media/media-route.js';
const str = (description: string) => ({ type: 'string', description });
const message = (type: string, description: string, properties: object = {}, required: string[] = []) => ({
  type: 'object',
  description,
  properties: { type: { type: 'string', enum: [type] }, ...properties },
  required: ['type', ...required],
});
const sessionId = str('The session id the server chose (uuid v4); another id is ignored');
const candidate = {
  session_id: sessionId,
  candidate: str('ICE candidate line (`candidate:…`); "" from a client means end of candidates'),
  sdpMid: { type: 'string', nullable: true, description: 'Media id ("0" video, "1" audio)' },
  sdpMLineIndex: { type: 'integer', minimum: 0, nullable: true, description: 'm-line index' },
};

/** WebRtcSignalingMessage of the reference: JSON text frames, discriminated by `type`. */
const signalingMessage = {
  oneOf: [
    message(
      'offer',
      'S→C, sent at once after the upgrade: the server is the offerer',
      { session_id: sessionId, sdp: str('SDP offer (sendonly video; audio when passed through)') },
      ['session_id', 'sdp'],
    ),
    message('answer', "C→S: the browser's answer", { session_id: sessionId, sdp: str('SDP answer') }, ['sdp']),
    message('icecandidate', 'Both ways: trickled ICE candidates', candidate, ['candidate']),
    message(
      'ready',
      'S→C: the peer is connected; media flows from now on',
      { session_id: sessionId, monitor_id: { type: 'integer' }, has_audio: { type: 'boolean' } },
      ['session_id', 'monitor_id', 'has_audio'],
    ),
    message(
      'error',
      'S→C: failures; all but malformed-input and answer errors close the socket',
      { message: str('What went wrong') },
      ['message'],
    ),
    message('ping', 'C→S: keep-alive (answered with pong)'),
    message('pong', 'S→C: answer to ping'),
  ],
};

export const webrtcPaths: Record<string, { get: OpenApiOperation }> = {
  '/api/v3/live/{monitor_id}/webrtc/ws': {
    get: {
      operationId: 'webrtcSignalingStream',
      tags: ['Live Streaming'],
      summary: 'WebRTC signalling WebSocket',
      description:
        'A WebSocket (send `Connection: Upgrade`, `Upgrade: websocket`). Needs Stream View and a visible monitor, checked at the upgrade; the token comes as `?token=` (browsers cannot set headers on a WebSocket) or in the Authorization header. The server offers at once (H.264, or H.265 for H.265 cameras, passed through; PCMU/PCMA/Opus audio passed through, other audio not sent), candidates trickle both ways, `ready` says the peer is connected. Refused upgrades are plain HTTP answers with the error envelope. No /start is needed.',
      // No `security` entry, as in the reference surface (auth: null): the checks (token, Stream
      // View, row ACL) run at upgrade time, outside the OpenAPI security model; the 401/403/404
      // answers document them.
      parameters: [
        {
          in: 'path',
          name: 'monitor_id',
          required: true,
          description: 'Monitor id',
          schema: { type: 'integer', format: 'int32', minimum: 0 },
        },
        {
          in: 'query',
          name: 'token',
          required: false,
          description: 'Access token (the browser WebSocket API cannot send headers)',
          schema: { type: 'string' },
        },
      ],
      responses: {
        101: {
          description: 'Switching to the WebSocket; then JSON text frames',
          content: { 'application/json': { schema: signalingMessage } },
        },
        400: error('Not a valid WebSocket handshake, or an invalid monitor id'),
        401: error('Missing, invalid or revoked token (header or `?token=`)'),
        403: error('Stream permission required'),
        404: error(
          'Monitor not found or hidden (MONITOR_NOT_FOUND), or no stream socket (details reason "stream socket not available")',
        ),
        500: error('Internal error'),
        503: error('Live streaming is disabled (streaming.enabled = false), or too many WebRTC sessions'),
      },
    },
  },
};

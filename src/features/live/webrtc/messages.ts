// The signalling messages of /live/{id}/webrtc/ws (docs/contract/clients.md): JSON text frames with a
// lower-case `type`. The server offers; the client answers and trickles candidates; ping/pong
// keep the socket alive. Parsing is strict about the fields a known message needs and lenient
// about everything else (extra keys, unknown types), as real clients send extra keys.

export interface AnswerMessage {
  type: 'answer';
  /** Absent: accepted (one session per socket); another session's id: ignored. */
  session_id?: string;
  sdp: string;
}

export interface ClientCandidateMessage {
  type: 'icecandidate';
  session_id?: string;
  /** "" is the end-of-candidates marker (also what null/absent candidates become). */
  candidate: string;
  sdpMid: string | null;
  sdpMLineIndex: number | null;
}

export type ClientMessage = AnswerMessage | ClientCandidateMessage | { type: 'ping' };

/**
 * What a frame from the client means: a message, something to ignore, or a malformed message
 * (`answer`: a malformed answer, which the contract answers with "Invalid SDP answer: …").
 */
export type Parsed =
  | { kind: 'message'; message: ClientMessage }
  | { kind: 'ignored'; reason: string }
  | { kind: 'invalid'; error: string; answer?: true };

/** Types the contract says the server ignores when a client sends them. */
const IGNORED_TYPES = new Set(['offer', 'ready', 'error', 'pong']);
/** SDP is a few kB; anything this large is not an answer. */
export const MAX_MESSAGE_BYTES = 256 * 1024;

function optionalSessionId(o: Record<string, unknown>): string | null | undefined {
  const id = o.session_id;
  if (id === undefined) return undefined;
  return typeof id === 'string' ? id : null;
}

export function parseClientMessage(data: Buffer | string, isBinary: boolean): Parsed {
  if (isBinary) return { kind: 'invalid', error: 'Invalid message: binary frames are not part of the protocol' };
  let value: unknown;
  try {
    value = JSON.parse(typeof data === 'string' ? data : data.toString('utf8'));
  } catch {
    return { kind: 'invalid', error: 'Invalid message: not JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { kind: 'invalid', error: 'Invalid message: not a JSON object' };
  const o = value as Record<string, unknown>;
  if (typeof o.type !== 'string') return { kind: 'invalid', error: 'Invalid message: missing "type"' };
  switch (o.type) {
    case 'ping':
      return { kind: 'message', message: { type: 'ping' } };
    case 'answer': {
      const sessionId = optionalSessionId(o);
      if (sessionId === null)
        return { kind: 'invalid', error: 'Invalid SDP answer: session_id must be a string', answer: true };
      if (typeof o.sdp !== 'string' || o.sdp.trim() === '')
        return { kind: 'invalid', error: 'Invalid SDP answer: sdp must be a non-empty string', answer: true };
      return { kind: 'message', message: { type: 'answer', session_id: sessionId, sdp: o.sdp } };
    }
    case 'icecandidate':
    case 'candidate': // the spelling many WebRTC clients use; the contract's is `icecandidate`
      return parseCandidate(o);
    default:
      return { kind: 'ignored', reason: IGNORED_TYPES.has(o.type) ? `client-sent ${o.type}` : 'unknown type' };
  }
}

/**
 * A trickled candidate in either shape a browser client produces: flat
 * (`{candidate: "candidate:…", sdpMid, sdpMLineIndex}`, docs/contract/clients.md) or nested, when the
 * client sends `RTCIceCandidate.toJSON()` as `candidate`. `candidate` null/absent/"" (or a nested
 * null) is the end-of-candidates marker, which is accepted as such rather than refused: refusing
 * it would mean an `error`, and an `error` makes the client give up WebRTC.
 */
function parseCandidate(o: Record<string, unknown>): Parsed {
  const sessionId = optionalSessionId(o);
  if (sessionId === null) return { kind: 'invalid', error: 'Invalid ICE candidate: session_id must be a string' };
  let fields: Record<string, unknown> = o;
  if (o.candidate !== null && typeof o.candidate === 'object' && !Array.isArray(o.candidate)) {
    fields = o.candidate as Record<string, unknown>;
    // Outer sdpMid/sdpMLineIndex (some clients send both) fill what the object leaves out.
    fields = { ...fields, sdpMid: fields.sdpMid ?? o.sdpMid, sdpMLineIndex: fields.sdpMLineIndex ?? o.sdpMLineIndex };
  }
  const candidate = fields.candidate ?? '';
  const { sdpMid, sdpMLineIndex } = fields;
  if (typeof candidate !== 'string')
    return {
      kind: 'invalid',
      error: 'Invalid ICE candidate: candidate must be a string, an RTCIceCandidateInit object or null',
    };
  if (sdpMid !== undefined && sdpMid !== null && typeof sdpMid !== 'string')
    return { kind: 'invalid', error: 'Invalid ICE candidate: sdpMid must be a string or null' };
  if (
    sdpMLineIndex !== undefined &&
    sdpMLineIndex !== null &&
    !(Number.isInteger(sdpMLineIndex) && (sdpMLineIndex as number) >= 0)
  ) {
    return { kind: 'invalid', error: 'Invalid ICE candidate: sdpMLineIndex must be an integer >= 0 or null' };
  }
  return {
    kind: 'message',
    message: {
      type: 'icecandidate',
      session_id: sessionId,
      // Some stacks prefix the SDP attribute name; libdatachannel wants the bare value.
      candidate: candidate.trim().replace(/^a=/, ''),
      sdpMid: (sdpMid as string | null | undefined) ?? null,
      sdpMLineIndex: (sdpMLineIndex as number | null | undefined) ?? null,
    },
  };
}

// Server → client.
export type ServerMessage =
  | { type: 'offer'; session_id: string; sdp: string }
  | { type: 'icecandidate'; session_id: string; candidate: string; sdpMid: string | null; sdpMLineIndex: number | null }
  | { type: 'ready'; session_id: string; monitor_id: number; has_audio: boolean }
  | { type: 'error'; message: string }
  | { type: 'pong' };

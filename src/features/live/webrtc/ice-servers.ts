// ICE servers for the server's own PeerConnections: streaming.webrtc.stun_servers (empty by
// default: host candidates only, which is what a LAN deployment needs; the browser brings its own
// STUN for its side) and the TURN relay of streaming.webrtc.turn.*.
import type { IceServer, RelayType } from 'node-datachannel';
import type { AppConfig } from '../../../config/types.js';

/** `turn:host[:port][?transport=tcp]` / `turns:host[:port]` → node-datachannel's IceServer. */
export function parseTurnUrl(url: string): Omit<IceServer, 'username' | 'password'> {
  const m = /^(turns?):(?:\/\/)?(\[[^\]]+\]|[^:?/]+)(?::(\d+))?(?:\?transport=(udp|tcp))?$/i.exec(url.trim());
  if (!m) throw new Error(`streaming.webrtc.turn.server: not a turn: or turns: URL (${url})`);
  const secure = m[1].toLowerCase() === 'turns';
  const relayType: RelayType = secure ? 'TurnTls' : m[4]?.toLowerCase() === 'tcp' ? 'TurnTcp' : 'TurnUdp';
  const port = m[3] ? Number(m[3]) : secure ? 5349 : 3478;
  if (port < 1 || port > 65535) throw new Error(`streaming.webrtc.turn.server: bad port in ${url}`);
  return { hostname: m[2].replace(/^\[|\]$/g, ''), port, relayType };
}

export function iceServersFrom(config: Pick<AppConfig, 'streaming'>): (string | IceServer)[] {
  const { stun_servers: stun, turn } = config.streaming.webrtc;
  if (!turn.enabled) return [...stun];
  return [...stun, { ...parseTurnUrl(turn.server), username: turn.username, password: turn.password }];
}

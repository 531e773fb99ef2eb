// The media routes, listed once. They are never compressed (Range and streaming pass through),
// never counted by the global per-IP limiter (a live player makes several requests a second),
// and they alone accept the access token as a `token` query parameter, because <img>, <video>,
// native HLS and WebSocket URLs cannot carry an Authorization header.
const MEDIA = [
  /^\/api\/v3\/live\/[^/]+\/(hls\/.+|webrtc\/ws|mjpeg)$/,
  /^\/api\/v3\/events\/[^/]+\/(video|thumbnail|info|stream\/.+)$/,
  /^\/api\/v3\/events\/[^/]+\/frames\/[^/]+\/image$/,
  /^\/api\/v3\/frames\/[^/]+\/image$/,
  /^\/api\/v3\/monitors\/[^/]+\/snapshot$/,
];

export function isMediaPath(path: string): boolean {
  return MEDIA.some((re) => re.test(path));
}

// JSON reads that also take `?token=` (docs/contract/clients.md lists `/live/{id}/*`), yet stay
// compressed and counted by the limiter like any JSON route: a player page polls the session
// stats with the token it plays with.
const QUERY_TOKEN_JSON = [/^\/api\/v3\/live\/[^/]+\/stats$/];

/** `?token=` is honoured only on GET (and HEAD) of a media route, or of the few JSON reads above. */
export function acceptsQueryToken(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && (isMediaPath(path) || QUERY_TOKEN_JSON.some((re) => re.test(path)));
}

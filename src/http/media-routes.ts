// The media routes, listed once. They are never compressed (Range and streaming pass through),
// never counted by the global per-IP limiter (a live player makes several requests a second),
// and they alone accept the access token as a `token` query parameter, because <img>, <video>,
// native HLS and WebSocket URLs cannot carry an Authorization header.
const MEDIA = [
  /^\/api\/v3\/live\/[^/]+\/(hls\/.+|webrtc\/ws|mjpeg)$/,
  /^\/api\/v3\/events\/[^/]+\/(video|thumbnail|stream\/.+)$/,
  /^\/api\/v3\/events\/[^/]+\/frames\/[^/]+\/image$/,
  /^\/api\/v3\/frames\/[^/]+\/image$/,
  /^\/api\/v3\/monitors\/[^/]+\/snapshot$/,
];

export function isMediaPath(path: string): boolean {
  return MEDIA.some((re) => re.test(path));
}

/**
 * `?token=` is honoured only on GET (and HEAD) of a media route: the URLs a browser element
 * (<img>, <video>, native HLS, WebSocket) loads itself. JSON reads (event info, live stats) are
 * fetched by scripts that send the Authorization header, so they never take it.
 */
export function acceptsQueryToken(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && isMediaPath(path);
}

// Media routes: never compressed (Range and streaming must pass through untouched) and never
// counted by the global per-IP limiter (a live HLS player makes several requests a second).
const STREAMING = [
  /^\/api\/v3\/live\//,
  /^\/api\/v3\/events\/[^/]+\/(video|stream|thumbnail)(\/|$)/,
  /^\/api\/v3\/monitors\/[^/]+\/snapshot$/,
];

export function isStreamingPath(path: string): boolean {
  return STREAMING.some((re) => re.test(path));
}

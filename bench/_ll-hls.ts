// One LL-HLS viewer as hls.js plays in low-latency mode: fetch the preload-hinted part (the server
// holds the request until the part exists), then a blocking playlist reload (`_HLS_msn`,
// `_HLS_part`) for the next hint, and so on. Used by bench/live-viewers.ts and bench/soak.ts.

export interface HlsAnswer {
  status: number;
  body: Buffer;
}

/**
 * Follows one live playlist while `running()`. `get(p)` fetches `p` relative to the session's
 * `hls/` folder; `onPart` sees every part answer. A playlist without a hint (the session is still
 * starting, or the request failed) is asked again a quarter second later.
 */
export async function followLiveHls(
  get: (p: string) => Promise<HlsAnswer>,
  running: () => boolean,
  onPart: (part: HlsAnswer) => void,
): Promise<void> {
  const hintOf = (text: string) => /#EXT-X-PRELOAD-HINT:TYPE=PART,URI="(segment_(\d+)\.(\d+)\.m4s[^"]*)"/.exec(text);
  let hint = hintOf((await get('live.m3u8')).body.toString());
  while (running()) {
    if (!hint) {
      await new Promise((r) => setTimeout(r, 250));
      hint = hintOf((await get('live.m3u8')).body.toString());
      continue;
    }
    onPart(await get(hint[1]!));
    hint = hintOf((await get(`live.m3u8?_HLS_msn=${hint[2]}&_HLS_part=${Number(hint[3])}`)).body.toString());
  }
}

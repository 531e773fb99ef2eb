// Splits an H.264 Annex-B elementary stream into access units for the simulated camera. The
// shipped clip has an access-unit delimiter (NAL 9) before every frame, so an AU is everything
// from one AUD to the next; a keyframe AU holds an IDR slice (NAL 5), and the SPS/PPS before the
// first one are the HELLO extradata (Annex B, as zmc sends RTSP H.264).

export interface AccessUnit {
  data: Buffer;
  keyframe: boolean;
}

/** Start offsets (of the start code) and NAL types, in order. */
function nalUnits(es: Buffer): Array<{ at: number; body: number; type: number }> {
  const out: Array<{ at: number; body: number; type: number }> = [];
  for (let i = 0; i + 3 < es.length; i++) {
    if (es[i] !== 0 || es[i + 1] !== 0) continue;
    let body = -1;
    if (es[i + 2] === 1) body = i + 3;
    else if (es[i + 2] === 0 && es[i + 3] === 1) body = i + 4;
    if (body < 0 || body >= es.length) continue;
    out.push({ at: i, body, type: es[body]! & 0x1f });
    i = body;
  }
  return out;
}

export function splitAccessUnits(es: Buffer): { units: AccessUnit[]; extradata: Buffer } {
  const nals = nalUnits(es);
  const starts = nals.filter((n) => n.type === 9).map((n) => n.at);
  if (starts.length === 0) throw new Error('the clip has no access-unit delimiters (encode it with x264 aud=1)');
  const units: AccessUnit[] = [];
  for (let k = 0; k < starts.length; k++) {
    const from = starts[k]!;
    const to = k + 1 < starts.length ? starts[k + 1]! : es.length;
    const inside = nals.filter((n) => n.at >= from && n.at < to);
    units.push({ data: es.subarray(from, to), keyframe: inside.some((n) => n.type === 5) });
  }
  const params: Buffer[] = [];
  for (let k = 0; k < nals.length; k++) {
    const n = nals[k]!;
    if (n.type === 5) break;
    if (n.type === 7 || n.type === 8) params.push(es.subarray(n.at, k + 1 < nals.length ? nals[k + 1]!.at : es.length));
  }
  return { units, extradata: Buffer.concat(params) };
}

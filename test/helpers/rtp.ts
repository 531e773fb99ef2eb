// RTP for tests: header parsing and an H.264 depacketiser (RFC 6184: single NAL, STAP-A, FU-A)
// that rebuilds Annex B access units, so received video can be checked by ffmpeg.

export interface RtpPacket {
  payloadType: number;
  marker: boolean;
  sequence: number;
  timestamp: number;
  ssrc: number;
  payload: Buffer;
}

/** null for RTCP and anything that is not RTP version 2. */
export function parseRtp(b: Buffer): RtpPacket | null {
  if (b.length < 12 || b[0] >> 6 !== 2) return null;
  const pt = b[1] & 0x7f;
  if (pt >= 72 && pt <= 79) return null; // RTCP (SR/RR/SDES/… share the first bytes)
  const cc = b[0] & 0x0f;
  let offset = 12 + cc * 4;
  if (b[0] & 0x10) offset += 4 + b.readUInt16BE(offset + 2) * 4; // header extension
  let end = b.length;
  if (b[0] & 0x20) end -= b[b.length - 1]; // padding
  return {
    payloadType: pt,
    marker: (b[1] & 0x80) !== 0,
    sequence: b.readUInt16BE(2),
    timestamp: b.readUInt32BE(4),
    ssrc: b.readUInt32BE(8),
    payload: b.subarray(offset, end),
  };
}

const START = Buffer.from([0, 0, 0, 1]);

/** Collects H.264 RTP packets into Annex B access units (one per RTP timestamp / marker). */
export class H264Depacketizer {
  readonly units: Array<{ timestamp: number; data: Buffer; keyframe: boolean }> = [];
  #nals: Buffer[] = [];
  #fu: Buffer[] | null = null;
  #timestamp: number | null = null;

  push(p: RtpPacket): void {
    if (this.#timestamp !== null && p.timestamp !== this.#timestamp) this.#flush();
    this.#timestamp = p.timestamp;
    const type = p.payload[0] & 0x1f;
    if (type >= 1 && type <= 23) this.#nals.push(p.payload);
    else if (type === 24) {
      for (let off = 1; off + 2 <= p.payload.length;) {
        const size = p.payload.readUInt16BE(off);
        this.#nals.push(p.payload.subarray(off + 2, off + 2 + size));
        off += 2 + size;
      }
    } else if (type === 28) {
      const header = p.payload[1];
      if (header & 0x80) this.#fu = [Buffer.from([(p.payload[0] & 0xe0) | (header & 0x1f)])];
      this.#fu?.push(p.payload.subarray(2));
      if (header & 0x40 && this.#fu) {
        this.#nals.push(Buffer.concat(this.#fu));
        this.#fu = null;
      }
    }
    if (p.marker) this.#flush();
  }

  #flush(): void {
    if (this.#nals.length && this.#timestamp !== null) {
      const keyframe = this.#nals.some((n) => (n[0] & 0x1f) === 5);
      this.units.push({
        timestamp: this.#timestamp,
        data: Buffer.concat(this.#nals.flatMap((n) => [START, n])),
        keyframe,
      });
    }
    this.#nals = [];
  }
}

/** H.265 (RFC 7798): single NAL units, aggregation packets (48) and fragmentation units (49). */
export class H265Depacketizer {
  readonly units: Array<{ timestamp: number; data: Buffer; keyframe: boolean }> = [];
  #nals: Buffer[] = [];
  #fu: Buffer[] | null = null;
  #timestamp: number | null = null;

  push(p: RtpPacket): void {
    if (this.#timestamp !== null && p.timestamp !== this.#timestamp) this.#flush();
    this.#timestamp = p.timestamp;
    const type = (p.payload[0] >> 1) & 0x3f;
    if (type === 48) {
      for (let off = 2; off + 2 <= p.payload.length;) {
        const size = p.payload.readUInt16BE(off);
        this.#nals.push(p.payload.subarray(off + 2, off + 2 + size));
        off += 2 + size;
      }
    } else if (type === 49) {
      const fu = p.payload[2];
      if (fu & 0x80) this.#fu = [Buffer.from([(p.payload[0] & 0x81) | ((fu & 0x3f) << 1), p.payload[1]])];
      this.#fu?.push(p.payload.subarray(3));
      if (fu & 0x40 && this.#fu) {
        this.#nals.push(Buffer.concat(this.#fu));
        this.#fu = null;
      }
    } else this.#nals.push(p.payload);
    if (p.marker) this.#flush();
  }

  #flush(): void {
    if (this.#nals.length && this.#timestamp !== null) {
      const keyframe = this.#nals.some((n) => {
        const t = (n[0] >> 1) & 0x3f;
        return t >= 16 && t <= 21;
      });
      this.units.push({
        timestamp: this.#timestamp,
        data: Buffer.concat(this.#nals.flatMap((n) => [START, n])),
        keyframe,
      });
    }
    this.#nals = [];
  }
}

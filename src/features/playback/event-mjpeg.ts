// `/events/{id}/stream/mjpeg`: an event recorded as JPEGs only (no video) played as a paced MJPEG
// stream at its recorded timing (Frames.Delta, interpolated between rows), at `?speed=`
// 0.25–16. The capture JPEGs are used, else the analysis JPEGs. Frames are read one at a time
// as they are sent, as zmc stored them: zmc turned them per the Orientation already
// (docs/zoneminder/orientation.md).
import { readFile } from 'node:fs/promises';
import type { AuthUser } from '../../auth/auth-service.js';
import type { PrismaClient } from '../../db/prisma.js';
import { InvalidInputError } from '../../errors.js';
import type { PacedFrame, PacingOptions } from '../../media/mjpeg.js';
import { fileNotFound, type EventMediaLocator } from './event-media.js';
import { averageInterval, frameTimes } from '../../zm/event-timeline.js';

export const MIN_SPEED = 0.25;
export const MAX_SPEED = 16;
/** A pause in the recording longer than this (after speed) is shortened to it. */
export const MAX_GAP_MS = 2000;

export function parseSpeed(text: string | undefined): number {
  if (text === undefined || text === '') return 1;
  const speed = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(speed >= MIN_SPEED && speed <= MAX_SPEED)) {
    throw new InvalidInputError('Invalid input', [['speed', `must be a number from ${MIN_SPEED} to ${MAX_SPEED}`]]);
  }
  return speed;
}

export class EventMjpeg {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly media: EventMediaLocator,
  ) {}

  async plan(
    user: AuthUser,
    id: bigint,
    speedText: string | undefined,
  ): Promise<{ frames: PacedFrame[]; options: PacingOptions }> {
    const speed = parseSpeed(speedText);
    const event = await this.media.event(user, id);
    let kind: 'capture' | 'analyse' = 'capture';
    let numbers = await this.media.frameNumbers(event, kind);
    if (!numbers.length) {
      kind = 'analyse';
      numbers = await this.media.frameNumbers(event, kind);
    }
    if (!numbers.length) throw fileNotFound(id, 'No JPEG frames stored for this event');
    const rows = (
      await this.prisma.frames.findMany({
        where: { EventId: event.id },
        select: { FrameId: true, Delta: true },
        orderBy: { FrameId: 'asc' },
      })
    ).map((r) => ({ frameId: r.FrameId, delta: Number(r.Delta) }));
    const times = frameTimes(numbers, rows, averageInterval(rows, event.lengthSeconds, event.frames));
    const frames = numbers.map((n, i) => ({
      frame: n,
      time: times[i],
      load: async () => {
        const file = await this.media.frameFile(event, n, kind);
        if (!file) return null;
        return readFile(file);
      },
    }));
    return {
      frames,
      options: { speed, maxGapMs: MAX_GAP_MS, fields: { event_id: String(event.id), stream: 'event' } },
    };
  }
}

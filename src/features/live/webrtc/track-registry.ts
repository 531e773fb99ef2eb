// Works around a node-datachannel 0.33.4 lifetime bug. Every Track wrapper registers itself in a
// native set that cleanup() walks, but only leaves it when its onClosed callback has run; a
// wrapper collected before that stays in the set as a dangling pointer, and cleanup() then
// crashes (double free / SIGSEGV), and its pending callback keeps the event loop alive.
// So every Track gets an onClosed callback and a strong reference until that callback has run.
import type { Track } from 'node-datachannel';

const held = new Set<Track>();

/** Holds `track` until libdatachannel reports it closed (close() it, or close its PeerConnection). */
export function holdTrack(track: Track): Track {
  held.add(track);
  // Released on a later turn: the native side finishes its bookkeeping after this callback returns.
  track.onClosed(() => setImmediate(() => held.delete(track)));
  return track;
}

export function heldTracks(): number {
  return held.size;
}

/** Waits (bounded) until every closed track has been released, before cleanup(). */
export async function settleTracks(maxMs = 1000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (held.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

// HLS VOD segments under a byte budget. Players fetch the same segments again (seeking back,
// several viewers of one event), and a segment costs a pread of its samples plus a mux; the budget
// bounds what that may hold.
import { ByteCache, type ByteCacheStats } from './byte-cache.js';

export type SegmentCacheStats = ByteCacheStats;

export class SegmentCache extends ByteCache {
  constructor(budgetBytes: number) {
    // A segment larger than a quarter of the budget would flush everything else: served, not kept.
    super(budgetBytes, Math.floor(budgetBytes / 4));
  }
}

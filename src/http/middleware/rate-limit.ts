// A per-client token bucket: one token every `rate_limit_period_secs`, at most `burst_size`
// stored. Keyed on req.ip, which honours proxy headers only when trust_proxy_headers is set.
import type { RequestHandler } from 'express';
import type { LimiterConfig } from '../../config/types.js';
import { TooManyRequestsError } from '../../errors.js';

interface Bucket {
  tokens: number;
  updated: number;
}

/** Buckets idle this long are full again, so they can be forgotten. */
const SWEEP_EVERY_MS = 60_000;

export interface Limiter {
  readonly enabled: boolean;
  /** Takes a token from `key`'s bucket: 0 when there was one, else the seconds to wait (Retry-After). */
  take(key: string): number;
}

export function bucketLimiter(limits: LimiterConfig, now: () => number = Date.now): Limiter {
  const periodMs = limits.rate_limit_period_secs * 1000;
  const buckets = new Map<string, Bucket>();
  let lastSweep = now();
  return {
    enabled: limits.enabled,
    take(key) {
      const t = now();
      if (t - lastSweep > SWEEP_EVERY_MS) {
        const fullAfter = periodMs * limits.burst_size;
        for (const [k, b] of buckets) if (t - b.updated > fullAfter) buckets.delete(k);
        lastSweep = t;
      }
      const bucket = buckets.get(key) ?? { tokens: limits.burst_size, updated: t };
      bucket.tokens = Math.min(limits.burst_size, bucket.tokens + (t - bucket.updated) / periodMs);
      bucket.updated = t;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil(((1 - bucket.tokens) * periodMs) / 1000));
    },
  };
}

/** The limiter as middleware: 429 with Retry-After when the caller's bucket is empty. */
export function tokenBucket(
  limits: LimiterConfig | Limiter,
  skip: (path: string) => boolean = () => false,
  now: () => number = Date.now,
): RequestHandler {
  const limiter = 'take' in limits ? limits : bucketLimiter(limits, now);
  return (req, res, next) => {
    if (!limiter.enabled || skip(req.path)) return next();
    const retryAfter = limiter.take(req.ip ?? 'unknown');
    if (retryAfter === 0) return next();
    res.setHeader('Retry-After', String(retryAfter));
    next(new TooManyRequestsError());
  };
}

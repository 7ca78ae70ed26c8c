/**
 * Token buckets: each key may spend `capacity` at once and earns it back
 * evenly over `windowMs`. Memory is bounded: when `maxKeys` is reached the
 * oldest buckets are forgotten (a forgotten key simply starts full again).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();
  private readonly refillPerMs: number;

  constructor(
    private readonly capacity: number,
    windowMs: number,
    private readonly maxKeys = 100_000,
  ) {
    this.refillPerMs = capacity / windowMs;
  }

  /** Spends one token for `key`; false when the key is over its limit. */
  take(key: string, now = Date.now()): boolean {
    const bucket = this.buckets.get(key);
    const tokens = bucket
      ? Math.min(this.capacity, bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs)
      : this.capacity;
    if (tokens < 1) return false;
    if (bucket) this.buckets.delete(key); // re-insert so Map order stays least-recently-used first
    else if (this.buckets.size >= this.maxKeys) this.forgetOldest();
    this.buckets.set(key, { tokens: tokens - 1, updatedAt: now });
    return true;
  }

  private forgetOldest(): void {
    const oldest = this.buckets.keys().next();
    if (!oldest.done) this.buckets.delete(oldest.value);
  }
}

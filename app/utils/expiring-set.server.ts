/** A bounded set whose members expire; the oldest members go first when it is full. */
export class ExpiringSet {
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxSize: number,
  ) {}

  has(member: string, now = Date.now()): boolean {
    const expiresAt = this.expiries.get(member);
    if (expiresAt === undefined) return false;
    if (expiresAt > now) return true;
    this.expiries.delete(member);
    return false;
  }

  add(member: string, now = Date.now()): void {
    this.expiries.delete(member);
    this.expiries.set(member, now + this.ttlMs);
    this.prune(now);
  }

  /** Members are kept in insertion order, so expired ones sit at the front. */
  private prune(now: number): void {
    for (const [member, expiresAt] of this.expiries) {
      if (expiresAt > now && this.expiries.size <= this.maxSize) break;
      this.expiries.delete(member);
    }
  }
}

/** Enough relays that one slow or quick webhook answer does not set the pace. */
const RECENT_RELAYS = 9;

/**
 * How long a new address's relay takes, so that an address already listed is answered after as long: the clock, like
 * the words, tells nobody who is on the list, whatever the relay mode (the webhook, the queue or the file).
 */
export class RelayPace {
  private readonly recent: number[] = [];

  record(durationMs: number): void {
    this.recent.push(durationMs);
    if (this.recent.length > RECENT_RELAYS) this.recent.shift();
  }

  /** Until a typical relay begun at `startedAt` would have answered (the median of the recent ones), or `deadline`. */
  async waitFrom(startedAt: number, deadline: number): Promise<void> {
    const sorted = [...this.recent].sort((a, b) => a - b);
    const typical = sorted[Math.floor(sorted.length / 2)] ?? 0;
    const remaining = Math.min(startedAt + typical, deadline) - Date.now();
    if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
  }
}

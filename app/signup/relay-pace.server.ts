import type { RelayTimes } from "~/state/shared-state.server";

/** Enough relays that one slow or quick webhook answer does not set the pace. */
const RECENT_RELAYS = 9;

/**
 * How long a new address's relay takes, so that an address already listed is answered after as long: the clock, like
 * the words, tells nobody who is on the list, whatever the relay mode (the webhook, the queue or the file). The
 * durations are shared state: an instance that has relayed nothing yet (just started, or just added) keeps the pace
 * the others set instead of answering a listed address at once.
 */
export class RelayPace {
  constructor(private readonly times: RelayTimes) {}

  /** A store that does not answer costs the pace one sample, never the sign-up. */
  async record(durationMs: number): Promise<void> {
    await this.times.record(durationMs, RECENT_RELAYS).catch(() => {});
  }

  /** Until a typical relay begun at `startedAt` would have answered (the median of the recent ones), or `deadline`. */
  async waitFrom(startedAt: number, deadline: number): Promise<void> {
    const sorted = (await this.times.recent().catch(() => [])).sort((a, b) => a - b);
    const typical = sorted[Math.floor(sorted.length / 2)] ?? 0;
    const remaining = Math.min(startedAt + typical, deadline) - Date.now();
    if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
  }
}

import { afterAll, beforeAll, beforeEach } from "vitest";

/**
 * One running `T` for the tests of the enclosing describe (or file): started before them, put back by `reset` before
 * each, stopped after. Call the returned function for it.
 */
export function sharedByTests<T extends { stop: () => Promise<unknown> }>(
  start: () => Promise<T>,
  reset: (running: T) => unknown = () => {},
): () => T {
  let running: T | undefined;
  beforeAll(async () => {
    running = await start();
  });
  beforeEach(async () => {
    await reset(running!);
  });
  afterAll(async () => {
    await running?.stop();
  });
  return () => running!;
}

import { SHARED_RENDER_MS } from "~/page/shared-render.server";

type FreshRenderFigures = { fresh: number[]; cached: number[] };

/**
 * Time to the first byte of `/`, sorted: `fresh` just after the shared render
 * expired (render, CSP hashes and compression on this request), `cached` right
 * after it (the same render, served from memory). Loaders run on both.
 */
export async function freshAndCachedFirstByte(
  origin: string,
  acceptEncoding: string,
  rounds = 20,
): Promise<FreshRenderFigures> {
  const fresh: number[] = [];
  const cached: number[] = [];
  for (let round = 0; round < rounds; round++) {
    await new Promise((resolve) => setTimeout(resolve, SHARED_RENDER_MS + 20));
    // After a second idle the process and the connection are cold whatever is rendered: woken
    // by a probe first, so the two figures differ by the render alone.
    await (await fetch(`${origin}/healthz`)).arrayBuffer();
    fresh.push(await firstByte(origin, acceptEncoding));
    cached.push(await firstByte(origin, acceptEncoding));
  }
  const ascending = (a: number, b: number) => a - b;
  return { fresh: fresh.sort(ascending), cached: cached.sort(ascending) };
}

async function firstByte(origin: string, acceptEncoding: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${origin}/`, { headers: { "accept-encoding": acceptEncoding } });
  const elapsed = performance.now() - started; // fetch settles on the status line and headers
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`GET / answered ${response.status}`);
  return elapsed;
}

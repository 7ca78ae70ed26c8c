import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";

type LevelFigure = { codec: "brotli" | "gzip"; level: number; medianMs: number; maxMs: number; bytes: number };

const BROTLI_QUALITIES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const GZIP_LEVELS = [1, 2, 3, 4, 5, 6, 7, 8, 9];

/** Each level's median and slowest time over `rounds` compressions of `html`, as the page cache compresses it. */
export function compressionLevels(html: Uint8Array, rounds = 15): LevelFigure[] {
  const brotli = (quality: number) => () =>
    brotliCompressSync(html, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: quality, [zlib.BROTLI_PARAM_SIZE_HINT]: html.byteLength },
    });
  const gzip = (level: number) => () => gzipSync(html, { level });
  return [
    ...BROTLI_QUALITIES.map((level) => timed("brotli", level, brotli(level), rounds)),
    ...GZIP_LEVELS.map((level) => timed("gzip", level, gzip(level), rounds)),
  ];
}

function timed(codec: LevelFigure["codec"], level: number, compress: () => Uint8Array, rounds: number): LevelFigure {
  const bytes = compress().byteLength; // also the warm-up
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    compress();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { codec, level, medianMs: times[Math.floor(times.length / 2)]!, maxMs: times[times.length - 1]!, bytes };
}

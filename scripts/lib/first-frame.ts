import { chromium } from "@playwright/test";
import { chromiumFlags, chromiumPath } from "../../tests/harness/chromium";
import { CPU_SLOWDOWN } from "./first-tap";

export type FirstFrame = {
  firstContentfulPaint: number;
  /** The longest main-thread task up to the first contentful paint: what Lighthouse's TBT weighs. */
  longestTask: number;
  /** Main-thread time up to the first contentful paint, by what it did. */
  style: number;
  layout: number;
  paint: number;
};

const CATEGORIES = "devtools.timeline,disabled-by-default-devtools.timeline,loading,blink.user_timing";

type TraceEvent = {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  args?: { beginData?: { url?: string } };
};

/**
 * One visitor on a phone (390×844, CPU slowed 4× through CDP, network not slowed) opening `/` in a fresh
 * context: the renderer's main-thread work from the navigation to the first contentful paint, read from a
 * Chromium trace. No script is fetched on that path (decision 018) and the inline boot only registers its
 * listeners, so this is the document's own parse, style, layout and paint.
 */
export async function firstFrame(origin: string): Promise<FirstFrame> {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumFlags });
  try {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const page = await context.newPage();
    await (await context.newCDPSession(page)).send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });
    // Traced from the browser, which sees every renderer: the page may arrive in another process than its blank tab.
    const cdp = await browser.newBrowserCDPSession();
    const events: TraceEvent[] = [];
    cdp.on("Tracing.dataCollected", ({ value }) => events.push(...(value as unknown as TraceEvent[])));
    await cdp.send("Tracing.start", { categories: CATEGORIES, transferMode: "ReportEvents" });
    await page.goto(`${origin}/`);
    const firstContentfulPaint = await page.evaluate(
      () =>
        new Promise<number>((resolve) =>
          new PerformanceObserver((list) => {
            const contentful = list.getEntriesByName("first-contentful-paint")[0];
            if (contentful) resolve(contentful.startTime);
          }).observe({ type: "paint", buffered: true }),
        ),
    );
    const complete = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
    await cdp.send("Tracing.end");
    await complete;

    const parse = events.find((event) => event.name === "ParseHTML" && event.args?.beginData?.url?.startsWith(origin));
    const paintMark = events.find((event) => event.name === "firstContentfulPaint" && event.pid === parse?.pid);
    // The navigation's start, as its renderer records it: what a spare renderer ran before it is not the page's.
    const navigationStarts = events
      .filter((event) => event.name === "navigationStart" && event.pid === parse?.pid && event.ts <= parse.ts)
      .map((event) => event.ts);
    if (!parse || !paintMark || !navigationStarts.length) {
      throw new Error("the trace holds no navigation, parse or first paint");
    }
    const navigationStart = Math.max(...navigationStarts);
    const mainThread = events.filter(
      (event) =>
        event.pid === parse.pid &&
        event.tid === parse.tid &&
        event.ph === "X" &&
        event.ts >= navigationStart &&
        event.ts <= paintMark.ts,
    );
    const tasks = mainThread.filter((event) => event.name === "RunTask").map((event) => event.dur! / 1000);
    if (!tasks.length) throw new Error("the trace holds no main-thread task before the first paint");
    const milliseconds = (name: string) =>
      mainThread.filter((event) => event.name === name).reduce((sum, event) => sum + (event.dur ?? 0), 0) / 1000;
    return {
      firstContentfulPaint,
      longestTask: Math.max(...tasks),
      style: milliseconds("UpdateLayoutTree"),
      layout: milliseconds("Layout"),
      paint: milliseconds("Paint"),
    };
  } finally {
    await browser.close();
  }
}

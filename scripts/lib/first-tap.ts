import { chromium, type Page } from "@playwright/test";
import { chromiumFlags, chromiumPath } from "../../tests/harness/chromium";
import { fakeHcaptcha } from "../../tests/harness/fake-hcaptcha-api";

export type FirstTap = {
  /** From the tap to the paint after it: the latest paint after one of its events (touch, pointer, mouse, click). */
  tapToPaint: number;
  /** The slowest keystroke to its paint while the visitor types on straight after the tap. */
  worstKeyToPaint: number;
  /** From the tap to the enhanced form on screen (the captcha widget): the field is then fully ready. */
  tapToReady: number;
};

/** What a phone of the kind Lighthouse's mobile preset models does to the CPU. */
export const CPU_SLOWDOWN = 4;
const KEYSTROKES = "ana.souza@exemplo.com.br";
const KEYSTROKE_INTERVAL_MS = 60;

/**
 * Records, from the page's first script on, every Event Timing entry of 16 ms
 * or more (the finest threshold the API allows), the first input whatever its
 * length, and when the enhanced form's captcha widget first appears.
 */
const RECORDER = `(() => {
  window.__tap = { events: [], readyAt: null };
  const record = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      window.__tap.events.push({ type: entry.entryType, name: entry.name, start: entry.startTime, end: entry.startTime + entry.duration });
  });
  for (const type of ["event", "first-input"]) record.observe({ type, durationThreshold: 16, buffered: true });
  new MutationObserver(() => {
    if (window.__tap.readyAt === null && document.querySelector('[data-testid="fake-hcaptcha"]'))
      window.__tap.readyAt = performance.now();
  }).observe(document, { childList: true, subtree: true });
})();`;

type Recorded = {
  events: Array<{ type: string; name: string; start: number; end: number }>;
  readyAt: number | null;
  tappedAt: number;
};

/**
 * One visitor on a phone (390×844, touch, CPU slowed 4× through CDP): the page
 * loads and settles, then the visitor taps the e-mail field and types at once.
 * Whatever the boot does on that tap (load the enhancements, or the scripts
 * and hydration) runs while they type; this reads what they wait for.
 */
export async function firstTap(origin: string): Promise<FirstTap> {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumFlags });
  try {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
      locale: "pt-BR",
    });
    const page = await context.newPage();
    await fakeHcaptcha(page);
    await page.addInitScript(RECORDER);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });
    await page.goto(`${origin}/`, { waitUntil: "networkidle" });

    // The tap's own time on the page's clock (the event's, as Event Timing's entries). The tap scrolls the
    // field into view first, so the boot's "near the form" and "focused" triggers fire together.
    await page.evaluate(() => {
      // Inline: a named function here would be wrapped in tsx's __name helper, unknown to the page.
      addEventListener(
        "pointerdown",
        (event) => ((window as unknown as { __tappedAt: number }).__tappedAt = event.timeStamp),
        { once: true, capture: true },
      );
    });
    await page.getByLabel("Seu e-mail").tap();
    await page.keyboard.type(KEYSTROKES, { delay: KEYSTROKE_INTERVAL_MS });
    await page.getByTestId("fake-hcaptcha").waitFor();
    return measured(await recorded(page));
  } finally {
    await browser.close();
  }
}

async function recorded(page: Page): Promise<Recorded> {
  return page.evaluate(() => {
    const global = window as unknown as { __tap: Omit<Recorded, "tappedAt">; __tappedAt: number };
    return { ...global.__tap, tappedAt: global.__tappedAt };
  });
}

function measured({ events, readyAt, tappedAt }: Recorded): FirstTap {
  const tap = events.filter((event) => event.start >= tappedAt && /^(pointer|touch|click|mouse)/.test(event.name));
  const keys = events.filter((event) => event.start >= tappedAt && /^key/.test(event.name));
  const longest = (list: Recorded["events"]) => Math.max(0, ...list.map((event) => event.end - event.start));
  if (readyAt === null) throw new Error("the enhanced form never appeared");
  return {
    tapToPaint: tap.length > 0 ? Math.max(...tap.map((event) => event.end)) - tappedAt : 0,
    worstKeyToPaint: longest(keys),
    tapToReady: readyAt - tappedAt,
  };
}

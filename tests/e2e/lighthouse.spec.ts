import { runLighthouse, scores } from "../../scripts/lib/lighthouse-run";
import { APP_ORIGIN } from "../support/ports";
import { expect, test } from "./fixtures";

// Performance depends on the machine and is reported by `npm run lighthouse`; these three are deterministic.
test("Lighthouse scores accessibility, best practices and SEO 100 on the built site", async () => {
  test.setTimeout(120_000);
  const result = await runLighthouse(`${APP_ORIGIN}/`);
  const { accessibility, "best-practices": bestPractices, seo } = scores(result);
  const failing = Object.values(result.lhr.audits)
    .filter((audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode === "binary")
    .map((audit) => audit.id);
  expect({ accessibility, bestPractices, seo }, `failing audits: ${failing.join(", ")}`).toEqual({
    accessibility: 100,
    bestPractices: 100,
    seo: 100,
  });
});

import { describe, expect, it } from "vitest";
import { postSignup } from "../harness/signup-client";
import { builtServerSuite, expectBalancerPage, filledForm } from "./suite";

/**
 * Limits against the built server: the shipped nginx sheds one address's flood before it reaches the apps. The
 * per-address rate, siteverify's calls in flight and turns, junk, the one relay a day and the question across a
 * restart are the pipeline's rules: unit/pipeline.
 */

const { standIn, start, startBalancer } = builtServerSuite((standIn) => ({
  ...standIn.captchaSettings,
  TRUST_PROXY: "1",
}));

describe("the shipped nginx configuration sheds floods", () => {
  it("one address far over the limit gets its 429 page while another address signs up; with no instance answering, its 502 page", async () => {
    const instances = [await start(), await start()];
    const balancer = await startBalancer(instances.map((app) => app.origin));
    standIn.siteverify = { success: true, genuinePrefix: "P1_" };
    const flood = await Promise.all(
      Array.from({ length: 600 }, (_, index) =>
        postSignup(balancer.origin, filledForm(`bot${index}@exemplo.com`, `forged-${index}`), { from: "127.0.0.2" }),
      ),
    );
    const [shed, ...moreShed] = flood.filter((response) => response.status === 429);
    // 60 at once (the burst) and 10 a second reach the apps; the rest never do.
    expect(moreShed.length).toBeGreaterThan(400);
    expect(standIn.received.siteverify.length).toBeLessThan(200);
    await Promise.all(flood.filter((response) => response !== shed).map((response) => response.body?.cancel()));
    await expectBalancerPage(shed!, 429, "Muitas tentativas");

    const person = await postSignup(balancer.origin, filledForm("pessoa@exemplo.com.br"), {
      data: true,
      from: "127.0.0.3",
    });
    expect(person.status).toBe(200);
    expect(standIn.relayedEmails()).toEqual(["pessoa@exemplo.com.br"]);
    await Promise.all(instances.map((app) => app.stop()));
    await expectBalancerPage(fetch(`${balancer.origin}/`), 502, "Serviço indisponível no momento");
  });
});

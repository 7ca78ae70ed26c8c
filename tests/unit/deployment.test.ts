import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEPLOY_NGINX_CONF } from "../harness/real-servers";

/** compose.yaml as ops run it: the cluster suite drives its nginx configuration; this checks the wiring. */
type Compose = {
  services: Record<
    string,
    { build?: string; image?: string; environment?: Record<string, string>; stop_grace_period?: string }
  >;
};
const compose = parse(readFileSync(new URL("../../compose.yaml", import.meta.url), "utf8")) as Compose;
const apps = Object.entries(compose.services).filter(([, service]) => service.build === ".");

describe("compose.yaml", () => {
  it("runs two instances of the image, on one Redis, behind a trusted proxy, with one required secret", () => {
    expect(apps.map(([name]) => name)).toEqual(["app1", "app2"]);
    for (const [, service] of apps) {
      expect(service.environment).toMatchObject({ REDIS_URL: "redis://redis:6379", TRUST_PROXY: "1" });
      expect(service.environment?.SIGNUP_SECRET).toMatch(/^\$\{SIGNUP_SECRET:\?/);
      // docker stop's 10 s: what the drain is sized for.
      expect(service.stop_grace_period).toBe("10s");
    }
    expect(compose.services.redis?.image).toMatch(/^redis:7/);
  });

  it("nginx balances exactly the app instances on the port the image listens on", () => {
    const upstreams = [...readFileSync(DEPLOY_NGINX_CONF, "utf8").matchAll(/^\s*server (\S+):3000 /gm)].map(
      (match) => match[1],
    );
    expect(upstreams).toEqual(apps.map(([name]) => name));
    expect(compose.services.lb?.image).toMatch(/^nginx:/);
  });
});

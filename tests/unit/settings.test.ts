import { describe, expect, it } from "vitest";
import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APP_ROOT } from "~/server/app-files.server";
import { DRAIN_LIMIT_MS, SIGNUP_TIME_BUDGET_MS } from "~/server/graceful-stop.server";
import {
  FETCH_BLOCKED_PORTS,
  makeSignupsFolder,
  parseSettings,
  startupWarnings,
  withSigningSecret,
} from "~/server/settings.server";
import { SITEVERIFY_TIMEOUT_MS } from "~/signup/captcha.server";
import { WEBHOOK_TIMEOUT_MS } from "~/delivery/webhook.server";
import { REDIS_TIMEOUT_MS } from "~/state/redis-state.server";

describe("settings", () => {
  it("reads relative paths from the app's folder, not the working directory", () => {
    expect(parseSettings({ SIGNUPS_FILE: "var/lista.jsonl" }).SIGNUPS_FILE).toBe(join(APP_ROOT, "var/lista.jsonl"));
    expect(parseSettings({ SIGNUPS_FILE: "/srv/dados/lista.jsonl" }).SIGNUPS_FILE).toBe("/srv/dados/lista.jsonl");
  });

  it("without SIGNUP_SECRET makes one secret on first start, keeps it beside the sign-ups for the server's user only, and reuses it", async () => {
    const folder = await mkdtemp(join(tmpdir(), "kept-secret-"));
    const settings = parseSettings({ SIGNUPS_FILE: join(folder, "signups.jsonl") });
    const first = withSigningSecret(settings).SIGNUP_SECRET;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(withSigningSecret(settings).SIGNUP_SECRET).toBe(first);
    expect((await readFile(join(folder, "signup-secret"), "utf8")).trim()).toBe(first);
    expect((await stat(join(folder, "signup-secret"))).mode & 0o777).toBe(0o600);
    const given = parseSettings({ SIGNUP_SECRET: "s".repeat(40), SIGNUPS_FILE: join(folder, "x") });
    expect(withSigningSecret(given).SIGNUP_SECRET).toBe("s".repeat(40));
  });

  it("stops start-up with one line when the generated secret cannot be kept", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "kept-secret-")), "a-file");
    await writeFile(file, "");
    const blocked = parseSettings({ SIGNUPS_FILE: join(file, "signups.jsonl") });
    expect(() => withSigningSecret(blocked)).toThrowError(
      `Invalid configuration: SIGNUP_SECRET is not set and ${join(file, "signup-secret")} cannot keep a generated one: `,
    );
  });

  it("makes the sign-ups' folder at start-up when the sink or the kept secret will use it, and only then", async () => {
    const folder = await mkdtemp(join(tmpdir(), "signups-folder-"));
    await makeSignupsFolder(parseSettings({ SIGNUPS_FILE: join(folder, "novo", "signups.jsonl") }));
    expect((await stat(join(folder, "novo"))).isDirectory()).toBe(true);
    const unused = { WEBHOOK_URL: "https://n8n.exemplo.com/webhook/x", SIGNUP_SECRET: "s".repeat(32) };
    await makeSignupsFolder(parseSettings({ ...unused, SIGNUPS_FILE: join(folder, "outro", "signups.jsonl") }));
    await expect(stat(join(folder, "outro"))).rejects.toThrowError(/ENOENT/);
  });

  it("stops start-up when the sign-ups' folder is not made in time (a hung mount, a link into /proc)", async () => {
    // Node's mkdir under /proc spins and never settles: one that never settles stands in for it.
    const never = () => new Promise<undefined>(() => {});
    const file = join(tmpdir(), "montagem-parada", "signups.jsonl");
    await expect(
      makeSignupsFolder(parseSettings({ SIGNUPS_FILE: file }), { timeoutMs: 50, makeFolder: never }),
    ).rejects.toThrowError(
      `Invalid configuration: SIGNUPS_FILE's folder ${join(tmpdir(), "montagem-parada")} could not be made within 0.05 s`,
    );
  });

  it("takes the secret being replaced as SIGNUP_SECRET_PREVIOUS, never the current one again", () => {
    expect(() => parseSettings({ SIGNUP_SECRET: "s".repeat(32), SIGNUP_SECRET_PREVIOUS: "s".repeat(32) })).toThrowError(
      "Invalid configuration: SIGNUP_SECRET_PREVIOUS is the same as SIGNUP_SECRET: set it to the secret being replaced, or leave it unset",
    );
    const rotating = parseSettings({ SIGNUP_SECRET: "n".repeat(32), SIGNUP_SECRET_PREVIOUS: "o".repeat(32) });
    expect(startupWarnings(rotating)).toContain(
      "SIGNUP_SECRET_PREVIOUS is set: forms signed with it are still accepted; remove it two hours after every instance signs with SIGNUP_SECRET",
    );
  });

  it("queues sign-ups only with Redis to hold them and a webhook to deliver to", () => {
    const needs =
      "Invalid configuration: RELAY_MODE queued needs REDIS_URL (the queue lives in Redis) and WEBHOOK_URL (where it delivers)";
    const redis = { REDIS_URL: "redis://127.0.0.1:6379", SIGNUP_SECRET: "s".repeat(32) };
    expect(() =>
      parseSettings({ RELAY_MODE: "queued", WEBHOOK_URL: "https://n8n.exemplo.com/webhook/x" }),
    ).toThrowError(needs);
    expect(() => parseSettings({ RELAY_MODE: "queued", ...redis })).toThrowError(needs);
    const queued = parseSettings({ RELAY_MODE: "queued", WEBHOOK_URL: "https://n8n.exemplo.com/webhook/x", ...redis });
    expect(queued).toMatchObject({ RELAY_MODE: "queued", RELAY_RETRY_HOURS: 72, RELAY_ATTEMPT_SECONDS: 30 });
    expect(parseSettings({}).RELAY_MODE).toBe("direct");
  });

  it("reads PUBLIC_URL as the page's origin: scheme, host and port, no trailing slash", () => {
    expect(parseSettings({ PUBLIC_URL: "https://prevly.com.br/" }).PUBLIC_URL).toBe("https://prevly.com.br");
    expect(parseSettings({ PUBLIC_URL: "HTTPS://Prevly.COM.br:8443" }).PUBLIC_URL).toBe("https://prevly.com.br:8443");
    expect(parseSettings({ PUBLIC_URL: "https://previdência.com.br" }).PUBLIC_URL).toBe(
      "https://xn--previdncia-r7a.com.br",
    );
    expect(parseSettings({ PUBLIC_URL: "http://127.0.0.1:3000" }).PUBLIC_URL).toBe("http://127.0.0.1:3000");
  });

  it.each([
    ["WEBHOOK_URL", "ftp://automacao.exemplo.com/hook", "WEBHOOK_URL must be an http(s) URL"],
    ["PORT", "70000", "PORT must be a whole number from 1 to 65535"],
    ["PORT", "1.5", "PORT must be a whole number"],
    ["PORT", "0x1f", "PORT must be a whole number"],
    ["PORT", "  ", "PORT must be a whole number"],
    ["SIGNUP_SECRET", "short", "SIGNUP_SECRET must be at least 32 characters"],
    ["SIGNUP_SECRET_PREVIOUS", "short", "SIGNUP_SECRET_PREVIOUS must be at least 32 characters"],
    ["SIGNUP_SOURCE", "Com Espaço", "SIGNUP_SOURCE must be a slug"],
    ["HCAPTCHA_VERIFY_URL", "siteverify", "HCAPTCHA_VERIFY_URL must be an http(s) URL"],
    ["WEBHOOK_URL", "http://127.0.0.1:4190/hook", "WEBHOOK_URL uses a port that fetch refuses to call"],
    ["HCAPTCHA_VERIFY_URL", "https://verify.exemplo.com:6000/", "HCAPTCHA_VERIFY_URL uses a port that fetch refuses"],
    ["WEBHOOK_URL", "http://127.0.0.1:0/hook", "WEBHOOK_URL uses port 0, which nothing can be called on"],
    ["SIGNUPS_FILE", "/proc/prevly/signups.jsonl", "SIGNUPS_FILE is under /proc or /sys, which keep nothing"],
    ["SIGNUPS_FILE", "/sys/signups.jsonl", "SIGNUPS_FILE is under /proc or /sys"],
    ["SIGNUPS_FILE", "/srv/../proc/1/signups.jsonl", "SIGNUPS_FILE is under /proc or /sys"],
    ["TRUST_PROXY", "-1", "TRUST_PROXY must be a whole number from 0 to 10"],
    ["REDIS_URL", "http://127.0.0.1:6379", "REDIS_URL must be a redis:// or rediss:// URL"],
    [
      "REDIS_URL",
      "redis://127.0.0.1:6379",
      "SIGNUP_SECRET must be set when REDIS_URL is: every instance must sign the forms with the same secret",
    ],
    ["REDIS_SENTINELS", "sentinel-1,sentinel-2", "REDIS_SENTINELS must be the Sentinels' addresses as host:port"],
    ["REDIS_SENTINELS", "sentinel-1:99999", "REDIS_SENTINELS must be the Sentinels' addresses as host:port"],
    ["REDIS_SENTINELS", "sentinel-1:26379", "REDIS_SENTINELS needs REDIS_SENTINEL_NAME (the primary's name)"],
    ["REDIS_MIN_REPLICAS", "1", "REDIS_MIN_REPLICAS counts only in RELAY_MODE=queued"],
    ["RELAY_MODE", "later", "RELAY_MODE must be 'direct' or 'queued'"],
    ["RELAY_RETRY_HOURS", "0", "RELAY_RETRY_HOURS must be a whole number from 1 to 720"],
    ["RELAY_ATTEMPT_SECONDS", "1", "RELAY_ATTEMPT_SECONDS must be a whole number from 2 to 300"],
    ["WEBHOOK_SIGNING_SECRET", "curto", "WEBHOOK_SIGNING_SECRET must be at least 16 characters"],
    ["METRICS_TOKEN", "curto", "METRICS_TOKEN must be at least 16 characters"],
    [
      "WEBHOOK_URL",
      "https://n8n:50%off@n8n.exemplo.com/webhook/x",
      "WEBHOOK_URL holds credentials that are not valid percent-encoding (write a % in them as %25)",
    ],
    ["PUBLIC_URL", "prevly.com.br", "PUBLIC_URL must be the page's public address, an http(s) URL"],
    ["PUBLIC_URL", "https://prevly.com.br/lancamento", "PUBLIC_URL must be an origin only"],
    ["PUBLIC_URL", "https://prevly.com.br/?utm_source=x", "PUBLIC_URL must be an origin only"],
    ["PUBLIC_URL", "https://prevly.com.br/#cadastro", "PUBLIC_URL must be an origin only"],
    ["PUBLIC_URL", "https://admin:senha@prevly.com.br", "PUBLIC_URL must be an origin only"],
  ])("a bad %s stops start-up with one line naming it", (name, value, message) => {
    expect(() => parseSettings({ [name]: value })).toThrowError(`Invalid configuration: ${message}`);
  });

  it("REDIS_URL names its database in decimal digits or not at all: other spellings stop start-up with one line", () => {
    const secret = { SIGNUP_SECRET: "s".repeat(32) };
    for (const path of ["/0x10", "/1.5", "/abc", "/-1", "/2/", "/1e1", "/%31", "?db=2", "/1?db=0x10"]) {
      expect(() => parseSettings({ ...secret, REDIS_URL: `redis://127.0.0.1:6379${path}` })).toThrowError(
        "Invalid configuration: REDIS_URL must name its database in decimal digits after the host (redis://host:6379/2), or name none (0)",
      );
    }
    for (const path of ["", "/", "/0", "/15"]) {
      const url = `rediss://:senha@redis.interno:6380${path}`;
      expect(parseSettings({ ...secret, REDIS_URL: url }).REDIS_URL).toBe(url);
    }
  });

  it("refuses exactly the ports the fetch that relays sign-ups refuses", async () => {
    const undici = createRequire(import.meta.url)("undici/lib/web/fetch/constants.js") as { badPorts: string[] };
    expect([...FETCH_BLOCKED_PORTS]).toEqual(undici.badPorts);
    const { fetch } = await import("undici");
    await expect(fetch("http://127.0.0.1:4190/")).rejects.toMatchObject({ cause: { message: "bad port" } });
  });

  it("has a default for everything, so the site runs with no configuration, and warns of each one unfit for production; an empty setting is one left out (`-e VAR=` in a container)", () => {
    const settings = parseSettings({});
    expect(settings).toMatchObject({
      SIGNUP_SOURCE: "prevly-landing",
      HCAPTCHA_SITE_KEY: "10000000-ffff-ffff-ffff-000000000001",
      HCAPTCHA_VERIFY_URL: "https://api.hcaptcha.com/siteverify",
      TRUST_PROXY: 0,
    });
    expect(parseSettings({ WEBHOOK_URL: "", SIGNUP_SECRET: "", TRUST_PROXY: "" })).toEqual(settings);
    expect(startupWarnings(settings)).toEqual([
      `WEBHOOK_URL is not set: sign-ups are appended to ${join(APP_ROOT, "data/signups.jsonl")}`,
      "HCAPTCHA_SECRET is not set: captcha tokens are relayed without server-side verification",
      `SIGNUP_SECRET is not set: the one kept in ${join(APP_ROOT, "data/signup-secret")} is used`,
      "REDIS_URL is not set: limits and the replay guard live in this process (one instance only)",
      "PUBLIC_URL is not set: link previews carry no picture, canonical address or og:url",
    ]);
    const configured = parseSettings({
      PUBLIC_URL: "https://prevly.com.br",
      WEBHOOK_URL: "https://automacao.exemplo.com/hook",
      HCAPTCHA_SECRET: "segredo",
      SIGNUP_SECRET: "s".repeat(40),
      REDIS_URL: "rediss://:senha@redis.interno:6380/0",
    });
    expect(startupWarnings(configured)).toEqual([]);
  });
});

describe("the tuning constants", () => {
  it("fit the stop budget: a sign-up admitted before SIGTERM is answered before `docker stop` kills", () => {
    // docker stop and Kubernetes send SIGKILL 10 s after SIGTERM.
    expect(DRAIN_LIMIT_MS).toBeLessThan(10_000);
    // siteverify and the webhook each get their whole timeout, with room left for a Redis that
    // stops answering: its first unanswered command (REDIS_TIMEOUT_MS) ends the sign-up with 503.
    expect(SITEVERIFY_TIMEOUT_MS + WEBHOOK_TIMEOUT_MS + REDIS_TIMEOUT_MS).toBeLessThanOrEqual(SIGNUP_TIME_BUDGET_MS);
  });
});

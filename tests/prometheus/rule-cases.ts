/**
 * The cases of `promtool test rules` for every alert in deploy/prometheus/alerts.yml: series that must fire it, each
 * just past its thresholds, and series that must not (a short blip, a recovery); and for the campaign counts'
 * recording rules (deploy/prometheus/insight.yml). alert-rules.test.ts writes them as promtool's YAML. Counters start
 * at 0, as the apps show them from the start.
 */
export type AlertCase = {
  name: string;
  /** Between two samples, and between two evaluations of the rules: 15s unless told. */
  interval?: "1m";
  /** Each series and its values in promtool's notation: `a+bxN` is a, then N more samples b apart; `_` is none. */
  series: Record<string, string>;
  /** [time, alert, its summary and labels beyond the rule's own when it fires then]: quiet without a summary. */
  expect: Array<[string, string, string?, Record<string, string>?]>;
};

const app1 = 'job="prevly", instance="app1:3000"';
const app2 = 'job="prevly", instance="app2:3000"';
const sentinel = (n: number) => `job="redis", instance="sentinel-${n}:26379", master_name="prevly"`;
/** The labels of an alert about app1 alone. */
const onApp1 = { job: "prevly", instance: "app1:3000" };
const WEBHOOK_FAILED_ALL = "The webhook failed 100% of its attempts in the last 5 minutes";
const FAILED_OVER = [
  "PrevlyRedisFailover",
  "Redis's primary prevly failed over in the last 15 minutes",
  { master_name: "prevly" },
] as const;
const FORM_BROKEN = "No sign-up accepted in the last hour, while visitors from 30 networks pressed 'Cadastrar'";

export const alertCases: AlertCase[] = [
  // Each instance reads the queue when scraped: the second's reading is one scrape older.
  {
    name: "sign-ups waiting past 15 minutes",
    series: {
      [`signup_queue_oldest_undelivered_seconds{${app1}}`]: "0+15x80",
      [`signup_queue_oldest_undelivered_seconds{${app2}}`]: "0 0+15x79",
    },
    expect: [
      ["15m", "PrevlySignupsWaiting"],
      ["15m15s", "PrevlySignupsWaiting", "A sign-up has waited 15m 15s to reach the webhook"],
    ],
  },
  // A dead letter at 2m, left in the list; a second one at 30m, on the other instance. A third instance that counted
  // 3 restarts at 11m (its count back to 0), and none is new.
  {
    name: "each new dead letter fires it, for its window, even while the list stays full; a restart is none",
    interval: "1m",
    series: {
      [`signup_dead_letters_total{${app1}}`]: "0 0 1x60",
      [`signup_dead_letters_total{${app2}}`]: "0x29 1x30",
      'signup_dead_letters_total{job="prevly", instance="app3:3000"}': "3x10 _ _ 0x40",
      [`signup_queue_jobs{${app1}, state="failed"}`]: "0 0 1x28 2x30",
      [`signup_queue_jobs{${app1}, state="delayed"}`]: "3x60",
    },
    expect: [
      ["2m", "PrevlyNewDeadLetters", "A sign-up became a dead letter in the last 15 minutes"],
      ["16m", "PrevlyNewDeadLetters", "A sign-up became a dead letter in the last 15 minutes"],
      // The window has passed: resolved, though the dead letter is still listed.
      ["18m", "PrevlyNewDeadLetters"],
      ["30m", "PrevlyNewDeadLetters", "A sign-up became a dead letter in the last 15 minutes"],
    ],
  },
  {
    name: "the webhook recovers after a long outage, and the alert ends within a minute",
    series: {
      [`webhook_attempts_total{${app1}, result="2xx"}`]: "0+4x20 80x40 80+8x20",
      [`webhook_attempts_total{${app1}, result="5xx"}`]: "0x20 0+6x40 240x20",
    },
    expect: [
      ["15m", "PrevlyWebhookFailing", WEBHOOK_FAILED_ALL],
      ["16m15s", "PrevlyWebhookFailing"],
    ],
  },
  // One sign-up at a quiet hour, retried ever more sparsely, never succeeding (and no success counted since the
  // instance started: an app that does not show 2xx at 0).
  {
    name: "none succeeding while a few attempts are made",
    series: { [`webhook_attempts_total{${app1}, result="5xx"}`]: "1 2 3 3 4 4 4 4 5x7 6x15 7x20" },
    expect: [
      ["4m30s", "PrevlyWebhookFailing"],
      ["6m", "PrevlyWebhookFailing", WEBHOOK_FAILED_ALL],
    ],
  },
  // For 10 minutes 3 attempts in 10 fail; then none is made, and none succeeds.
  {
    name: "a webhook failing 3 attempts in 10, then idle",
    series: {
      [`webhook_attempts_total{${app1}, result="2xx"}`]: "0+7x40 280x44",
      [`webhook_attempts_total{${app1}, result="5xx"}`]: "0+3x40 120x44",
    },
    expect: [
      ["10m", "PrevlyWebhookFailing"],
      ["21m", "PrevlyWebhookFailing"],
    ],
  },
  {
    name: "an instance down and not ready from 1m; the other for a minute",
    series: {
      [`up{${app1}}`]: "1x3 0x20",
      [`up{${app2}}`]: "1x7 0x3 1x12",
      [`instance_ready{${app1}}`]: "1x3 0x20",
      [`instance_ready{${app2}}`]: "1x7 0x3 1x12",
    },
    expect: [
      ["2m45s", "PrevlyInstanceDown"],
      ["3m15s", "PrevlyInstanceDown", "app1:3000 does not answer Prometheus's scrapes", onApp1],
      ["2m45s", "PrevlyInstanceNotReady"],
      ["3m15s", "PrevlyInstanceNotReady", "app1:3000 is not ready: /readyz answers 503", onApp1],
    ],
  },
  // 32 verifications a minute; from 5m a third of them time out.
  {
    name: "hCaptcha timing out for a third of the verifications",
    series: {
      [`siteverify_calls_total{${app1}, result="valid"}`]: "0+8x80",
      [`siteverify_calls_total{${app1}, result="timeout"}`]: "0x20 0+4x60",
      [`siteverify_calls_total{${app1}, result="error"}`]: "0x80",
    },
    expect: [
      ["12m", "PrevlyCaptchaFailing"],
      ["15m", "PrevlyCaptchaFailing", "hCaptcha failed or timed out for 33.33% of verifications in the last 5 minutes"],
    ],
  },
  // hCaptcha fails every call for 3 minutes from 5m, among 40 calls a minute (a fifth of them bots' tokens, refused:
  // an answer, not a failure). Over 5 minutes the failures weigh long after.
  {
    name: "a 3-minute blip of hCaptcha",
    series: {
      [`siteverify_calls_total{${app1}, result="valid"}`]: "0+8x20 160x12 160+8x48",
      [`siteverify_calls_total{${app1}, result="invalid"}`]: "0+2x20 40x12 40+2x48",
      [`siteverify_calls_total{${app1}, result="error"}`]: "0x20 0+10x12 120x48",
    },
    expect: [["11m30s", "PrevlyCaptchaFailing"]],
  },
  // 80 answers a minute (40 of them 4xx: bots, 404s), from 5m 8 server errors a minute.
  {
    name: "server errors for a tenth of the answers",
    series: {
      [`http_responses_total{${app1}, status_class="2xx"}`]: "0+10x80",
      [`http_responses_total{${app1}, status_class="4xx"}`]: "0+10x80",
      [`http_responses_total{${app1}, status_class="5xx"}`]: "0x20 0+2x60",
    },
    expect: [
      ["12m", "PrevlyServerErrors"],
      ["14m", "PrevlyServerErrors", "9.091% of the answers in the last 5 minutes were server errors (5xx)"],
    ],
  },
  {
    name: "a 3-minute blip of server errors, and a steady 2 %",
    series: {
      [`http_responses_total{${app1}, status_class="2xx"}`]: "0+20x80",
      [`http_responses_total{${app1}, status_class="5xx"}`]: "0x20 0+20x12 240x48",
      [`http_responses_total{${app2}, status_class="2xx"}`]: "0+49x80",
      [`http_responses_total{${app2}, status_class="5xx"}`]: "0+1x80",
    },
    expect: [["11m", "PrevlyServerErrors"]],
  },
  {
    name: "an event loop lagging from 5m; another's lag spikes for 3 minutes; a third lags 150 ms",
    series: {
      [`nodejs_eventloop_lag_p99_seconds{${app1}}`]: "0.01x20 0.3x30",
      [`nodejs_eventloop_lag_p99_seconds{${app2}}`]: "0.01x20 0.5x12 0.01x18",
      'nodejs_eventloop_lag_p99_seconds{job="prevly", instance="app3:3000"}': "0.15x50",
    },
    expect: [
      ["9m45s", "PrevlyEventLoopLag"],
      ["10m15s", "PrevlyEventLoopLag", "app1:3000's event loop lags 300ms (99th percentile)", onApp1],
    ],
  },
  {
    name: "from 1m, no replica working as both Sentinels see it, and a replica 11 s behind; one replica, or 10 s, is no alert",
    series: {
      [`redis_sentinel_master_ok_slaves{${sentinel(1)}, master_address="10.0.0.2:6379"}`]: "1x3 0x10",
      [`redis_sentinel_master_ok_slaves{${sentinel(2)}, master_address="10.0.0.2:6379"}`]: "1x3 0x10",
      'redis_connected_slave_lag_seconds{job="redis", instance="redis-primary:6379", slave_ip="10.0.0.3", slave_port="6379", slave_state="online"}':
        "10x3 11x10",
    },
    expect: [
      ["1m45s", "PrevlyRedisReplicaMissing"],
      ["2m", "PrevlyRedisReplicaMissing", "No replica of Redis's primary prevly is working", { master_name: "prevly" }],
      ["1m45s", "PrevlyRedisReplicationLag"],
      [
        "2m",
        "PrevlyRedisReplicationLag",
        "A replica of redis-primary:6379 has not confirmed its writes for 11s",
        { instance: "redis-primary:6379" },
      ],
    ],
  },
  {
    name: "the primary moves from 10.0.0.2 to 10.0.0.3 at 3m; the alert ends 15 minutes after the old one's last sample",
    interval: "1m",
    series: {
      [`redis_sentinel_master_status{${sentinel(1)}, master_address="10.0.0.2:6379", master_status="ok"}`]: "1x2",
      [`redis_sentinel_master_status{${sentinel(1)}, master_address="10.0.0.3:6379", master_status="ok"}`]: "_x3 1x30",
    },
    expect: [
      ["2m", "PrevlyRedisFailover"],
      ["4m", ...FAILED_OVER],
      ["16m", ...FAILED_OVER],
      ["20m", "PrevlyRedisFailover"],
    ],
  },
  // Presses from 30 networks an hour; a sign-up a minute until 30m, then every post refused as form-expired, among a
  // few invalid addresses.
  {
    name: "the form broken at 30m",
    interval: "1m",
    series: {
      [`form_pressed_total{${app1}}`]: "0+0.5x120",
      [`signups_total{${app1}, outcome="queued"}`]: "0+1x30 30x90",
      [`signups_total{${app1}, outcome="form-expired"}`]: "0x30 0+0.5x90",
      [`signups_total{${app1}, outcome="invalid-email"}`]: "0+0.05x120",
    },
    expect: [
      ["89m", "PrevlyFormBroken"],
      ["91m", "PrevlyFormBroken", FORM_BROKEN],
    ],
  },
  // A script keeps it quiet with one free answer an hour for an address it listed: a known e-mail is no sign-up
  // accepted.
  {
    name: "one known e-mail's answer an hour does not silence it",
    interval: "1m",
    series: {
      [`form_pressed_total{${app1}}`]: "0+0.5x90",
      [`signups_total{${app1}, outcome="known-email"}`]: "0x20 1x60 2x10",
      [`signups_total{${app1}, outcome="captcha-rejected"}`]: "0+0.5x90",
    },
    expect: [["61m", "PrevlyFormBroken", FORM_BROKEN]],
  },
  // Rendering crawlers and browser-based uptime checks (three a minute) boot the page in a tall viewport and send the
  // beacon: no press, whatever the views and beacons.
  {
    name: "a crawler and uptime checks that boot the page, no visitor",
    interval: "1m",
    series: {
      [`page_views_total{${app1}, utm_source="(none)", utm_medium="(none)", utm_campaign="(none)", referrer="(direct)"}`]:
        "0+10x120",
      [`form_reached_total{${app1}, utm_source="(none)", utm_medium="(none)", utm_campaign="(none)", referrer="(direct)"}`]:
        "0+3x120",
    },
    expect: [["120m", "PrevlyFormBroken"]],
  },
  {
    name: "a quiet night, visitors from a few networks and no sign-up",
    interval: "1m",
    series: {
      [`form_pressed_total{${app1}}`]: "0+0.25x90",
      [`signups_total{${app1}, outcome="captcha-missing"}`]: "0+0.25x90",
    },
    expect: [["90m", "PrevlyFormBroken"]],
  },
];

const lancamento = 'utm_source="news", utm_medium="email", utm_campaign="lancamento"';
const estreia = 'utm_source="tv", utm_medium="(none)", utm_campaign="estreia"';
const none = 'utm_source="(none)", utm_medium="(none)", utm_campaign="(none)"';

/**
 * Two hours of a launch: "lancamento" seen on both instances (1,200 views an hour, 90 sign-ups), "estreia" viewed and
 * never signed up for, an address without a campaign whose sign-up series never appeared, and an instance restarted
 * at 61m (its first scrape after holds one minute's counts). Each recorded series' values at 120m, by its labels.
 */
export const campaignCounts = {
  name: "conversion by campaign over the hour and the day",
  series: {
    [`page_views_total{${app1}, ${lancamento}, referrer="(direct)"}`]: "0+10x120",
    [`page_views_total{${app2}, ${lancamento}, referrer="mail.google.com"}`]: "0+10x60 10+10x59",
    [`signups_accepted_total{${app1}, ${lancamento}, javascript="on"}`]: "0+1x120",
    [`signups_accepted_total{${app2}, ${lancamento}, javascript="off"}`]: "0+0.5x60 0.5+0.5x59",
    [`page_views_total{${app1}, ${estreia}, referrer="(direct)"}`]: "0+5x120",
    [`signups_accepted_total{${app1}, ${estreia}, javascript="on"}`]: "0x120",
    [`page_views_total{${app1}, ${none}, referrer="google.com"}`]: "0+2x120",
  },
  recorded: {
    "campaign:page_views:increase1h": { [lancamento]: 1200, [estreia]: 300, [none]: 120 },
    "campaign:conversion:ratio1h": { [lancamento]: 0.075, [estreia]: 0, [none]: 0 },
    "campaign:signups_accepted:increase1d": { [lancamento]: 180, [estreia]: 0 },
    "campaign:conversion:ratio1d": { [lancamento]: 0.075, [estreia]: 0, [none]: 0 },
  },
};

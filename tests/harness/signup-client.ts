/** What a browser or a scraper does with the page: read its form tokens and post the form. */
import { Agent, fetch as fetchFrom } from "undici";
import { BotTrap, MIN_SUBMIT_MS } from "~/signup/bot-trap.server";
import type { FormTokens, SignupResult } from "~/signup/result";
import { SignedTokens } from "~/signup/signed-tokens.server";

/** The route's loader data: the bot-trap fields and the fallback question of the current render. */
export async function pageTokens(origin: string): Promise<FormTokens> {
  return (await (await fetch(`${origin}/?_data=routes%2F_index`)).json()) as FormTokens;
}

/** The bot-trap fields exactly as the rendered form sends them. */
export function pageFields({ botTrap }: Pick<FormTokens, "botTrap">): Record<string, string> {
  return { [botTrap.nameField]: "", [botTrap.validFromField]: botTrap.validFrom };
}

/**
 * The bot-trap fields of a visitor who loaded the page MIN_SUBMIT_MS ago,
 * signed with the server's SIGNUP_SECRET: what the page's own fields become
 * once a person has read it, without the test waiting that long.
 */
export function visitorFields(secret: string): Record<string, string> {
  return pageFields({ botTrap: new BotTrap(new SignedTokens(secret)).fields(Date.now() - MIN_SUBMIT_MS) });
}

/**
 * A page's bot-trap "valid from" token (`<ms>.<mac>`) as a person's reading has reached it: MIN_SUBMIT_MS earlier,
 * signed with the server's SIGNUP_SECRET, as if the page had been rendered that much sooner. The test need not wait.
 */
export function readEarlier(validFrom: string, secret: string): string {
  const rendered = Number(validFrom.split(".")[0]) - MIN_SUBMIT_MS;
  return new BotTrap(new SignedTokens(secret)).fields(rendered - MIN_SUBMIT_MS).validFrom;
}

export type SignupOptions = {
  userAgent?: string;
  /** Ask for the JSON answer JavaScript gets instead of the page. */
  data?: boolean;
  /** The visitor's address, sent as X-Forwarded-For (the server must trust one proxy). */
  client?: string;
  /** The loopback address the connection comes from (127.0.0.2, …): the visitor as a proxy in front sees it. */
  from?: string;
  headers?: Record<string, string>;
};

const agents = new Map<string, Agent>();
/** One connection pool per loopback source address. */
function agentFrom(address: string): Agent {
  let agent = agents.get(address);
  if (!agent) agents.set(address, (agent = new Agent({ localAddress: address })));
  return agent;
}

/** POSTs a sign-up as the form would. */
export function postSignup(
  origin: string,
  fields: Record<string, string>,
  { userAgent = "signup-client", data = false, client, from, headers = {} }: SignupOptions = {},
): Promise<Response> {
  const url = `${origin}/?index${data ? "&_data=routes%2F_index" : ""}`;
  const init = {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "user-agent": userAgent,
      ...(client ? { "x-forwarded-for": client } : {}),
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  };
  if (!from) return fetch(url, init);
  return fetchFrom(url, { ...init, dispatcher: agentFrom(from) }) as unknown as Promise<Response>;
}

export type SignupAnswer = { status: number; result: SignupResult };

/** A sign-up as the enhanced form sends it, with its JSON answer. */
export async function signUp(
  origin: string,
  fields: Record<string, string>,
  options: Omit<SignupOptions, "data"> = {},
): Promise<SignupAnswer> {
  const response = await postSignup(origin, fields, { ...options, data: true });
  return { status: response.status, result: (await response.json()) as SignupResult };
}

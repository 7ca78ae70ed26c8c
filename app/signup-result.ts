/** The contract between the sign-up action and the form; shared by server and browser. */

import type { HoneypotInputProps } from "remix-utils/honeypot/server";

export type Notice = { title: string; description: string };

/** A fallback question for visitors whose browser cannot run hCaptcha. */
export type Challenge = { question: string; token: string };

export type SignupResult = {
  ok: boolean;
  notice: Notice;
  /** What the visitor typed, echoed back so a failed submit loses nothing ('' after success). */
  email: string;
  /** The captcha token was spent (verified or relayed): the widget must hand out a new one. */
  resetCaptcha: boolean;
  /** A fresh fallback question when the previous one can no longer be used. */
  challenge?: Challenge;
  /** Fresh bot-trap fields when the page's were too old: sending again needs nothing else. */
  honeypot?: HoneypotInputProps;
};

/** Names of the form fields the action reads. */
export const FIELD = {
  email: "email",
  captchaToken: "hcaptchaToken",
  challengeToken: "challengeToken",
  challengeAnswer: "challengeAnswer",
} as const;

/** The contract between the sign-up action and the form; shared by server and browser. */

export type Notice = { title: string; description: string };

/** The fallback question for visitors whose browser cannot run hCaptcha. */
export type Question = { text: string; token: string };

export type BotTrapFields = { nameField: string; validFromField: string; validFrom: string };

export type FormTokens = { botTrap: BotTrapFields; question: Question };

export type SignupResult = {
  ok: boolean;
  notice: Notice;
  /** What the visitor typed, echoed back so a failed submit loses nothing ('' after success). */
  email: string;
  /** The captcha token was spent: the widget must hand out a new one. */
  resetCaptcha: boolean;
  /**
   * A fresh question when the previous one can no longer be used; after an invalid e-mail, the one answered, said
   * again for a page rendered without JavaScript.
   */
  question?: Question;
  /** With the question answered, the answer typed (it still holds). */
  answer?: string;
  /** Fresh bot-trap fields, valid at once: sending again needs nothing else. */
  botTrap?: BotTrapFields;
  /** The form's signed fields could not be read (signed under a secret since retired): the page's own are fetched again. */
  renewForm?: true;
  /** The campaign (utm_* query) the post was counted for, which the form's next post carries (docs/insight.md). */
  campaign?: string;
};

/** The question's fields are posted as `challenge*`: a page open across a deploy still posts these names. */
export const FIELD = {
  email: "email",
  captchaToken: "hcaptchaToken",
  questionToken: "challengeToken",
  questionAnswer: "challengeAnswer",
} as const;

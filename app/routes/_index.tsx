import { json, type ActionFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData, type ClientActionFunctionArgs, type ShouldRevalidateFunction } from "@remix-run/react";
import { Suspense } from "react";
import { FeatureGrid } from "~/components/feature-grid";
import { Hero } from "~/components/hero";
import { HowItWorks } from "~/components/how-it-works";
import { SiteHeader } from "~/components/site-header";
import { SIGNUP_BOOT } from "~/components/signup-form";
import { SignupSection } from "~/components/signup-section";
import { SiteFooter } from "~/components/site-footer";
import { content } from "~/content";
import { campaignQuery } from "~/insight/paths";
import { insight, settings, signup } from "~/services.server";
import { FIELD, type SignupResult } from "~/signup/result";

/**
 * The landing page may be rendered once and shared for a moment (see page/shared-render.server.ts); its scripts wait
 * for the visitor to near the form (components/deferred-boot.tsx); root.tsx writes its title.
 */
export const handle = { shareRender: true, boot: SIGNUP_BOOT, title: content.meta.title };

export function loader() {
  return json({
    captchaSiteKey: settings.HCAPTCHA_SITE_KEY,
    publicUrl: settings.PUBLIC_URL ?? null,
    ...signup.formTokens(),
  });
}

export async function action({ request }: ActionFunctionArgs) {
  const { status, result, outcome, pressed } = await signup.handle(request);
  const campaign = insight.signupPosted(request, outcome, pressed);
  return json({ ...result, campaign }, { status, headers: { "Cache-Control": "no-store" } });
}

/**
 * With JavaScript, an answer the app did not write (the balancer's 429 past its burst, its 502 when an instance is
 * gone) is thrown by Remix, and the root's error page would replace the form and what the visitor typed: it becomes
 * the form's failure notice instead, the e-mail kept. The captcha token may have reached the app: a new one is asked.
 */
export async function clientAction({ request, serverAction }: ClientActionFunctionArgs): Promise<SignupResult> {
  const typed = (await request.clone().formData()).get(FIELD.email);
  try {
    return await serverAction<typeof action>();
  } catch {
    const { failureTitle, failureFallback } = content.messages;
    return {
      ok: false,
      notice: { title: failureTitle, description: failureFallback },
      email: typeof typed === "string" ? typed : "",
      resetCaptcha: true,
      campaign: campaignQuery(new URL(request.url).searchParams),
    };
  }
}

/**
 * A form result carries everything the form needs, but for fields no instance can read any more: then the page's own
 * are fetched, as a page without JavaScript renders them with the answer.
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formMethod, actionResult, defaultShouldRevalidate }) =>
  formMethod === "POST" ? (actionResult as SignupResult | undefined)?.renewForm === true : defaultShouldRevalidate;

/**
 * Link previews need absolute addresses, made from PUBLIC_URL alone: the request's Host header is the sender's to
 * choose, and the render is shared. Without PUBLIC_URL the picture, canonical address and og:url are left out.
 */
export const meta: MetaFunction<typeof loader> = ({ data }) => {
  const publicUrl = data?.publicUrl ?? null;
  const { title, description, shareImage, shareImageAlt } = content.meta;
  const linkPreviewTags = publicUrl
    ? [
        { tagName: "link", rel: "canonical", href: `${publicUrl}/` },
        { property: "og:url", content: `${publicUrl}/` },
        { property: "og:image", content: `${publicUrl}${shareImage.path}` },
        { property: "og:image:type", content: "image/png" },
        { property: "og:image:width", content: String(shareImage.width) },
        { property: "og:image:height", content: String(shareImage.height) },
        { property: "og:image:alt", content: shareImageAlt },
        { name: "twitter:image:alt", content: shareImageAlt },
      ]
    : [];
  return [
    { name: "description", content: description },
    { property: "og:type", content: "website" },
    { property: "og:locale", content: "pt_BR" },
    { property: "og:site_name", content: content.site.name },
    { property: "og:title", content: title },
    { property: "og:description", content: description },
    { name: "twitter:card", content: publicUrl ? "summary_large_image" : "summary" },
    { name: "twitter:title", content: title },
    { name: "twitter:description", content: description },
    ...linkPreviewTags,
  ];
};

/**
 * The page boots as the visitor reaches the form, often with a finger already on it. Each section around the form is
 * its own `<Suspense>` boundary so that React hydrates it apart (selective hydration): the document's shell and the
 * form first, the sections after, a few milliseconds at a time between the visitor's keystrokes. Without them, the
 * first key pressed during hydration made React hydrate the whole page at once before answering it (0.3 s at 4× CPU
 * slowdown). Nothing in them suspends: the server renders them in full, marked by a comment before and after.
 */
export default function LandingPage() {
  const { captchaSiteKey, botTrap, question } = useLoaderData<typeof loader>();
  return (
    <>
      <Suspense>
        <SiteHeader />
      </Suspense>
      <main>
        <Suspense>
          <Hero />
        </Suspense>
        <Suspense>
          <FeatureGrid />
        </Suspense>
        <Suspense>
          <HowItWorks />
        </Suspense>
        <SignupSection captchaSiteKey={captchaSiteKey} botTrap={botTrap} question={question} />
      </main>
      <Suspense>
        <SiteFooter />
      </Suspense>
    </>
  );
}

import HCaptcha from "@hcaptcha/react-hcaptcha";
import { useEffect, useRef, useState } from "react";
import { createPortal } from "react-dom";
import { toast, Toaster } from "sonner";
import type { SignupResult } from "~/signup/result";

/** The loader's code for "the script could not be fetched, retries included". */
const SCRIPT_UNAVAILABLE = "script-error";
/** Below this width the normal widget (303 px) would overflow the form. */
const COMPACT_WIDGET_QUERY = "(max-width: 359px)";

type Props = {
  siteKey: string;
  result: SignupResult | undefined;
  onToken: (token: string) => void;
  /** The toasts are on the page. */
  onMounted: () => void;
  /** The widget is on screen. */
  onShown: () => void;
  /** hCaptcha's script could not be loaded: the form offers the fallback question instead. */
  onUnavailable: () => void;
  hidden: boolean;
};

/**
 * The client-only half of the sign-up form, split into its own chunk: the hCaptcha widget (never server-rendered, so no
 * hydration mismatch) and the toasts that announce each result.
 */
export default function SignupEnhancements({
  siteKey,
  result,
  onToken,
  onMounted,
  onShown,
  onUnavailable,
  hidden,
}: Props) {
  const captchaRef = useRef<HCaptcha>(null);
  const [compact] = useState(() => window.matchMedia(COMPACT_WIDGET_QUERY).matches);

  useEffect(onMounted, [onMounted]);

  useEffect(() => {
    if (!result) return;
    const { title, description } = result.notice;
    // The latest answer alone: an earlier error left stacked behind a success reads as both.
    toast.dismiss();
    if (result.ok) toast.success(title, { description });
    else toast.error(title, { description });
    if (result.resetCaptcha) {
      // The token was spent on the server: a new one must be earned.
      captchaRef.current?.resetCaptcha();
      onToken("");
    }
  }, [result, onToken]);

  return (
    <>
      {createPortal(
        <Toaster position="top-center" richColors closeButton visibleToasts={3} duration={4000} />,
        document.body,
      )}
      <div className={hidden ? "hidden" : "min-h-[78px]"}>
        <HCaptcha
          ref={captchaRef}
          id="signup-captcha"
          sitekey={siteKey}
          size={compact ? "compact" : "normal"}
          languageOverride="pt-BR"
          reCaptchaCompat={false}
          sentry={false}
          onLoad={onShown}
          onVerify={(token) => onToken(token)}
          onExpire={() => onToken("")}
          onError={(code) => {
            onToken("");
            if (code === SCRIPT_UNAVAILABLE) onUnavailable();
          }}
        />
      </div>
    </>
  );
}

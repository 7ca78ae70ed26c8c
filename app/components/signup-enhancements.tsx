import HCaptcha from "@hcaptcha/react-hcaptcha";
import { useEffect, useRef, useState, type CSSProperties, type MutableRefObject } from "react";
import { createPortal } from "react-dom";
import { toast, Toaster } from "sonner";
import { content } from "~/content";
import type { SignupResult } from "~/signup/result";

/** The loader's code for "the script could not be fetched, retries included". */
const SCRIPT_UNAVAILABLE = "script-error";
/** Below this width the normal widget (303 px) would overflow the form. */
const COMPACT_WIDGET_QUERY = "(max-width: 359px)";
const TOAST_MS = 4000;
/** sonner's rich colours read 4.3:1 on their backgrounds: the text darker, 4.5:1 and more (the in-place notice's). */
const TOAST_TEXT_COLOURS = { "--success-text": "#0c453b", "--error-text": "#7f1d1d" } as CSSProperties;

/** The toast on screen: the latest result's, until it is closed or runs out. */
type ShownToast = MutableRefObject<{ id: number; result: SignupResult } | null>;

/**
 * The shown result's toast, announced as a success (`status`) or an error (`alert`); `duration` Infinity while the
 * visitor's focus is in it (sonner itself pauses only under the pointer).
 */
function showToast(shown: ShownToast, duration: number) {
  const current = shown.current;
  if (!current) return;
  const { ok, notice } = current.result;
  const gone = () => {
    if (shown.current === current) shown.current = null;
  };
  const options = { id: current.id, description: notice.description, duration, onDismiss: gone, onAutoClose: gone };
  const announced = <span role={ok ? "status" : "alert"}>{notice.title}</span>;
  if (ok) toast.success(announced, options);
  else toast.error(announced, options);
}

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
  const [focusInToasts, setFocusInToasts] = useState(false);
  const shown: ShownToast = useRef(null);
  const toastsShown = useRef(0);

  useEffect(onMounted, [onMounted]);

  useEffect(() => {
    if (!result) return;
    // The latest answer alone: an earlier error left stacked behind a success reads as both.
    toast.dismiss();
    toastsShown.current += 1;
    shown.current = { id: toastsShown.current, result };
    showToast(shown, TOAST_MS);
    if (result.resetCaptcha) {
      // The token was spent on the server: a new one must be earned.
      captchaRef.current?.resetCaptcha();
      onToken("");
    }
  }, [result, onToken]);

  useEffect(() => showToast(shown, focusInToasts ? Infinity : TOAST_MS), [focusInToasts]);

  return (
    <>
      {createPortal(
        <div
          onFocus={() => setFocusInToasts(true)}
          onBlur={(event) => setFocusInToasts(event.currentTarget.contains(event.relatedTarget))}
        >
          <Toaster
            position="top-center"
            richColors
            closeButton
            visibleToasts={3}
            duration={TOAST_MS}
            containerAriaLabel={content.signup.toastsLabel}
            style={TOAST_TEXT_COLOURS}
            // A target of 24×24 px at least (sonner's is 20).
            toastOptions={{ closeButtonAriaLabel: content.signup.closeToast, classNames: { closeButton: "!h-6 !w-6" } }}
          />
        </div>,
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

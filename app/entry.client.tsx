import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode, useLayoutEffect } from "react";
import { hydrateRoot } from "react-dom/client";
import { BOOT_STATE } from "./components/deferred-boot";

/**
 * Typing that React would answer by hydrating first. React 18 hydrates the whole page outside `<Suspense>` boundaries
 * synchronously, before dispatching, when one of these reaches a page it has not hydrated yet.
 */
const TYPING_EVENTS = [
  "keydown",
  "keypress",
  "keyup",
  "beforeinput",
  "input",
  "textInput",
  "compositionstart",
  "compositionupdate",
  "compositionend",
  "paste",
  "cut",
  "copy",
];

/**
 * The page boots as the visitor reaches the form, often while they type in it (decision 018). No component handles
 * those keys: the e-mail field is uncontrolled, so the browser alone types them and hydration keeps what was typed.
 * Kept from React until hydration commits, they do not make it hydrate the page at once in the keystroke (0.3 s
 * at 4× CPU slowdown); hydration runs in slices between them instead. Presses, clicks and submits still reach React.
 */
function keepTypingFromHydration(): () => void {
  const stop = (event: Event) => event.stopPropagation();
  for (const type of TYPING_EVENTS) window.addEventListener(type, stop, { capture: true });
  return () => {
    for (const type of TYPING_EVENTS) window.removeEventListener(type, stop, { capture: true });
  };
}

/** Renders nothing; its layout effect runs as the hydrated page commits. */
function OnHydrated({ then }: { then: () => void }) {
  useLayoutEffect(then, [then]);
  return null;
}

/** The boot gave up waiting and the form works as without JavaScript, its question in place: React must not take it. */
const html = document.documentElement;
if (!html.dataset[BOOT_STATE]) {
  html.dataset[BOOT_STATE] = "hydrating";
  const passTypingToReact = keepTypingFromHydration();
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <RemixBrowser />
        <OnHydrated then={passTypingToReact} />
      </StrictMode>,
    );
  });
}

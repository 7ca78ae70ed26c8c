import type { BrowserContext, Page } from "@playwright/test";

/**
 * A small stand-in for https://js.hcaptcha.com/1/api.js: `window.hcaptcha`
 * with what @hcaptcha/react-hcaptcha calls (render/reset/remove/getResponse/
 * getRespKey), whose widget is a
 * button that "solves" the captcha with a unique token. It then calls the
 * onload callback named in its own query string, as the real script does.
 * `window.hcaptcha.expireAll()` lets a test make every token expire.
 */
export const FAKE_HCAPTCHA_API = `(() => {
  const widgets = new Map();
  let nextId = 0;
  const byId = (id) => widgets.get(String(id));
  const show = (widget) => {
    widget.box.textContent = widget.response ? "Verificado" : "Não sou um robô";
    widget.box.setAttribute("aria-pressed", widget.response ? "true" : "false");
    widget.box.dataset.resets = String(widget.resets);
  };
  window.hcaptcha = {
    render(container, params) {
      const id = String(++nextId);
      const host = typeof container === "string" ? document.getElementById(container) : container;
      const box = document.createElement("button");
      box.type = "button";
      box.dataset.testid = "fake-hcaptcha";
      const widget = { params, box, response: "", resets: 0 };
      box.addEventListener("click", () => {
        widget.response = "fake-token-" + Math.random().toString(36).slice(2);
        show(widget);
        if (params.callback) params.callback(widget.response);
      });
      widgets.set(id, widget);
      show(widget);
      host.appendChild(box);
      return id;
    },
    reset(id) {
      const widget = byId(id);
      if (!widget) return;
      widget.response = "";
      widget.resets += 1;
      show(widget);
    },
    remove(id) {
      const widget = byId(id);
      if (!widget) return;
      widget.box.remove();
      widgets.delete(String(id));
    },
    getResponse(id) { return byId(id)?.response ?? ""; },
    getRespKey() { return "fake-resp-key"; },
    expireAll() {
      for (const widget of widgets.values()) {
        widget.response = "";
        show(widget);
        const expired = widget.params["expired-callback"];
        if (expired) expired();
      }
    },
  };
  const onload = new URL(document.currentScript.src).searchParams.get("onload");
  if (onload && typeof window[onload] === "function") window[onload]();
})();`;

export const HCAPTCHA_SCRIPT = /^https:\/\/js\.hcaptcha\.com\//;

/** Serves the fake instead of hCaptcha's script, to one page or to every page of a context. */
export const fakeHcaptcha = (target: Page | BrowserContext) =>
  target.route(HCAPTCHA_SCRIPT, (route) =>
    // react-hcaptcha loads the script with crossorigin="anonymous".
    route.fulfill({
      contentType: "application/javascript",
      headers: { "access-control-allow-origin": "*" },
      body: FAKE_HCAPTCHA_API,
    }),
  );

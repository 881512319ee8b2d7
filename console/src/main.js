// The console: sign-in, then one page per area, routed by the URL's hash so that it works at any
// path prefix (`#/dns`, `#/dns/<zone id>`).

import { signedIn, signIn, signOut, signUp } from "./api.js";
import { banner, field, fieldsOf, h, mount, showProblem } from "./ui.js";
import { dnsPage, zonePage } from "./dns.js";
import { parcelsPage } from "./parcels.js";
import { demPage } from "./dem.js";
import { eoPage } from "./eo.js";
import { cloudPage, pointcloudPage } from "./pointcloud.js";
import { twinPage, twinsPage } from "./twin.js";
import { keysPage, subscriptionPage, webhooksPage } from "./account.js";

const app = document.getElementById("app");

const AREAS = [
  ["#/dns", "DNS"],
  ["#/parcels", "Parcels"],
  ["#/dem", "DEM"],
  ["#/eo", "Earth observation"],
  ["#/pointcloud", "Point clouds"],
  ["#/twin", "Twins"],
  ["#/webhooks", "Webhooks"],
  ["#/keys", "API keys"],
];

function layout(current, content) {
  const nav = h(
    "nav",
    { "aria-label": "Areas" },
    h(
      "ul",
      {},
      AREAS.map(([href, label]) =>
        h("li", {}, h("a", { href, "aria-current": current === href ? "page" : false }, label)),
      ),
    ),
    h(
      "button",
      {
        type: "button",
        class: "link",
        onclick: () => {
          signOut();
          go("#/");
        },
      },
      "Sign out",
    ),
  );
  const main = h("main", { id: "main", tabindex: "-1" }, content);
  mount(app, h("header", {}, h("span", { class: "brand" }, "Meridian"), nav), main);
  return main;
}

function signInPage() {
  const errors = banner();
  const key = field("API key", { name: "key", type: "password", autocomplete: "off", required: true });
  const form = h(
    "form",
    {
      class: "card",
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          await signIn(key.input.value.trim());
          go("#/dns");
        } catch (p) {
          showProblem(p, errors, fieldsOf(form));
        }
      },
    },
    h("h2", {}, "Sign in"),
    errors,
    key,
    h("button", { type: "submit" }, "Sign in"),
  );
  const upErrors = banner();
  const name = field("Name", { name: "name", required: true, autocomplete: "name" });
  const email = field("Email", { name: "email", type: "email", required: true, autocomplete: "email" });
  const shown = h("div", { "aria-live": "polite" });
  const up = h(
    "form",
    {
      class: "card",
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const made = await signUp(name.input.value, email.input.value);
          showProblem(null, upErrors, fieldsOf(up));
          await signIn(made.api_key);
          mount(
            shown,
            h("p", {}, "Your API key, shown this once. Keep it: the console keeps it only for this tab."),
            h("code", { class: "secret", "data-testid": "new-key" }, made.api_key),
            h("p", {}, h("a", { href: "#/dns" }, "Continue to the console")),
          );
        } catch (p) {
          showProblem(p, upErrors, fieldsOf(up));
        }
      },
    },
    h("h2", {}, "Create an account"),
    upErrors,
    name,
    email,
    h("button", { type: "submit" }, "Create account"),
    shown,
  );
  mount(
    app,
    h("header", {}, h("span", { class: "brand" }, "Meridian")),
    h("main", { id: "main", class: "narrow" }, h("h1", {}, "Meridian console"), form, up),
  );
}

async function route() {
  const hash = window.location.hash || "#/";
  if (!signedIn()) {
    signInPage();
    return;
  }
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts[0] === "twin" && parts[1]) {
    await twinPage(layout("#/twin", h("p", {}, "Loading…")), decodeURIComponent(parts[1]));
  } else if (parts[0] === "twin") {
    await twinsPage(layout("#/twin", h("p", {}, "Loading…")));
  } else if (parts[0] === "pointcloud" && parts[1]) {
    await cloudPage(layout("#/pointcloud", h("p", {}, "Loading…")), decodeURIComponent(parts[1]));
  } else if (parts[0] === "pointcloud") {
    await pointcloudPage(layout("#/pointcloud", h("p", {}, "Loading…")));
  } else if (parts[0] === "eo") {
    await eoPage(layout("#/eo", h("p", {}, "Loading…")));
  } else if (parts[0] === "webhooks" && parts[1]) {
    await subscriptionPage(layout("#/webhooks", h("p", {}, "Loading…")), decodeURIComponent(parts[1]));
  } else if (parts[0] === "webhooks") {
    await webhooksPage(layout("#/webhooks", h("p", {}, "Loading…")));
  } else if (parts[0] === "keys") {
    await keysPage(layout("#/keys", h("p", {}, "Loading…")));
  } else if (parts[0] === "dem") {
    await demPage(layout("#/dem", h("p", {}, "Loading…")), parts[1] && decodeURIComponent(parts[1]));
  } else if (parts[0] === "parcels") {
    await parcelsPage(layout("#/parcels", h("p", {}, "Loading…")));
  } else if (parts[0] === "dns" && parts[1]) {
    await zonePage(layout("#/dns", h("p", {}, "Loading…")), decodeURIComponent(parts[1]));
  } else {
    await dnsPage(layout("#/dns", h("p", {}, "Loading…")));
  }
  document.getElementById("main")?.focus();
}

/**
 * Shows the page of `hash`, once: through the hashchange event when the hash changes (a second,
 * direct call would draw the page twice, and whatever was typed into the first would be lost).
 */
function go(hash) {
  if (window.location.hash === hash) route();
  else window.location.hash = hash;
}

window.addEventListener("hashchange", route);
route();

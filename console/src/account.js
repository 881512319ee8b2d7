// Webhooks and API keys: subscriptions (the secret shown once, rotation, a test event, the
// delivery log with every attempt, redelivery) and the account's keys (scopes, expiry, revoke).

import { call, nextLink } from "./api.js";
import { banner, field, fieldsOf, h, mount, showProblem, table } from "./ui.js";

/**
 * Rows of a paged list into `body`; answers a function that loads the next page (or null). Each
 * row carries its item's id (`data-id`): an item already shown (created on the page while the
 * list was loading) is not shown twice.
 */
function pager(path, key, body, row, status) {
  let next = path;
  return async function more() {
    if (!next) return null;
    const r = await call("GET", next);
    for (const item of r.body[key]) {
      if (item.id && [...body.children].some((tr) => tr.dataset.id === item.id)) continue;
      body.append(row(item));
    }
    next = nextLink(r.headers);
    status.textContent = `${body.children.length} of ${r.body.total}`;
    return next;
  };
}

function secretBox(label, secret) {
  return h("div", { class: "card", role: "status" }, h("p", {}, `${label}, shown this once:`), h("code", { class: "secret", "data-testid": "secret" }, secret));
}

export async function webhooksPage(main) {
  const errors = banner();
  const url = field("Endpoint URL", { name: "url", type: "url", required: true, placeholder: "https://hooks.example.com/meridian", size: 40 });
  const events = field("Events", { name: "events", required: true, placeholder: "dns.*, cadastre.parcel.registered", size: 40 });
  const description = field("Description", { name: "description" });
  const shown = h("div");
  const body = h("tbody");
  const status = h("p", { class: "muted" });
  const row = (s) =>
    h(
      "tr",
      { "data-id": s.id },
      h("td", {}, h("a", { href: `#/webhooks/${s.id}` }, s.url)),
      h("td", {}, (s.events || []).join(", ")),
      h("td", {}, s.status),
      h("td", {}, s.description || ""),
    );
  const more = pager("/api/v1/webhooks/subscriptions?limit=50", "subscriptions", body, row, status);
  const form = h(
    "form",
    {
      class: "inline",
      "aria-label": "New subscription",
      onsubmit: async (e) => {
        e.preventDefault();
        const list = events.input.value.split(",").map((v) => v.trim()).filter(Boolean);
        try {
          const r = await call("POST", "/api/v1/webhooks/subscriptions", {
            body: { url: url.input.value.trim(), events: list, description: description.input.value.trim() || undefined },
          });
          showProblem(null, errors, fieldsOf(form));
          mount(shown, secretBox("The signing secret", r.body.secret), h("p", {}, h("a", { href: `#/webhooks/${r.body.id}` }, "Open the subscription")));
          body.prepend(row(r.body));
        } catch (p) {
          showProblem(p, errors, fieldsOf(form));
        }
      },
    },
    url,
    events,
    description,
    h("button", { type: "submit" }, "Subscribe"),
  );
  let types = [];
  try {
    types = (await call("GET", "/api/v1/webhooks/event-types")).body.event_types || [];
  } catch {
    types = [];
  }
  mount(
    main,
    h("h1", {}, "Webhooks"),
    errors,
    form,
    types.length ? h("p", { class: "muted" }, `Event types: ${types.map((t) => t.name || t).join(", ")} (a trailing * matches a family).`) : "",
    shown,
    table("Subscriptions", ["Endpoint", "Events", "Status", "Description"], body),
    status,
  );
  try {
    await more();
  } catch (p) {
    showProblem(p, errors);
  }
}

export async function subscriptionPage(main, id) {
  const errors = banner();
  let sub;
  try {
    sub = (await call("GET", `/api/v1/webhooks/subscriptions/${id}`)).body;
  } catch (p) {
    mount(main, h("h1", {}, "Subscription"), errors);
    showProblem(p, errors);
    return;
  }
  const shown = h("div");
  const info = h("p", { class: "muted", "aria-live": "polite" });
  const describe = () => {
    info.textContent = `${sub.status}${sub.paused_reason ? ` (${sub.paused_reason})` : ""} · events ${sub.events.join(", ")}`;
  };
  describe();
  const body = h("tbody");
  const status = h("p", { class: "muted", "aria-live": "polite", "data-testid": "deliveries-status" });
  const deliveryRow = (d) => {
    const last = (d.attempts || []).at(-1);
    const tr = h(
      "tr",
      { "data-delivery": d.id },
      h("td", {}, d.event_type),
      h("td", {}, d.status),
      h("td", {}, String(d.attempt_count ?? (d.attempts || []).length)),
      h("td", {}, last ? (last.status_code != null ? `HTTP ${last.status_code}` : last.error || "") : ""),
      h("td", {}, d.created_at),
      h(
        "td",
        { class: "actions" },
        h("button", { type: "button", onclick: () => showAttempts(d.id), "aria-label": `Attempts of ${d.id}` }, "Attempts"),
        h(
          "button",
          {
            type: "button",
            "aria-label": `Redeliver ${d.id}`,
            onclick: async () => {
              try {
                await call("POST", `/api/v1/webhooks/deliveries/${d.id}/redeliver`);
                await reload();
              } catch (p) {
                showProblem(p, errors);
              }
            },
          },
          "Redeliver",
        ),
      ),
    );
    return tr;
  };
  const attempts = h("section", { "aria-live": "polite" });
  async function showAttempts(deliveryId) {
    try {
      const d = (await call("GET", `/api/v1/webhooks/deliveries/${deliveryId}`)).body;
      mount(
        attempts,
        h("h2", {}, `Attempts of ${d.id}`),
        table(
          "Attempts",
          ["When", "Response", "Error", "Latency (ms)"],
          h(
            "tbody",
            {},
            (d.attempts || []).map((a) =>
              h("tr", {}, h("td", {}, a.attempted_at), h("td", {}, a.status_code ?? ""), h("td", {}, a.error ?? ""), h("td", {}, String(a.latency_ms ?? ""))),
            ),
          ),
        ),
      );
    } catch (p) {
      showProblem(p, errors);
    }
  }
  async function reload() {
    body.replaceChildren();
    await pager(`/api/v1/webhooks/subscriptions/${id}/deliveries?limit=50`, "deliveries", body, deliveryRow, status)();
  }
  const action = (label, fn) =>
    h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            await fn();
            showProblem(null, errors);
          } catch (p) {
            showProblem(p, errors);
          }
        },
      },
      label,
    );
  mount(
    main,
    h("p", {}, h("a", { href: "#/webhooks" }, "All subscriptions")),
    h("h1", {}, sub.url),
    info,
    errors,
    h(
      "div",
      {},
      action("Send a test event", async () => {
        await call("POST", `/api/v1/webhooks/subscriptions/${id}/test`);
        await new Promise((r) => setTimeout(r, 300));
        await reload();
      }),
      action("Rotate the secret", async () => {
        const r = await call("POST", `/api/v1/webhooks/subscriptions/${id}/rotate-secret`);
        mount(shown, secretBox("The new signing secret (the old one is accepted until it expires)", r.body.secret));
      }),
      action(sub.status === "paused" ? "Resume" : "Pause", async () => {
        const r = await call("PATCH", `/api/v1/webhooks/subscriptions/${id}`, { body: { status: sub.status === "paused" ? "active" : "paused" } });
        sub = r.body;
        describe();
      }),
      action("Refresh the log", reload),
      action("Delete", async () => {
        if (!window.confirm(`Delete the subscription to ${sub.url}?`)) return;
        await call("DELETE", `/api/v1/webhooks/subscriptions/${id}`);
        window.location.hash = "#/webhooks";
      }),
    ),
    shown,
    table("Deliveries", ["Event", "Status", "Attempts", "Last answer", "Created", ""], body),
    status,
    attempts,
  );
  await reload();
}

export async function keysPage(main) {
  const errors = banner();
  const name = field("Key name", { name: "name", required: true });
  const scopes = field("Scopes", { name: "scopes", placeholder: "dns:write, jobs:read (empty: all)", size: 30 });
  const days = field("Expires in (days)", { name: "expires_in", type: "number", min: 1, max: 3650 });
  const shown = h("div");
  const body = h("tbody");
  const status = h("p", { class: "muted" });
  const row = (k) => {
    const tr = h(
      "tr",
      { "data-id": k.id },
      h("td", {}, k.name),
      h("td", {}, h("code", {}, k.prefix || "")),
      h("td", {}, (k.scopes || []).join(", ") || "all"),
      h("td", {}, k.expires_at || "never"),
      h("td", {}, k.created_at),
      h(
        "td",
        {},
        h(
          "button",
          {
            type: "button",
            "aria-label": `Revoke ${k.name}`,
            onclick: async () => {
              if (!window.confirm(`Revoke the key ${k.name}? Its tokens stop working too.`)) return;
              try {
                await call("DELETE", `/api/v1/account/api-keys/${k.id}`);
                tr.remove();
              } catch (p) {
                showProblem(p, errors);
              }
            },
          },
          "Revoke",
        ),
      ),
    );
    return tr;
  };
  const form = h(
    "form",
    {
      class: "inline",
      "aria-label": "New API key",
      onsubmit: async (e) => {
        e.preventDefault();
        const list = scopes.input.value.split(",").map((v) => v.trim()).filter(Boolean);
        const b = { name: name.input.value.trim() };
        if (list.length) b.scopes = list;
        if (days.input.value) b.expires_in = Math.round(Number(days.input.value) * 86400);
        try {
          const r = await call("POST", "/api/v1/account/api-keys", { body: b });
          showProblem(null, errors, fieldsOf(form));
          mount(shown, secretBox("The new API key", r.body.api_key || r.body.key));
          body.prepend(row(r.body.api_key_info || r.body));
        } catch (p) {
          showProblem(p, errors, fieldsOf(form));
        }
      },
    },
    name,
    scopes,
    days,
    h("button", { type: "submit" }, "Create key"),
  );
  mount(main, h("h1", {}, "API keys"), errors, form, shown, table("Keys", ["Name", "Prefix", "Scopes", "Expires", "Created", ""], body), status);
  try {
    await pager("/api/v1/account/api-keys?limit=50", "api_keys", body, row, status)();
  } catch (p) {
    showProblem(p, errors);
  }
}

// DNS: zones (paged by the API's next links), a zone's records (create, edit, delete inline, with
// the API's validation messages under the fields), zone files in and out, DNSSEC with the DS
// record to copy, and the zone's change history (its `dns.*` events, newest first).

import { call, nextLink } from "./api.js";
import { banner, field, fieldsOf, h, mount, showProblem, table } from "./ui.js";

const TYPES = ["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "CAA", "PTR"];
const EXTRA = { MX: ["priority"], SRV: ["priority", "weight", "port"], CAA: ["tag", "flags"] };

/** A table whose rows come page by page from `path`, with a "More" button while there is a next link. */
function pagedTable(caption, headers, path, key, row) {
  const body = h("tbody");
  const more = h("button", { type: "button" }, "More");
  const status = h("p", { class: "muted", "aria-live": "polite" });
  const errors = banner();
  let next = path;
  async function load() {
    more.disabled = true;
    try {
      const r = await call("GET", next);
      for (const item of r.body[key]) body.append(row(item));
      next = nextLink(r.headers);
      status.textContent = `${body.children.length} of ${r.body.total}`;
      more.hidden = !next;
    } catch (p) {
      showProblem(p, errors);
    }
    more.disabled = false;
  }
  more.addEventListener("click", load);
  /** Reads the list again from its first page. */
  async function reload() {
    body.replaceChildren();
    next = path;
    await load();
  }
  return { el: h("div", {}, errors, table(caption, headers, body), status, more), load, reload, body };
}

export async function dnsPage(main) {
  const errors = banner();
  const name = field("Zone name", { name: "name", required: true, placeholder: "example.com" });
  const zones = pagedTable("Zones", ["Name", "Records", "Serial", "DNSSEC"], "/v1/dns/zones?limit=50", "zones", (z) =>
    h(
      "tr",
      {},
      h("td", {}, h("a", { href: `#/dns/${encodeURIComponent(z.id)}` }, z.name)),
      h("td", {}, String(z.records)),
      h("td", {}, String(z.soa_serial ?? "")),
      h("td", {}, z.dnssec),
    ),
  );
  const form = h(
    "form",
    {
      class: "inline",
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const r = await call("POST", "/v1/dns/zones", { body: { name: name.input.value.trim() } });
          showProblem(null, errors, fieldsOf(form));
          window.location.hash = `#/dns/${encodeURIComponent(r.body.id)}`;
        } catch (p) {
          showProblem(p, errors, fieldsOf(form));
        }
      },
    },
    name,
    h("button", { type: "submit" }, "Create zone"),
  );
  mount(main, h("h1", {}, "DNS zones"), h("section", { "aria-label": "New zone" }, errors, form), zones.el);
  await zones.load();
}

function recordFields(type, values = {}) {
  const out = [
    field("Name", { name: "name", value: values.name ?? "", placeholder: "www, @, _sip._tcp" }),
    field("Content", { name: "content", value: values.content ?? "", required: true }),
    field("TTL", { name: "ttl", type: "number", min: 60, max: 86400, value: values.ttl ?? 3600 }),
  ];
  for (const extra of EXTRA[type] || []) {
    out.push(field(extra[0].toUpperCase() + extra.slice(1), { name: extra, value: values[extra] ?? "" }));
  }
  return out;
}

function recordBody(fields, type) {
  const body = type ? { type } : {};
  for (const [name, wrap] of Object.entries(fields)) {
    if (name === "type") continue;
    const v = wrap.input.value.trim();
    if (v === "") continue;
    body[name] = ["ttl", "priority", "weight", "port", "flags"].includes(name) ? Number(v) : v;
  }
  return body;
}

export async function zonePage(main, zoneId) {
  const errors = banner();
  let zone;
  try {
    zone = (await call("GET", `/v1/dns/zones/${zoneId}`)).body;
  } catch (p) {
    mount(main, h("h1", {}, "Zone"), errors);
    showProblem(p, errors);
    return;
  }
  const base = `/v1/dns/zones/${zoneId}`;
  const heading = h("h1", {}, zone.name);
  const summary = h("p", { class: "muted", "aria-live": "polite" });
  // The history: every change to the zone as its webhook receivers got it.
  const changes = pagedTable("Changes", ["When", "Change", "Record", "Content"], `${base}/changes?limit=20`, "changes", (c) =>
    h(
      "tr",
      { "data-event": c.event },
      h("td", {}, c.timestamp),
      h("td", {}, c.event.replace(/^dns\./, "")),
      h("td", {}, c.record ? `${c.record.name} ${c.record.type}` : ""),
      h("td", {}, c.record?.content ?? ""),
    ),
  );
  let summarised = false;
  async function refreshSummary() {
    const z = (await call("GET", base)).body;
    summary.textContent = `${z.records} records · serial ${z.soa_serial} · DNSSEC ${z.dnssec}`;
    // Every change goes through here: the history is read again after each one.
    if (summarised) await changes.reload();
    summarised = true;
  }

  // New record: the type chooses the extra fields.
  const addErrors = banner();
  const type = field("Type", { name: "type" }, "select", TYPES);
  const extra = h("div", { class: "fields" });
  const add = h("form", { class: "inline", "aria-label": "New record" });
  function drawAdd() {
    mount(extra, recordFields(type.input.value));
  }
  type.input.addEventListener("change", drawAdd);
  drawAdd();
  add.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const r = await call("POST", `${base}/records`, { body: recordBody(fieldsOf(add), type.input.value) });
      showProblem(null, addErrors, fieldsOf(add));
      records.body.prepend(recordRow(r.body));
      for (const w of Object.values(fieldsOf(add))) if (w.input.name === "content") w.input.value = "";
      await refreshSummary();
    } catch (p) {
      showProblem(p, addErrors, fieldsOf(add));
    }
  });
  mount(add, type, extra, h("button", { type: "submit" }, "Add record"));

  const records = pagedTable("Records", ["Name", "Type", "Content", "TTL", ""], `${base}/records?limit=100`, "records", (r) =>
    recordRow(r),
  );

  function recordRow(r) {
    const tr = h("tr", { "data-record": r.id });
    const view = () =>
      mount(
        tr,
        h("td", {}, r.name),
        h("td", {}, r.type),
        h("td", { class: "content" }, r.content, r.priority != null ? ` (priority ${r.priority})` : ""),
        h("td", {}, String(r.ttl)),
        h(
          "td",
          { class: "actions" },
          h("button", { type: "button", onclick: edit, "aria-label": `Edit ${r.type} ${r.name}` }, "Edit"),
          h("button", { type: "button", onclick: remove, "aria-label": `Delete ${r.type} ${r.name}` }, "Delete"),
        ),
      );
    async function edit() {
      const rowErrors = banner();
      const form = h("form", { class: "inline", "aria-label": `Edit ${r.type} ${r.name}` });
      const fields = recordFields(r.type, r);
      form.addEventListener("submit", async (e) => {
        e.preventDefault();
        try {
          // The record's ETag guards the change: someone else's edit in between is a 412.
          const current = await call("GET", `${base}/records/${r.id}`);
          const changed = await call("PATCH", `${base}/records/${r.id}`, {
            body: recordBody(fieldsOf(form)),
            headers: { "If-Match": current.headers.get("etag") },
          });
          r = changed.body;
          view();
          await refreshSummary();
        } catch (p) {
          showProblem(p, rowErrors, fieldsOf(form));
        }
      });
      mount(
        form,
        fields,
        h("button", { type: "submit" }, "Save"),
        h("button", { type: "button", onclick: view }, "Cancel"),
      );
      mount(tr, h("td", { colspan: 5 }, rowErrors, form));
      fields[1].input.focus();
    }
    async function remove() {
      if (!window.confirm(`Delete ${r.type} ${r.name} ${r.content}?`)) return;
      try {
        await call("DELETE", `${base}/records/${r.id}`);
        tr.remove();
        await refreshSummary();
      } catch (p) {
        showProblem(p, errors);
      }
    }
    view();
    return tr;
  }

  // Zone files.
  const fileErrors = banner();
  const zoneFile = field("Zone file to import", { name: "file", rows: 6, spellcheck: "false" }, "textarea");
  const importResult = h("div", { "aria-live": "polite" });
  const exportButton = h(
    "button",
    {
      type: "button",
      onclick: async () => {
        try {
          const r = await call("GET", `${base}/export`, { raw: true });
          const url = URL.createObjectURL(new Blob([r.body], { type: "text/dns" }));
          const a = h("a", { href: url, download: `${zone.name}.zone` });
          document.body.append(a);
          a.click();
          a.remove();
          setTimeout(() => URL.revokeObjectURL(url), 1000);
        } catch (p) {
          showProblem(p, fileErrors);
        }
      },
    },
    "Export zone file",
  );
  const importForm = h(
    "form",
    {
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const r = await call("POST", `${base}/import`, { body: zoneFile.input.value, contentType: "text/dns" });
          showProblem(null, fileErrors);
          mount(
            importResult,
            h("p", {}, `${r.body.added.length} added, ${r.body.skipped.length} skipped.`),
            r.body.skipped.length
              ? h("ul", {}, r.body.skipped.map((s) => h("li", {}, `line ${s.line}: ${s.name} ${s.type}: ${s.reason}`)))
              : "",
          );
          await records.reload();
          await refreshSummary();
        } catch (p) {
          showProblem(p, fileErrors);
        }
      },
    },
    zoneFile,
    h("button", { type: "submit" }, "Import"),
  );

  // DNSSEC.
  const dnssec = h("div", { "aria-live": "polite" });
  const dnssecErrors = banner();
  async function drawDnssec() {
    try {
      const s = (await call("GET", `${base}/dnssec`)).body;
      const on = s.status !== "disabled";
      mount(
        dnssec,
        h("p", {}, `Status: ${s.status}`),
        (s.ds || []).map((ds) =>
          h(
            "div",
            { class: "ds" },
            h("code", {}, ds.ds),
            h(
              "button",
              { type: "button", onclick: () => navigator.clipboard?.writeText(ds.ds), "aria-label": "Copy the DS record" },
              "Copy",
            ),
          ),
        ),
        h(
          "button",
          {
            type: "button",
            onclick: async () => {
              try {
                await call(on ? "DELETE" : "POST", `${base}/dnssec`);
                await drawDnssec();
                await refreshSummary();
              } catch (p) {
                showProblem(p, dnssecErrors);
              }
            },
          },
          on ? "Stop signing" : "Sign the zone",
        ),
      );
    } catch (p) {
      showProblem(p, dnssecErrors);
    }
  }

  mount(
    main,
    h("p", {}, h("a", { href: "#/dns" }, "All zones")),
    heading,
    summary,
    errors,
    h("section", { "aria-labelledby": "new-record" }, h("h2", { id: "new-record" }, "New record"), addErrors, add),
    h("section", { "aria-label": "Records" }, records.el),
    h(
      "section",
      { "aria-labelledby": "zone-files" },
      h("h2", { id: "zone-files" }, "Zone file"),
      fileErrors,
      exportButton,
      importForm,
      importResult,
    ),
    h("section", { "aria-labelledby": "dnssec" }, h("h2", { id: "dnssec" }, "DNSSEC"), dnssecErrors, dnssec),
    h("section", { "aria-label": "Change history", "data-testid": "changes" }, changes.el),
  );
  await Promise.all([refreshSummary(), records.load(), drawDnssec(), changes.load()]);
}

// Small DOM helpers: elements, labelled fields, and problem documents shown where they belong.

/** `h("button", {onclick}, "text", child)`: an element with attributes and children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

let ids = 0;

/**
 * A labelled input: `field("Name", {name: "name", required: true})`. Answers the wrapper; its
 * input is `.input`, its error line `.error` (tied to the input by aria-describedby).
 */
export function field(label, attrs = {}, kind = "input", options = []) {
  const id = `f${++ids}`;
  const errorId = `${id}-error`;
  const input =
    kind === "select"
      ? h("select", { id, "aria-describedby": errorId, ...attrs }, options.map((o) => h("option", { value: o }, o)))
      : kind === "textarea"
        ? h("textarea", { id, "aria-describedby": errorId, ...attrs })
        : h("input", { id, "aria-describedby": errorId, ...attrs });
  const error = h("span", { class: "field-error", id: errorId, role: "status" });
  const wrap = h("div", { class: "field" }, h("label", { for: id }, label), input, error);
  wrap.input = input;
  wrap.error = error;
  return wrap;
}

/** A form's fields by name, for `showProblem`. */
export function fieldsOf(form) {
  const out = {};
  for (const wrap of form.querySelectorAll(".field")) {
    const input = wrap.querySelector("input, select, textarea");
    if (input && input.name) out[input.name] = wrap;
  }
  return out;
}

/**
 * Shows a problem: each field error under its field (by the last segment of its JSON pointer),
 * the rest (title, detail, errors of no field here) in `banner`.
 */
export function showProblem(problem, banner, fields = {}) {
  for (const wrap of Object.values(fields)) {
    wrap.error.textContent = "";
    wrap.input.removeAttribute("aria-invalid");
  }
  banner.textContent = "";
  banner.hidden = true;
  if (!problem) return;
  const doc = problem.doc || { title: String(problem.message || problem) };
  const rest = [];
  const byField = problem.fields ? problem.fields() : {};
  for (const [pointer, message] of Object.entries(byField)) {
    const name = pointer.split("/").filter(Boolean).pop();
    const wrap = name && fields[name];
    if (wrap) {
      wrap.error.textContent = message;
      wrap.input.setAttribute("aria-invalid", "true");
    } else {
      rest.push(`${pointer || "(request)"}: ${message}`);
    }
  }
  banner.append(
    h("strong", {}, doc.title || "Error"),
    doc.detail ? h("span", {}, ` ${doc.detail}`) : "",
    rest.length ? h("ul", {}, rest.map((r) => h("li", {}, r))) : "",
  );
  banner.hidden = false;
}

/** A live region for a page's errors. */
export function banner() {
  return h("div", { class: "problem", role: "alert", hidden: true });
}

/** A table with a caption, column headers (none when `headers` is empty) and `body` (a tbody). */
export function table(caption, headers, body, attrs = {}) {
  const head = headers.length ? h("thead", {}, h("tr", {}, headers.map((t) => h("th", { scope: "col" }, t)))) : null;
  return h("table", attrs, h("caption", {}, caption), head, body);
}

/** A two-column table of an object's properties (objects shown as JSON). */
export function propsTable(caption, props) {
  const cell = (v) => (typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));
  return table(
    caption,
    [],
    h("tbody", {}, Object.entries(props || {}).map(([k, v]) => h("tr", {}, h("th", { scope: "row" }, k), h("td", {}, cell(v))))),
    { class: "props" },
  );
}

/** Replaces the children of `el`. */
export function mount(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

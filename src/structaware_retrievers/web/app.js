// structaware search page: plain JavaScript, no build step, no network beyond this server.
// State lives in the URL: /?q=...&doc=...&type=...&grade=...&page=3-5&k=5&mode=hybrid searches;
// /?unit=<unit id>&with=<group row ids> shows one hit (a stable link to its page and outline).
"use strict";

const $ = (sel) => document.querySelector(sel);
const FIELDS = ["q", "doc", "type", "grade", "page", "k", "mode"];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function status(message, isError = false) {
  const node = $("#status");
  node.textContent = message;
  node.classList.toggle("error", isError);
}

async function getJSON(url, options) {
  const response = await fetch(url, options);
  const body = await response.json().catch(() => ({ message: response.statusText }));
  if (!response.ok) throw new Error(body.detail || body.message || response.statusText);
  return body;
}

function pageRange(text) {
  const m = /^\s*(\d+)\s*(?:-\s*(\d*)\s*)?$/.exec(text || "");
  if (!m) return {};
  const from = Number(m[1]);
  if (m[2] === undefined) return { page_from: from, page_to: from };
  return m[2] === "" ? { page_from: from } : { page_from: from, page_to: Number(m[2]) };
}

function searchBody(params) {
  const filter = {};
  if (params.get("doc")) filter.doc_names = [params.get("doc")];
  if (params.get("type")) filter.unit_types = [params.get("type")];
  if (params.get("grade")) filter.grades = params.get("grade").split(",").map((g) => g.trim()).filter(Boolean);
  Object.assign(filter, pageRange(params.get("page")));
  const body = { text: params.get("q"), k: Number(params.get("k") || 5), mode: params.get("mode") || "hybrid" };
  if (Object.keys(filter).length) body.filter = filter;
  return body;
}

function hitLink(record) {
  const params = new URLSearchParams({ unit: record.unit_id });
  if (record.group_unit_ids && record.group_unit_ids.length) params.set("with", record.group_unit_ids.join(","));
  return "/?" + params.toString();
}

function imageURL(record, page) {
  const params = new URLSearchParams({ unit: record.unit_id, page: String(page) });
  if (record.group_unit_ids && record.group_unit_ids.length) params.set("with", record.group_unit_ids.join(","));
  return "/image?" + params.toString();
}

function gradeText(grade) {
  if (!grade || !(grade.grade || grade.strength)) return null;
  const against = grade.direction === "against" ? "against" : "";
  return ["Grade", grade.grade, grade.strength, against].filter(Boolean).join(" ");
}

function renderText(record) {
  const lines = record.unit_type === "table_row" ? record.text.split("\n") : [record.text];
  return el("div", { class: "text" }, lines.map((line) => el("span", { class: lines.length > 1 ? "row" : "" }, line)));
}

function renderPages(record) {
  const box = el("div", { class: "pages" });
  for (const page of record.pages) {
    const url = imageURL(record, page);
    // the regions outlined on this page (0..1 of the page, origin top-left), as the image draws them
    const boxes = record.bboxes.filter((box, i) => box && record.element_pages[i] === page);
    const img = el("img", {
      src: url,
      alt: `Page ${page} of ${record.doc} with the ${record.unit_type.replace("_", " ")} outlined`,
      loading: "lazy",
      "data-page": String(page),
      "data-bboxes": JSON.stringify(boxes),
    });
    img.addEventListener("error", async () => {
      let message = "page image unavailable";
      try { await getJSON(url); } catch (err) { message = err.message; }
      img.replaceWith(el("div", { class: "missing", role: "note" }, message));
    });
    box.append(el("figure", {}, el("a", { href: url, target: "_blank", title: "open the page image" }, img),
      el("figcaption", {}, `p. ${page}`)));
  }
  return box;
}

function renderHit(record, index) {
  const grade = gradeText(record.grade);
  const heading = el("h2", {},
    el("a", { href: hitLink(record), class: "hit-link" },
      record.rank ? `${record.rank}. ` : "",
      el("span", { class: "badge type" }, record.unit_type),
      grade ? el("span", { class: "badge grade", title: `evidence grade (${record.grade.system})` }, grade) : null,
      `${record.doc} p. ${record.pages.join(", ")}`));
  const left = el("div", { class: "about" }, heading,
    record.context ? el("p", { class: "context" }, record.context) : null,
    renderText(record),
    el("p", { class: "where" }, `elements ${[...new Set(record.element_ids)].join(" + ")}` +
      (typeof record.score === "number" && record.rank ? ` · score ${record.score.toFixed(4)}` : "")));
  return el("li", {
    class: "hit",
    "data-unit-id": record.unit_id,
    "data-index": String(index),
  }, left, renderPages(record));
}

function show(records, summary) {
  const list = $("#results");
  list.replaceChildren(...records.map(renderHit));
  status(summary);
}

async function run() {
  const params = new URLSearchParams(location.search);
  for (const name of FIELDS) {
    const input = $("#" + name);
    if (input) input.value = params.get(name) || (name === "k" ? "5" : name === "mode" ? "hybrid" : "");
  }
  try {
    if (params.get("unit")) {
      const query = new URLSearchParams({ unit: params.get("unit") });
      if (params.get("with")) query.set("with", params.get("with"));
      const body = await getJSON("/unit?" + query.toString());
      show(body.hits, "one hit, by its unit id (a stable link)");
    } else if (params.get("q")) {
      status("searching...");
      const body = await getJSON("/query", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(searchBody(params)) });
      show(body.hits, body.hits.length ? `${body.hits.length} hits` : "no hits (a filter, or no shared term)");
    } else {
      show([], "");
    }
  } catch (err) {
    $("#results").replaceChildren();
    status(err.message, true);
  }
}

function submit(event) {
  event.preventDefault();
  const params = new URLSearchParams();
  for (const name of FIELDS) {
    const value = ($("#" + name).value || "").trim();
    if (value && !(name === "k" && value === "5") && !(name === "mode" && value === "hybrid")) params.set(name, value);
  }
  history.pushState(null, "", "/?" + params.toString());
  run();
}

function moveHit(step) {
  const links = [...document.querySelectorAll(".hit-link")];
  if (!links.length) return;
  const at = links.indexOf(document.activeElement);
  const next = links[Math.min(links.length - 1, Math.max(0, at === -1 ? 0 : at + step))];
  next.focus();
  next.closest(".hit").scrollIntoView({ block: "nearest" });
}

document.addEventListener("keydown", (event) => {
  const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName);
  if (event.key === "/" && !typing) { event.preventDefault(); $("#q").focus(); $("#q").select(); }
  else if (!typing && (event.key === "j" || event.key === "k")) { event.preventDefault(); moveHit(event.key === "j" ? 1 : -1); }
  else if (event.key === "Escape" && typing) document.activeElement.blur();
});

async function init() {
  $("#search").addEventListener("submit", submit);
  window.addEventListener("popstate", run);
  try {
    const [health, docs] = await Promise.all([getJSON("/health"), getJSON("/documents")]);
    $("#index-info").textContent = `${docs.documents.length} documents, ${health.units} units`;
    for (const d of docs.documents) $("#doc").append(el("option", { value: d.doc_name }, d.doc_name));
  } catch (err) {
    status(err.message, true);
  }
  await run();
  if (!new URLSearchParams(location.search).get("q")) $("#q").focus();
}

init();

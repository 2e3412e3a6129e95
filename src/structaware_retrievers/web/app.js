// structaware search page: plain JavaScript, no build step, no network beyond this server.
// The server renders every page with its hits (/?q=...&doc=...&type=...&grade=...&page=3-5&k=5&mode=hybrid
// searches; /?unit=<unit id>&with=<group row ids> shows one hit), so the page works without this script.
// The script enhances it: a search fetches the same page and swaps its results in (no reload, the URL kept
// in sync through history), a page image that cannot be drawn says why, and the keys below move between hits.
"use strict";

const $ = (sel) => document.querySelector(sel);
const DEFAULTS = { k: "5", mode: "hybrid" };  // left out of the URL, as the server assumes them

function status(message, isError = false) {
  const node = $("#status");
  node.textContent = message;
  node.classList.toggle("error", isError);
}

// A page image that cannot be drawn (no PDF at hand, a page out of range): the server's typed error instead.
function watchImage(img) {
  const fail = async () => {
    let message = "page image unavailable";
    try {
      const response = await fetch(img.src);
      const body = await response.json();
      message = body.detail || body.message || message;
    } catch (err) { /* keep the general message */ }
    const note = document.createElement("div");
    note.className = "missing";
    note.setAttribute("role", "note");
    note.textContent = message;
    img.replaceWith(note);
  };
  if (img.complete && img.naturalWidth === 0) fail();
  else img.addEventListener("error", fail, { once: true });
}

// Show the server's page for url: its results, status line, title and filters (the question box keeps focus).
async function load(url) {
  status(new URL(url, location.href).searchParams.get("q") ? "searching..." : "loading...");
  let page;
  try {
    const response = await fetch(url, { headers: { Accept: "text/html" } });
    page = new DOMParser().parseFromString(await response.text(), "text/html");
    if (!page.querySelector("#results")) throw new Error(`${response.status} ${response.statusText}`);
  } catch (err) {
    $("#results").replaceChildren();
    status(err.message, true);
    return;
  }
  $("#search .filters").replaceWith(page.querySelector("#search .filters"));
  if ($("#q").value !== page.querySelector("#q").value) $("#q").value = page.querySelector("#q").value;
  $("#results").replaceChildren(...page.querySelector("#results").childNodes);
  document.querySelectorAll("#results img").forEach(watchImage);
  const line = page.querySelector("#status");
  $("#status").replaceChildren(...line.childNodes);
  $("#status").className = line.className;
  document.title = page.title;
}

function submit(event) {
  event.preventDefault();
  const params = new URLSearchParams();
  for (const [name, value] of new FormData($("#search"))) {
    const text = String(value).trim();
    if (text && DEFAULTS[name] !== text) params.append(name, text);
  }
  const url = "/?" + params.toString();
  history.pushState(null, "", url);
  load(url);
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

function init() {
  $("#search").addEventListener("submit", submit);
  window.addEventListener("popstate", () => load(location.pathname + location.search));
  document.querySelectorAll("#results img").forEach(watchImage);
  document.documentElement.dataset.enhanced = "true";  // the script runs (the browser test tells both paths apart)
  if (!new URLSearchParams(location.search).get("q")) $("#q").focus();
}

init();

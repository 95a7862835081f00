// gpick pick: the picker page. No framework and no network beyond gpick's own server: every
// request names items by id and carries the token (the cookie for GETs, the header for changes).
"use strict";
const config = JSON.parse(document.getElementById("config").textContent);
// The request for the first rows' thumbnails that the page's head started, taken over at once
// (its answer comes in while the grid is built); the grid uses it if it asks for the same.
let preloaded = config.preload ? {url: config.preload, answer: fetch(config.preload)} : null;

// The preloaded answer if `url` is what it asked for; either way it is used once at most.
function takePreloaded(url) {
  const p = preloaded;
  preloaded = null;
  if (p && p.url === url) return p.answer;
  if (p) p.answer.then(r => r.body && r.body.cancel()).catch(() => {});
  return fetch(url);
}
const token = document.querySelector('meta[name="gpick-token"]').content;
const grid = document.getElementById("grid");
const statusLine = document.getElementById("status");
const confirmButton = document.getElementById("confirm");
const overlay = document.getElementById("overlay");
let cells = [];            // {kind: "action"|"camera"|"item", el, id?, name?, span, row, col}
let selected = [];         // item ids, in the order chosen
let focus = 0;
let ended = false;
let camera = null;         // {state, position, live, recording, reason}

grid.classList.add(config.scroll);
grid.style.setProperty("--per-row", config.columns);
grid.setAttribute("aria-multiselectable", config.multi ? "true" : "false");
grid.setAttribute("aria-label", config.camera ? "Camera, photos and videos" : "Photos and videos");

async function call(path, body) {
  const r = await fetch(path, {method: "POST", headers: {"X-Gpick-Token": token, "Content-Type": "application/json"},
                               body: JSON.stringify(body || {})});
  const answer = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(answer.error || r.status + " " + r.statusText);
  return answer;
}

function say(text) { statusLine.textContent = text; }

function finish(text) {
  ended = true;
  document.body.classList.add("ended");
  say(text);
}

// Thumbnails load as their cells come into view (as photo pickers pre-cache what is in view), at the
// cell's size in device pixels.
const loader = new IntersectionObserver(entries => {
  for (const e of entries) {
    if (!e.isIntersecting) continue;
    const img = e.target;
    loader.unobserve(img);
    const px = Math.ceil(Math.max(img.clientWidth, img.clientHeight) * (window.devicePixelRatio || 1)) || 256;
    img.src = "/thumb/" + encodeURIComponent(img.dataset.id) + "?px=" + px;
  }
}, {root: null, rootMargin: "100px"});

// Cells of the first screenful load their thumbnails as they are made, before any layout: the
// observer's first answer comes a frame or two later. `eager` counts those left.
let eager = 0, eagerPx = 256, eagerImgs = [], firstLoad = Promise.resolve();

// The first screenful's thumbnails come in one response (see PickerThumbnails.swift), a line
// "ID ok BASE64" or "ID error REASON" each, shown as it arrives; whatever the response did not
// bring loads on its own. Resolves once every picture has loaded or failed.
async function loadBatch(imgs, px) {
  const waiting = new Map(imgs.map(i => [i.dataset.id, i]));
  if (!imgs.length) return;
  const shown = [];
  try {
    const url = "/thumbs?px=" + px + "&ids=" + imgs.map(i => i.dataset.id).join(",");
    const r = await takePreloaded(url);
    if (!r.ok || !r.body) throw new Error(r.status + " " + r.statusText);
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    for (;;) {
      const {done, value} = await reader.read();
      text += value || "";
      let at = 0, nl;
      while ((nl = text.indexOf("\n", at)) >= 0) {
        const space = text.indexOf(" ", at), id = text.slice(at, space);
        const img = waiting.get(id);
        if (img && text.startsWith(" ok ", space)) {
          waiting.delete(id);
          img.src = "data:image/png;base64," + text.slice(space + 4, nl);
          shown.push(settled(img));
        } else if (img && text.startsWith(" error ", space)) {
          waiting.delete(id);
          unreadable(img, text.slice(space + 7, nl));
        }
        at = nl + 1;
      }
      text = text.slice(at);
      if (done) break;
    }
  } catch (e) { /* the pictures left load one by one below */ }
  for (const [id, img] of waiting) {
    img.src = "/thumb/" + encodeURIComponent(id) + "?px=" + px;
    shown.push(settled(img));
  }
  await Promise.all(shown);
}

// A picture gpick cannot decode (a HEIC the system's libheif refuses, a file cut short): its cell
// says what it is and why, instead of a broken image, and stays choosable (its path is still what
// a script wants). The reason is the server's, from the batch or from the picture's own answer,
// already short (PickerItem.shortReason).
async function unreadable(img, reason) {
  if (reason === undefined) {
    try {
      const r = await fetch(img.src);
      reason = r.ok ? "" : (await r.text()).trim();
    } catch (e) { reason = ""; }
  }
  const cell = img.closest(".cell");
  if (!cell || cell.classList.contains("unreadable")) return;
  const note = document.createElement("div");
  note.className = "unreadable-note";
  const name = document.createElement("strong");
  name.textContent = img.dataset.name;
  const kind = document.createElement("span");
  kind.textContent = img.dataset.kind + ", no preview";
  const why = document.createElement("span");
  why.className = "why";
  why.textContent = reason || "gpick cannot decode it";
  note.append(name, kind, why);
  img.replaceWith(note);
  cell.classList.add("unreadable");
}

function settled(img) {
  if (img.complete) return Promise.resolve();
  return new Promise(ok => {
    img.addEventListener("load", ok, {once: true});
    img.addEventListener("error", ok, {once: true});
  });
}

function itemCell(item) {
  const el = document.createElement("div");
  el.className = "cell item " + item.kind;
  el.dataset.id = item.id;
  el.setAttribute("role", "gridcell");
  el.setAttribute("aria-selected", "false");
  el.setAttribute("aria-label", itemLabel(item));
  el.tabIndex = -1;
  el.title = item.name;
  const img = document.createElement("img");
  img.alt = "";
  img.dataset.id = item.id;
  img.dataset.name = item.name;
  img.dataset.kind = item.kind;
  img.decoding = "async";
  img.addEventListener("error", () => { if (!img.src.startsWith("data:")) unreadable(img); }, {once: true});
  el.appendChild(img);
  if (item.badges.length) {
    const b = document.createElement("span");
    b.className = "badges";
    b.setAttribute("aria-hidden", "true");
    for (const text of item.badges) {
      const s = document.createElement("span");
      s.className = "badge";
      s.textContent = text;
      b.appendChild(s);
    }
    el.appendChild(b);
  }
  const mark = document.createElement("span");
  mark.className = "mark";
  mark.setAttribute("aria-hidden", "true");
  el.appendChild(mark);
  el.addEventListener("click", () => { setFocus(cells.findIndex(c => c.el === el)); toggle(item.id); });
  el.addEventListener("dblclick", () => { select(item.id); confirm(); });
  if (eager > 0) { eager--; eagerImgs.push(img); } else loader.observe(img);
  return {kind: "item", el, id: item.id, span: 1};
}

function actionCell(name) {
  const el = document.createElement("div");
  el.className = "cell action";
  el.setAttribute("role", "gridcell");
  el.textContent = name;
  el.tabIndex = -1;
  el.addEventListener("click", () => chooseAction(name));
  return {kind: "action", el, name, span: 1};
}

function cameraCell() {
  const el = document.createElement("div");
  el.className = "cell camera";
  el.id = "camera";
  el.setAttribute("role", "gridcell");
  el.setAttribute("aria-label", "Camera: Enter or a click takes a photo");
  el.tabIndex = -1;
  const img = document.createElement("img");
  img.id = "camera-view";
  img.alt = "Live camera view";
  img.src = "/camera.mjpg";
  // The stream is served once the camera runs: a page that came first asks again shortly.
  img.addEventListener("error", () => setTimeout(() => {
    if (!ended && !(camera && camera.state === "failed")) img.src = "/camera.mjpg?retry=" + Date.now();
  }, 250));
  img.addEventListener("click", snap);
  const reason = document.createElement("div");
  reason.id = "camera-reason";
  const controls = document.createElement("div");
  controls.className = "controls";
  const buttons = [["flip", "Flip", flip, "Flip the camera"], ["snap", "Take", snap, "Take a photo"], ["record", "Rec", record, "Record a video"]];
  if (config.cameraMode === "photo-and-live") buttons.splice(1, 0, ["live", "Live", live, "Live photos"]);
  for (const [id, label, act, title] of buttons) {
    const b = document.createElement("button");
    b.id = "camera-" + id;
    b.type = "button";
    b.tabIndex = -1;
    b.textContent = label;
    b.title = title;
    b.addEventListener("click", e => { e.stopPropagation(); act(); });
    controls.appendChild(b);
  }
  el.append(img, reason, controls);
  restWatcher.observe(el);
  return {kind: "camera", el, span: 1};
}

// The camera rests when nobody looks at its cell: scrolled out of view, the page hidden (another
// tab, a minimised window), or the window out of focus for more than 30 s. The server is told
// each change, in order; it stops the camera and the cell keeps its blurred last frame.
//
// A page that is going away (reloaded for take-or-pick's next stage, or left) says nothing: its
// "hidden" would reach the server after the next page started the camera, and rest it for good.
// And a page that finds the camera resting while it wants it awake (a rest it did not send)
// wakes it.
let cellInView = true, windowAway = false, awayTimer = null, restingSent = false, leaving = false, waking = false;
let restSent = Promise.resolve();
const restWatcher = new IntersectionObserver(entries => {
  for (const e of entries) cellInView = e.isIntersecting;
  updateRest();
});
function updateRest() {
  const rest = !cellInView || document.hidden || windowAway;
  if (rest === restingSent || ended || leaving) return;
  restingSent = rest;
  restSent = restSent.then(() => call("/api/camera/rest", {on: rest})).catch(() => {});
}
function wakeIfRestingUnasked() {
  if (!camera || camera.state !== "suspended" || restingSent || waking || ended || leaving) return;
  waking = true;
  restSent = restSent.then(() => call("/api/camera/rest", {on: false})).catch(() => {}).finally(() => { waking = false; });
}
function reloadForNextStage() {
  leaving = true;
  location.reload();
}
addEventListener("pagehide", () => { leaving = true; });
document.addEventListener("visibilitychange", updateRest);
addEventListener("blur", () => { clearTimeout(awayTimer); awayTimer = setTimeout(() => { windowAway = true; updateRest(); }, 30000); });
addEventListener("focus", () => { clearTimeout(awayTimer); windowAway = false; updateRest(); });

// The first screenful is built at once, the rest in slices after it: its thumbnails are asked
// for before a thousand cells are made.
let renderGeneration = 0;
// `items` may be the listing's head (the page comes with the first screenful's); `total` is the
// whole listing's length, fetched once the first thumbnails are in.
function render(items, total = items.length) {
  const generation = ++renderGeneration;
  grid.textContent = "";
  cells = [];
  for (const name of config.actions) cells.push(actionCell(name));
  if (config.camera) cells.push(cameraCell());
  const first = Math.max(0, 80 - cells.length);
  if (config.scroll === "vertical") {
    // Square cells across the grid's width: as many rows as the window holds, and one more.
    const side = (grid.clientWidth || innerWidth) / config.columns;
    eager = Math.min(first, config.columns * (Math.ceil(innerHeight / side) + 1));
    // Asked for as the cache's size that covers the cell (the server rounds up the same way),
    // so that the page's first request is the one its head already started (PickerPage.swift).
    const px = Math.ceil(side * (window.devicePixelRatio || 1));
    const sizes = config.thumbnailSizes;
    eagerPx = sizes.find(s => s >= px) || sizes[sizes.length - 1];
  }
  eagerImgs = [];
  for (const item of items.slice(0, first)) cells.push(itemCell(item));
  eager = 0;  // later cells (slices, captures) load as they come into view
  placeRows();
  // The first rows in one request (the one the page's head started), painted before the other
  // rows are asked for, a row a request: on a slow machine they would share its first frames.
  const imgs = eagerImgs, top = config.columns * config.preloadedRows;
  firstLoad = loadBatch(imgs.slice(0, top), eagerPx).then(() => {
    const rows = [];
    for (let i = top; i < imgs.length; i += config.columns) rows.push(loadBatch(imgs.slice(i, i + config.columns), eagerPx));
    return Promise.all(rows);
  });
  setFocus(Math.min(focus, cells.length - 1), false);
  say(total + (total === 1 ? " item" : " items"));
  let next = first;
  function slice() {
    if (generation !== renderGeneration || next >= items.length) return;
    const more = items.slice(next, next + 100).map(itemCell);
    next += more.length;
    const from = cells.length;
    cells.push(...more);
    placeRows(from);
    paintSelection();
    setTimeout(slice, 0);
  }
  // Once the first screenful's thumbnails are in (at most a second): building and laying out
  // the other cells before would hold up their decoding and painting on a slow machine.
  firstScreen().then(async () => {
    if (items.length < total) {
      const all = (await (await fetch("/api/items")).json()).items;
      if (generation !== renderGeneration) return;
      // The library changed meanwhile: the whole grid again.
      if (!items.every((item, i) => all[i] && all[i].id === item.id)) { render(all); paintSelection(); return; }
      items = all;
    }
    setTimeout(slice, 0);
  });
}

// Resolves when the eager thumbnails have loaded or failed, or after a second.
function firstScreen() {
  return Promise.race([firstLoad, new Promise(ok => setTimeout(ok, 1000))]);
}

function isSelected(id) { return selected.includes(id); }

// The server hears of every change of the selection, in order (a chain of requests, one at a
// time): `--json` and Picker.run() report selected and deselected items as they are chosen.
let selectionSent = Promise.resolve();
function sendSelection() {
  const ids = selected.slice();
  selectionSent = selectionSent.then(() => call("/api/selection", {ids})).catch(() => {});
}

function paintSelection() {
  for (const c of cells) {
    if (c.kind !== "item") continue;
    const on = isSelected(c.id);
    c.el.classList.toggle("selected", on);
    c.el.setAttribute("aria-selected", on ? "true" : "false");
  }
  for (const c of cells) if (c.kind === "item" && isSelected(c.id)) c.el.querySelector(".mark").textContent = config.multi ? String(selected.indexOf(c.id) + 1) : "✓";
  confirmButton.disabled = selected.length === 0 || ended;
  confirmButton.textContent = selected.length > 1 ? "Choose " + selected.length : "Choose";
}

function select(id) {
  if (config.multi) { if (!isSelected(id)) selected.push(id); } else selected = [id];
  paintSelection();
  sendSelection();
}

function toggle(id) {
  if (isSelected(id)) selected = selected.filter(x => x !== id); else if (config.multi) selected.push(id); else selected = [id];
  paintSelection();
  sendSelection();
}

async function confirm() {
  if (ended || selected.length === 0) return;
  await selectionSent;
  try { await call("/api/confirm", {ids: selected}); finish("Chosen. You can close this page."); } catch (e) { say(e.message); }
}

async function cancel() {
  if (ended) return;
  try { await call("/api/cancel"); } catch (e) { /* the picker is gone already */ }
  finish("Cancelled. You can close this page.");
}

async function chooseAction(name) {
  if (ended) return;
  try {
    const answer = await call("/api/action", {name});
    // Take-or-pick moved on to the camera or the library: the page is made anew for it.
    if (answer.stage) reloadForNextStage(); else finish(name + ". You can close this page.");
  } catch (e) { say(e.message); }
}

async function snap() {
  if (ended || !config.camera) return;
  say("Taking a photo…");
  try {
    const answer = await call("/api/snap");
    addCapture(answer.item);
    say("Photo taken");
  } catch (e) { say(e.message); }
}

async function flip() {
  try { const a = await call("/api/flip"); say("Camera: " + a.position); } catch (e) { say(e.message); }
}

async function live() {
  try { const a = await call("/api/live", {on: !(camera && camera.live)}); say(a.live ? "Live photos on" : "Live photos off"); } catch (e) { say(e.message); }
}

async function record() {
  // What the cell shows is what the button does: a video that reached its longest length a
  // moment ago is not started again by the click meant to stop it.
  const stopping = !!(camera && camera.recording);
  try {
    say(stopping ? "Stopping…" : "Starting to record…");
    const a = await call("/api/record", {on: !stopping});
    if (a.item) { addCapture(a.item); say("Video recorded"); } else say(a.recording ? "Recording" : "Video recorded");
  } catch (e) { say(e.message); }
}

// A capture goes to the head of the grid, after the camera cell, selected; once, whether the
// call's answer or the event stream brings it first.
function addCapture(item) {
  if (cells.some(x => x.kind === "item" && x.id === item.id)) return;
  const c = itemCell(item);
  const at = cells.findIndex(x => x.kind === "item");
  const index = at < 0 ? cells.length : at;
  cells.splice(index, 0, c);
  placeRows(index);
  if (focus >= index) focus++;
  select(item.id);
}

function showState(s) {
  if (s.stage && config.stage && s.stage !== config.stage && !s.ended) { reloadForNextStage(); return; }
  camera = s.camera;
  // The newest capture: one the page did not ask for here (a video that stopped by itself at
  // its longest length) joins the grid as the others do.
  if (s.capture && !cells.some(x => x.kind === "item" && x.id === s.capture.id)) {
    addCapture(s.capture);
    say(s.capture.kind === "video" ? "Video recorded" : "Photo taken");
  }
  wakeIfRestingUnasked();
  let cell = document.getElementById("camera");
  if (!cell && camera.state !== "off" && config.cameraMayAppear) {
    // A camera plugged in after all: its cell joins the grid after the actions, and the focus
    // stays on the cell it was on.
    config.camera = true;
    grid.setAttribute("aria-label", "Camera, photos and videos");
    const at = cells.findIndex(c => c.kind !== "action");
    const index = at < 0 ? cells.length : at;
    cells.splice(index, 0, cameraCell());
    placeRows(index);
    if (focus >= index && cells.length > 1) focus++;
    setFocus(Math.min(focus, cells.length - 1), false);
    cell = document.getElementById("camera");
  }
  if (cell && camera.state === "off") {
    // No camera after all (`auto` found none): the cell goes, the rest of the grid stays.
    const was = cells.findIndex(c => c.kind === "camera");
    cells = cells.filter(c => c.kind !== "camera");
    cell.remove();
    placeRows();
    if (focus > was) focus--;
    setFocus(Math.max(0, Math.min(focus, cells.length - 1)), false);
  } else if (cell) {
    cell.dataset.state = camera.state;
    cell.classList.toggle("live-on", camera.live);
    cell.classList.toggle("recording", camera.recording);
    document.getElementById("camera-reason").textContent =
      camera.state === "failed" || camera.state === "suspended" ? (camera.reason || camera.state) : "";
  }
  // Why there is no camera cell: a line in the header's status area, the whole of it on hover.
  const notice = document.getElementById("notice");
  notice.textContent = notice.title = s.notice || "";
  notice.hidden = !s.notice;
  overlay.textContent = "";
  for (const p of s.problems) {
    const d = document.createElement("p");
    d.textContent = p;
    overlay.appendChild(d);
  }
  overlay.hidden = s.problems.length === 0;
  if (s.ended && !ended) finish("The picker has ended. You can close this page.");
}

confirmButton.addEventListener("click", confirm);
document.getElementById("cancel").addEventListener("click", cancel);

async function start() {
  render(JSON.parse(document.getElementById("items").textContent), config.total);
  paintSelection();
  // The event stream holds one of the browser's six connections to gpick for as long as the
  // page is open: it starts once the first thumbnails have had all six.
  await firstScreen();
  const events = new EventSource("/api/events");
  events.addEventListener("state", e => showState(JSON.parse(e.data)));
  events.addEventListener("ended", () => { events.close(); if (!ended) finish("The picker has ended. You can close this page."); });
  // The library may still be loading when the page opens: fetch the items again when it changes
  // (captures made here are already in the grid).
  let assets = config.assets;
  events.addEventListener("state", async e => {
    const s = JSON.parse(e.data);
    if (s.assets !== assets && !ended) {
      assets = s.assets;
      const again = await (await fetch("/api/items")).json();
      const keep = selected;
      render(again.items);
      selected = keep.filter(id => again.items.some(i => i.id === id));
      paintSelection();
    }
  });
  document.body.dataset.ready = "1";
}
start().catch(e => say("cannot load: " + e.message));

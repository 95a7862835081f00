// gpick pick: the grid's rows, the focus and the keys. Loaded before picker.js, whose state
// (config, grid, cells, focus) these functions use when called.
"use strict";

// Columns the camera cell spans, as near its frames' shape as whole cells go (16:9: two, 4:3: one);
// the frame inside it is shown whole. A sideways strip keeps it to one cell.
function cameraSpan(col) {
  if (config.scroll !== "vertical") return 1;
  const cameraAspect = (config.cameraWidth || 16) / (config.cameraHeight || 9);
  return Math.max(1, Math.min(Math.round(cameraAspect), config.columns - col));
}

// A cell's date in the page's language (English, as every other word on it): "3 May 2024", in
// the browser's time zone. Not toLocaleDateString: Chromium's first Intl date format loads its
// locale data, some 35 ms of the first screen's time on a laptop.
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                "November", "December"];
function cellDate(seconds) {
  const d = new Date(seconds * 1000);
  return d.getDate() + " " + MONTHS[d.getMonth()] + " " + d.getFullYear();
}

// What a screen reader says for a cell: its name, kind and date ("IMG_0001.JPG, live photo,
// 3 May 2024"); the badges and the mark only show it.
function itemLabel(item) {
  const words = {LIVE: "live photo", PANO: "panorama"};
  const parts = [item.name];
  const kinds = item.badges.map(b => words[b] || (b.startsWith("×") ? "burst of " + b.slice(1) : b.startsWith("▶") ? "video " + b.slice(2) : b));
  if (!kinds.some(k => k.includes("photo") || k.startsWith("video"))) kinds.unshift(item.kind);
  parts.push(...kinds);
  if (item.taken) parts.push(cellDate(item.taken));
  return parts.join(", ");
}

// The grid's rows, for assistive technology: each cell's row and first column, found as the
// CSS grid places them (in order, a row full after `columns`; the camera cell spans what fits).
// A sideways strip's "rows" are its columns of `columns` cells. Cells from `start` are moved
// into their rows; those before stay where they are.
function placeRows(start = 0) {
  const n = config.columns;
  let row = 0, col = 0;
  if (start > 0 && cells[start - 1].row !== undefined) {
    const p = cells[start - 1];
    row = p.row; col = p.col + p.span;
    if (col >= n) { row++; col = 0; }
  } else start = 0;
  // Back to the first cell of the row `start` is in: that row's cells are appended anew, in order.
  while (start > 0 && cells[start - 1].row === row) start--;
  col = 0;
  const rows = Array.from(grid.children).filter(r => r.classList.contains("row"));
  for (let i = start; i < cells.length; i++) {
    const c = cells[i];
    if (c.kind === "camera") c.span = cameraSpan(col);
    if (col + c.span > n) { row++; col = 0; }
    c.row = row; c.col = col;
    if (c.kind === "camera") grid.style.setProperty("--camera-span", c.span);
    while (rows.length <= row) {
      const r = document.createElement("div");
      r.className = "row";
      r.setAttribute("role", "row");
      grid.appendChild(r);
      rows.push(r);
    }
    rows[row].appendChild(c.el);
    col += c.span;
    if (col >= n) { row++; col = 0; }
  }
  const used = cells.length ? cells[cells.length - 1].row + 1 : 0;
  for (const r of rows.slice(used)) r.remove();
  // A grid has rows: an empty one (no camera, nothing in the library) is no grid.
  if (cells.length) grid.setAttribute("role", "grid"); else grid.removeAttribute("role");
}

// One cell is in the tab order (tabindex 0) and the others are reached by the arrows (a roving
// tabindex). `scroll`: moved by the user, so the page's focus goes there too.
function setFocus(i, scroll = true) {
  if (i < 0 || i >= cells.length) return;
  for (const c of cells) if (c.el.tabIndex === 0 || c.el.classList.contains("focused")) {
    c.el.classList.remove("focused");
    c.el.tabIndex = -1;
  }
  focus = i;
  cells[i].el.classList.add("focused");
  cells[i].el.tabIndex = 0;
  if (scroll) {
    cells[i].el.focus({preventScroll: true});
    cells[i].el.scrollIntoView({block: "nearest", inline: "nearest"});
  }
}

// The cell above or below `i` (dir -1 or 1): in the row before or after, the one over the same column.
function vertically(i, dir) {
  const c = cells[i], row = c.row + dir;
  const inRow = cells.filter(x => x.row === row);
  if (!inRow.length) return i;
  const at = inRow.find(x => x.col <= c.col && c.col < x.col + x.span) || inRow[inRow.length - 1];
  return cells.indexOf(at);
}

document.addEventListener("keydown", e => {
  if (ended || e.ctrlKey || e.altKey || e.metaKey) return;
  // A focused button (Cancel, Choose, the camera's) does its own thing on Enter and space.
  if ((e.key === "Enter" || e.key === " ") && e.target instanceof HTMLButtonElement) return;
  const vertical = config.scroll === "vertical";
  // In a sideways strip the rows (of the arrows' sense) are the columns on screen.
  const sideways = d => vertical ? focus + d : vertically(focus, d);
  const upDown = d => vertical ? vertically(focus, d) : focus + d;
  const moves = {ArrowLeft: () => sideways(-1), h: () => sideways(-1), ArrowRight: () => sideways(1),
                 ArrowUp: () => upDown(-1), k: () => upDown(-1), ArrowDown: () => upDown(1), j: () => upDown(1)};
  let handled = true;
  if (e.key in moves) setFocus(moves[e.key]());
  else if (e.key === "l") { if (config.cameraMode === "photo-and-live") live(); else setFocus(sideways(1)); }
  else if (e.key === " ") { const c = cells[focus]; if (c && c.kind === "item") toggle(c.id); else if (c && c.kind === "camera") snap(); }
  else if (e.key === "Enter") {
    const c = cells[focus];
    if (c && c.kind === "action") chooseAction(c.name);
    else if (c && c.kind === "camera") snap();
    else if (c && c.kind === "item") { if (selected.length === 0) select(c.id); confirm(); }
  }
  else if (e.key === "Escape" || e.key === "q") cancel();
  else if (e.key === "f" && config.camera) flip();
  else if (e.key === "s" && config.camera) snap();
  else if (e.key === "r" && config.camera) record();
  else handled = false;
  if (handled) e.preventDefault();
});

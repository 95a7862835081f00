// gpick avatar edit: the editor page. Every change is sent to gpick, which draws the preview
// (the same renderer as the saved file). Images are named by the ids gpick gave them.
"use strict";
(() => {
  const config = JSON.parse(document.getElementById("config").textContent);
  const token = document.querySelector('meta[name="gpick-token"]').content;
  const $ = (id) => document.getElementById(id);
  const model = config.model;
  model.colors = model.colors || [];
  model["last-colors"] = model["last-colors"] || [];
  // The image last chosen: "Color" hides it, pressing "Color" again brings it back.
  let image = model.image || null;
  let colourKind = model.background === "gradient" ? "gradient" : "color";
  let ended = false;

  const status = (text, bad) => {
    $("status").textContent = text;
    $("status").className = bad ? "bad" : "";
  };

  const post = async (path, body, type) => {
    const response = await fetch(path, {
      method: "POST", body,
      headers: Object.assign({ "X-Gpick-Token": token }, type ? { "Content-Type": type } : {}),
    });
    return response;
  };

  const reply = async (response) => {
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || response.statusText);
    return data;
  };

  // MARK: The model shown in the controls

  const paletteFor = (text) => {
    // Only for the pickers' starting colours when the model has none: gpick picks the real ones.
    let h = 5381;
    for (const b of new TextEncoder().encode(text)) h = ((h << 5) + h + (b << 24 >> 24)) >>> 0;
    return config.palette[h % config.palette.length];
  };

  const showControls = () => {
    $("text").value = model.text || "";
    $("mode").value = model["text-mode"] || "auto";
    const colours = model.colors.length ? model.colors : paletteFor(model.text || "");
    $("color1").value = colours[0].slice(0, 7);
    $("color2").value = (colours[1] || colours[0]).slice(0, 7);
    $("gradient").checked = colourKind === "gradient";
    const shape = model.shape || "circle";
    $("shape").value = shape.startsWith("round-rect") ? "round-rect" : shape;
    const radius = shape.startsWith("round-rect:") ? parseFloat(shape.slice(11)) : 20;
    $("radius").value = isNaN(radius) ? 20 : radius;
    $("radius-label").hidden = $("shape").value !== "round-rect";
    const custom = model["text-color"] && model["text-color"] !== "auto";
    $("text-color-mode").value = custom ? "custom" : "auto";
    $("text-color").value = custom ? model["text-color"].slice(0, 7) : "#ffffff";
    $("text-color").hidden = !custom;
    $("size").value = model.size || 500;
    const showingImage = model.background === "image" && image;
    $("colours").hidden = !!showingImage;
    $("focus").hidden = !showingImage;
    $("color-button").setAttribute("aria-pressed", showingImage ? "false" : "true");
    $("color-button").disabled = !image && model.background !== "image";
    if (image) {
      $("focus-x").value = Math.round((image.focus ? image.focus[0] : 0.5) * 100);
      $("focus-y").value = Math.round((image.focus ? image.focus[1] : 0.5) * 100);
    }
    $("camera").hidden = !config.camera;
    // No camera now: the button says why, and cannot be pressed.
    $("camera").disabled = !!config.cameraUnavailable;
    $("camera").title = config.cameraUnavailable || "";
    $("library").hidden = !config.library;
    showRecent();
  };

  const showRecent = () => {
    const box = $("recent");
    box.textContent = "";
    for (const c of model["last-colors"]) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "swatch";
      b.style.background = c;
      b.title = c;
      b.dataset.colour = c;
      b.addEventListener("click", () => { $("color1").value = c.slice(0, 7); useColours(true); });
      box.appendChild(b);
    }
  };

  const remember = (c) => {
    const list = model["last-colors"].filter((x) => x !== c);
    list.unshift(c);
    model["last-colors"] = list.slice(0, 8);
  };

  const useColours = (remembered) => {
    const c1 = $("color1").value, c2 = $("color2").value;
    colourKind = $("gradient").checked ? "gradient" : "color";
    model.background = colourKind;
    model.colors = colourKind === "gradient" ? [c1, c2] : [c1];
    if (remembered) {
      if (colourKind === "gradient") remember(c2);
      remember(c1);
    }
    changed();
  };

  const useImage = (chosen) => {
    image = { id: chosen.id, focus: [0.5, 0.5] };
    model.image = image;
    model.background = "image";
    changed();
  };

  // MARK: The preview: one request at a time, the newest model next

  let sequence = 0, inFlight = false, again = false;
  // For tests and the bench: true once the newest model's preview is shown.
  window.gpickPreviewIdle = false;
  const changed = () => {
    showControls();
    sequence += 1;
    window.gpickPreviewIdle = false;
    if (inFlight) { again = true; return; }
    refresh();
  };

  const refresh = async () => {
    inFlight = true;
    const mine = sequence;
    try {
      const response = await post("/api/preview", JSON.stringify(model), "application/json");
      if (!response.ok) throw new Error((await response.json().catch(() => ({}))).error || response.statusText);
      const blob = await response.blob();
      const img = $("preview");
      const old = img.src;
      img.src = URL.createObjectURL(blob);
      img.dataset.sequence = String(mine);
      img.dataset.textColor = response.headers.get("X-Text-Color") || "";
      if (old.startsWith("blob:")) URL.revokeObjectURL(old);
      if (!ended) status("");
    } catch (e) {
      status(String(e.message || e), true);
    } finally {
      inFlight = false;
      if (again) { again = false; refresh(); } else window.gpickPreviewIdle = true;
    }
  };

  // MARK: Images: upload, drop, paste, camera, library

  // The header carries the name only as a label; gpick never opens it.
  const postUpload = async (file) => fetch("/api/upload", {
    method: "POST", body: await file.arrayBuffer(),
    headers: { "X-Gpick-Token": token, "Content-Type": "application/octet-stream", "X-File-Name": encodeURIComponent(file.name || "") },
  });
  const uploadNamed = async (file) => {
    status("Reading " + (file.name || "the image") + "…");
    try {
      useImage((await reply(await postUpload(file))).image);
    } catch (e) {
      status(String(e.message || e), true);
    }
  };

  $("file").addEventListener("change", () => { const f = $("file").files[0]; if (f) uploadNamed(f); $("file").value = ""; });
  const drop = $("drop");
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const f = [...(e.dataTransfer.files || [])].find((x) => x.type.startsWith("image/")) || e.dataTransfer.files[0];
    if (f) uploadNamed(f);
  });
  document.addEventListener("paste", (e) => {
    const item = [...(e.clipboardData ? e.clipboardData.items : [])].find((i) => i.kind === "file" && i.type.startsWith("image/"));
    if (!item) return;
    e.preventDefault();
    uploadNamed(item.getAsFile());
  });
  $("camera").addEventListener("click", async () => {
    status("Taking a photo…");
    try {
      useImage((await reply(await post("/api/camera", "{}", "application/json"))).image);
    } catch (e) {
      status(String(e.message || e), true);
    }
  });
  $("library").addEventListener("click", async () => {
    const grid = $("library-grid");
    if (!grid.hidden) { grid.hidden = true; return; }
    grid.hidden = false;
    grid.textContent = "Loading…";
    try {
      const data = await (await fetch("/api/library")).json();
      grid.textContent = "";
      if (data.problem) { grid.textContent = data.problem; return; }
      const px = Math.round(128 * (window.devicePixelRatio || 1));
      for (const a of data.assets || []) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "asset";
        b.dataset.id = a.id;
        b.title = a.label;
        const img = document.createElement("img");
        img.loading = "lazy";
        img.alt = a.label;
        img.src = "/thumb/" + encodeURIComponent(a.id) + "?px=" + px;
        b.appendChild(img);
        b.addEventListener("click", () => { grid.hidden = true; useImage(a); });
        grid.appendChild(b);
      }
      if (!grid.children.length) grid.textContent = "No photos in the library yet.";
    } catch (e) {
      grid.textContent = String(e.message || e);
    }
  });

  // MARK: The controls

  $("text").addEventListener("input", () => { model.text = $("text").value; changed(); });
  $("mode").addEventListener("change", () => { model["text-mode"] = $("mode").value; changed(); });
  for (const id of ["color1", "color2"]) {
    $(id).addEventListener("input", () => useColours(false));
    $(id).addEventListener("change", () => useColours(true));
  }
  $("gradient").addEventListener("change", () => useColours(true));
  $("color-button").addEventListener("click", () => {
    if (model.background === "image") {
      // Colour instead of the image, which stays to come back to.
      model.background = colourKind;
      model.colors = colourKind === "gradient" ? [$("color1").value, $("color2").value] : [$("color1").value];
    } else if (image) {
      model.background = "image";
      model.image = image;
    }
    changed();
  });
  const focusChanged = () => {
    if (!image) return;
    image.focus = [$("focus-x").value / 100, $("focus-y").value / 100];
    model.image = image;
    changed();
  };
  $("focus-x").addEventListener("input", focusChanged);
  $("focus-y").addEventListener("input", focusChanged);
  const shapeChanged = () => {
    const s = $("shape").value;
    model.shape = s === "round-rect" ? "round-rect:" + $("radius").value + "%" : s;
    changed();
  };
  $("shape").addEventListener("change", shapeChanged);
  $("radius").addEventListener("input", shapeChanged);
  const textColourChanged = () => {
    model["text-color"] = $("text-color-mode").value === "custom" ? $("text-color").value : "auto";
    changed();
  };
  $("text-color-mode").addEventListener("change", textColourChanged);
  $("text-color").addEventListener("input", textColourChanged);
  $("size").addEventListener("change", () => {
    const n = parseInt($("size").value, 10);
    if (n >= 1 && n <= 4096) { model.size = n; changed(); } else status("The size is 1 to 4096 pixels.", true);
  });

  // MARK: Closing: ✕ saves, Cancel writes nothing

  const finish = (text) => {
    ended = true;
    status(text);
    for (const b of document.querySelectorAll("button, input, select")) b.disabled = true;
    document.body.classList.add("ended");
  };
  $("close").addEventListener("click", async () => {
    status("Saving…");
    try {
      const data = await reply(await post("/api/save", JSON.stringify(model), "application/json"));
      finish("Saved " + data.saved + ". You can close this page.");
    } catch (e) {
      status(String(e.message || e), true);
    }
  });
  $("cancel").addEventListener("click", async () => {
    await post("/api/cancel", "{}", "application/json").catch(() => {});
    finish("Cancelled: nothing was saved. You can close this page.");
  });
  const events = new EventSource("/api/events");
  events.addEventListener("ended", () => { events.close(); if (!ended) finish("The editor has ended."); });

  showControls();
  changed();
})();

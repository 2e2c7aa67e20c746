// The design2code tool's front end: designs, boxes drawn with the mouse, generation, preview.
(function () {
  const state = {designs: [], current: -1};
  const $ = (id) => document.getElementById(id);
  const stage = $("stage"), img = $("design");

  function defaultName(i) { return i === 0 ? "index.html" : "page" + (i + 1) + ".html"; }

  $("files").addEventListener("change", async (ev) => {
    for (const file of ev.target.files) {
      const data = await new Promise((ok, fail) => {
        const r = new FileReader(); r.onload = () => ok(r.result); r.onerror = fail; r.readAsDataURL(file);
      });
      state.designs.push({file: file.name, name: defaultName(state.designs.length), image: data, boxes: []});
    }
    select(state.current < 0 ? 0 : state.current);
  });

  function select(i) {
    state.current = i;
    const d = state.designs[i];
    img.src = d.image;
    $("page-name").value = d.name;
    renderTabs(); renderBoxes();
  }

  $("page-name").addEventListener("input", (ev) => {
    if (state.current >= 0) { state.designs[state.current].name = ev.target.value.trim(); renderTabs(); }
  });

  function renderTabs() {
    const tabs = $("tabs"); tabs.innerHTML = "";
    state.designs.forEach((d, i) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = d.name + " (" + d.file + ")"; b.dataset.index = i;
      if (i === state.current) b.className = "active";
      b.addEventListener("click", () => select(i));
      tabs.appendChild(b);
    });
  }

  function renderBoxes() {
    stage.querySelectorAll(".box").forEach((e) => e.remove());
    const list = $("box-list"); list.innerHTML = "";
    if (state.current < 0) return;
    state.designs[state.current].boxes.forEach((b, k) => {
      const el = document.createElement("div");
      el.className = "box";
      Object.assign(el.style, {left: b.box[0][0] + "px", top: b.box[0][1] + "px",
        width: (b.box[1][0] - b.box[0][0]) + "px", height: (b.box[1][1] - b.box[0][1]) + "px"});
      el.innerHTML = "<span></span>"; el.firstChild.textContent = (k + 1) + " " + b.type;
      stage.appendChild(el);
      const tr = document.createElement("tr");
      tr.innerHTML = "<td></td><td></td><td><input type=text class=u></td><td><input type=text class=t></td>" +
                     "<td><button type=button class=del>×</button></td>";
      tr.children[0].textContent = k + 1; tr.children[1].textContent = b.type;
      tr.querySelector(".u").value = b.url; tr.querySelector(".t").value = b.text;
      tr.querySelector(".u").addEventListener("input", (e) => { b.url = e.target.value; });
      tr.querySelector(".t").addEventListener("input", (e) => { b.text = e.target.value; });
      tr.querySelector(".del").addEventListener("click", () => {
        state.designs[state.current].boxes.splice(k, 1); renderBoxes(); });
      list.appendChild(tr);
    });
  }

  let start = null, ghost = null;
  const point = (ev) => {
    const r = stage.getBoundingClientRect();
    return [Math.round(ev.clientX - r.left - stage.clientLeft), Math.round(ev.clientY - r.top - stage.clientTop)];
  };
  stage.addEventListener("mousedown", (ev) => {
    if (state.current < 0) return;
    ev.preventDefault();
    start = point(ev);
    ghost = document.createElement("div"); ghost.className = "box"; stage.appendChild(ghost);
  });
  window.addEventListener("mousemove", (ev) => {
    if (!start) return;
    const p = point(ev);
    Object.assign(ghost.style, {left: Math.min(start[0], p[0]) + "px", top: Math.min(start[1], p[1]) + "px",
      width: Math.abs(p[0] - start[0]) + "px", height: Math.abs(p[1] - start[1]) + "px"});
  });
  window.addEventListener("mouseup", (ev) => {
    if (!start) return;
    const p = point(ev), s = start; start = null; ghost.remove();
    const x1 = Math.max(0, Math.min(s[0], p[0])), y1 = Math.max(0, Math.min(s[1], p[1]));
    const x2 = Math.min(img.naturalWidth, Math.max(s[0], p[0])), y2 = Math.min(img.naturalHeight, Math.max(s[1], p[1]));
    if (x2 - x1 < 3 || y2 - y1 < 3) return;
    const type = $("box-type").value;
    const box = {type, box: [[x1, y1], [x2, y2]], url: $("box-url").value.trim(), text: $("box-text").value.trim()};
    if (type === "backend_route") {
      box.method = $("box-method").value;
      box.fields = $("box-fields").value.split(",").map((f) => f.trim()).filter(Boolean);
      box.via = box.fields.length ? "form" : "fetch";
    }
    state.designs[state.current].boxes.push(box);
    renderBoxes();
  });

  $("generate").addEventListener("click", async () => {
    const out = $("result");
    out.textContent = "Generating…";
    const body = {model: $("model").value.trim(), strategy: $("strategy").value,
                  designs: state.designs.map((d) => ({name: d.name, image: d.image, boxes: d.boxes}))};
    try {
      const resp = await fetch("/api/generate", {method: "POST", headers: {"Content-Type": "application/json"},
                                                 body: JSON.stringify(body)});
      const res = await resp.json();
      if (!resp.ok) { out.textContent = "Error: " + res.error; return; }
      out.innerHTML = "<p id=statuses></p><p><a id=preview-link target=_blank>Open preview</a> · " +
                      "<a id=download-link download>Download site (.zip)</a></p><iframe id=preview></iframe>";
      $("statuses").textContent = res.pages.map((p) => p.page + ": " + p.status).join(", ");
      $("preview-link").href = res.preview; $("download-link").href = res.download;
      $("preview").src = res.preview;
    } catch (e) { out.textContent = "Error: " + e; }
  });
})();

// navkit viewer: the page. Plain ES module, no build step, no network but
// this page's own server.
//
// Drawing: the grid is painted once per map version into a canvas at one
// pixel per cell and blitted scaled (imageSmoothingEnabled = false), so pan
// and zoom cost one drawImage however large the map. Overlays (heat map,
// polygons, paths, characters) are drawn per frame, only where visible.
//
// Coordinates: cell (x, z) covers [x, x+1) x [z, z+1) in "cell space"; world
// (wx, wz) metres map to ((wx - minX) / cellSize, (wz - minZ) / cellSize).
// Screen = offset + cell * scale (CSS pixels). +Z points down, as in
// navkit.render and Moving AI files.

const $ = (id) => document.getElementById(id);

const COLORS = {
  background: "#1c1e24",
  walkable: [236, 236, 230],
  blocked: [38, 40, 48],
  heavy: [122, 84, 40],
  raw: "#1b3a8a",
  smooth: "#f03e3e",
  start: "#2f9e44",
  goal: "#e03131",
  nearest: "#f08c00",
  areaOpen: "rgba(47,158,68,0.9)",
  areaClosed: "rgba(224,49,49,0.95)",
  obstacle: "rgba(245,159,0,0.95)",
  obstacleAdded: "rgba(174,62,201,0.95)",
  state: { w: "#2f9e44", b: "#e03131", r: "#f08c00", i: "#868e96", x: "#495057" },
  charPath: "rgba(25,113,194,0.85)",
  meshFill: "rgba(16,152,173,0.10)",
  meshWall: "rgba(11,114,133,0.95)",
  meshPortal: "rgba(16,152,173,0.55)",
  meshExact: "#1098ad",
  meshFunnel: "#d6336c",
  meshSearched: "rgba(16,152,173,0.28)",
  selected: "#ffd43b",
  velocity: "#5f3dc4",
  avoidRadius: "rgba(25,113,194,0.95)",
  highlight: "rgba(255,212,59,0.95)",
  highlightFill: "rgba(255,212,59,0.30)",
  label: "#1b1d22",
  flow: "rgba(33,37,41,0.75)",
  hpaCluster: "rgba(95,61,196,0.55)",
  hpaNode: "#5f3dc4",
  hpaEdge: "rgba(95,61,196,0.9)",
  jumpExpanded: "#c2255c",
  jumpGenerated: "rgba(194,37,92,0.8)",
  spline: "#0b7285",
  circle: "rgba(174,62,201,0.95)",
  circleFill: "rgba(174,62,201,0.22)",
  axis: "#f8f9fa",
  radius: "#12b886",
  heat: "rgb(34,184,207)",
};

// per-character path colours: palette[FNV-1a(id) % 12] (navkit.viewer.layers.palette_index)
const PALETTE = ["#1971c2", "#e8590c", "#2f9e44", "#ae3ec9", "#f08c00", "#0c8599",
                 "#c2255c", "#5c940d", "#3b5bdb", "#a61e4d", "#495057", "#d9480f"];
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(text)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
function charColor(id) {
  return PALETTE[fnv1a(String(id)) % PALETTE.length];
}
// each area of a level has its own colour, from its name (same palette, same hash)
function areaColor(name) {
  return PALETTE[fnv1a(String(name)) % PALETTE.length];
}
function rgba(hex, alpha) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${alpha})`;
}

// a velocity arrow is as long as the way the character goes in this many seconds
const VELOCITY_SECONDS = 1.0;

// ------------------------------------------------------------------ state
const S = {
  ready: false,
  info: null,
  grid: null, // {w, d, cs, minX, minZ, version, legend, codes}
  gridImage: null,
  view: { scale: 1, ox: 0, oy: 0 },
  tool: "path",
  start: null,
  goal: null,
  result: null,
  heatImage: null,
  queryCount: 0,
  mapLoads: 0,
  pending: 0,
  polys: [], // {kind, name, available, path: Path2D, bbox, rings}
  sim: null, // live simulation
  frames: 0,
  selected: null,
  hover: null, // the ID of the character under the cursor (live simulation)
  replay: null, // {data, index, playing}
  mesh: null, // {version, data, fill, walls, portals: Path2D} (GET /api/mesh)
  meshResult: null, // POST /api/mesh/path's answer
  meshQueryCount: 0,
  meshLoads: 0,
  drawn: { raw: [], smooth: [], characters: 0, nearest: null, query: 0, mapLoads: 0,
           meshPolygons: 0, meshPaths: {}, meshSearched: 0, meshQuery: 0, velocities: 0, hover: null },
  errors: [],
  highlight: null, // {kind: "area" | "obstacle" | "circle", name} hovered in a list
  busy: null, // the busy indicator's text while a request is in flight
  busyLog: [], // every busy text shown, in order (for tests)
  flow: null, // POST /api/flow's answer
  flowCount: 0,
  hpa: null, // GET /api/hpa's answer
  cellInfo: null, // GET /api/cell's answer (inspector)
  inspectedArea: null,
  savedLevel: null, // the text of the last saved level
  legendRange: null, // {min, max} of the heat map's colour scale
  crowd: null, // the --crowd crowd's last frame ({type: "crowd", pos, vel, status, ...})
  crowdFrames: 0,
  crowdHover: null, // index of the crowd agent under the cursor
  cursor: null, // the pointer in cell units, while it is over the map
  building: null, // GET /api/floors's answer (a building), else null
  floor: 0, // the floor shown (a building)
  floorSwitches: 0, // floors shown since the page loaded
  routeStart: null, // {floor, cell, point} (a building's route)
  routeGoal: null,
  route: null, // POST /api/floors/path's answer
  routeCount: 0,
  resets: 0, // POST /api/reset answers applied
};
window.navkit = S;
S.charColor = charColor;
S.paletteIndex = (id) => fnv1a(String(id)) % PALETTE.length;
S.areaColor = areaColor;

const canvas = $("view");
const ctx = canvas.getContext("2d");
let dpr = window.devicePixelRatio || 1;
let redrawQueued = false;

// ------------------------------------------------------------------- http
let busyCount = 0;
function setBusy(text) {
  if (text) {
    busyCount++;
    S.busy = text;
    S.busyLog.push(text);
    $("busy-text").textContent = text;
    $("busy").hidden = false;
  } else {
    busyCount = Math.max(0, busyCount - 1);
    if (!busyCount) { S.busy = null; $("busy").hidden = true; }
  }
}

async function busyApi(text, ...args) {
  setBusy(text);
  try {
    return await api(...args);
  } finally {
    setBusy(null);
  }
}

async function api(method, url, body, contentType = "application/json") {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.body = contentType === "application/json" ? JSON.stringify(body) : body;
    opts.headers["Content-Type"] = contentType;
  }
  S.pending++;
  try {
    const r = await fetch(url, opts);
    const ctype = r.headers.get("content-type") || "";
    const data = ctype.includes("application/json") ? await r.json() : await r.arrayBuffer();
    if (!r.ok) {
      const err = (data && data.error) || { message: `${r.status} ${r.statusText}` };
      const e = new Error(err.message + (err.field ? ` (${err.field})` : ""));
      e.response = err;
      throw e;
    }
    return { data, headers: r.headers };
  } finally {
    S.pending--;
  }
}

let toastTimer = null;
function toast(message, kind = "error") {
  const el = $("toast");
  el.textContent = message;
  el.className = kind === "error" ? "" : "info";
  el.hidden = false;
  if (kind === "error") S.errors.push(message);
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, 4000);
}

// -------------------------------------------------------------- map data
function mix(a, b, t) {
  return [0, 1, 2].map((i) => Math.round(a[i] + (b[i] - a[i]) * t));
}

function legendColors(legend) {
  const maxW = Math.max(...legend);
  return legend.map((w) => {
    if (maxW <= 1) return COLORS.walkable;
    const t = Math.log(w) / Math.log(maxW);
    return mix(COLORS.walkable, COLORS.heavy, 0.85 * t);
  });
}

async function loadInfo() {
  const { data } = await api("GET", "/api/info");
  S.info = data;
  const g = data.grid;
  $("map-name").textContent = `${data.name} (${data.kind})`;
  $("map-meta").textContent =
    `${g.width}×${g.depth} cells · ${g.cellSize} m · ${g.walkable.toLocaleString()} walkable · costs ${data.costs.name} · version ${data.version}`;
  fillAlgorithms(data.algorithms, data.defaultAlgorithm, data.autoAlgorithm);
  fillAreas(data.areas);
  showEdits(data.edits || []);
  fillRadius(data);
  fillObstacles(data.obstacles);
  fillCircles(data.circles || []);
  buildPolygons(data.areas, data.obstacles);
  fillParams(data);
  fillBuilding(data.building || null);
  const scene = data.kind === "scene";
  $("sec-sim").hidden = !scene;
  $("show-char-paths").parentElement.hidden = !scene;
  $("show-velocities").parentElement.hidden = !scene;
  showAvoidance(data.scene ? data.scene.avoidance : undefined);
  const m = data.mesh || { available: false, reason: "this server has no mesh layer" };
  const cb = $("show-mesh");
  cb.disabled = !m.available;
  cb.parentElement.title = m.available ? "the navigation mesh, and mesh paths beside the grid's" : m.reason;
  if (!m.available) cb.checked = false;
}

// The edits the server holds (doors, obstacles, circles, build parameters): they outlive
// this page, so a notice says so while there are any, with a Reset that drops them.
function showEdits(edits) {
  const el = $("edits");
  el.hidden = edits.length === 0;
  if (!edits.length) { $("edits-text").textContent = ""; return; }
  const what = edits.slice(0, 4).map((e) => `${e.name} ${e.change}`).join(", ") + (edits.length > 4 ? ", …" : "");
  const n = edits.length === 1 ? "1 edit" : `${edits.length} edits`;
  $("edits-text").textContent = `${n} held by the server, kept across page loads: ${what}`;
  el.title = edits.map((e) => `${e.kind} ${e.name}: ${e.change}`).join("\n");
}

async function resetEdits() {
  try {
    await busyApi("resetting…", "POST", "/api/reset");
  } catch (e) {
    toast(e.message);
    return;
  }
  S.resets++;
  S.hpa = null;
  S.mesh = null;
  await afterMapChange();
}
S.resetEdits = resetEdits;

// the agent-radius preview: the map's radius (a level's build parameter, else the grid's)
function fillRadius(info) {
  const mapRadius = info.buildParams ? info.buildParams.agentRadius : info.grid.agentRadius;
  const input = $("preview-radius");
  if (S.radiusSource !== mapRadius || input.value === "") {
    // a map with radius 0 (walls not inflated) previews one cell
    input.value = String(mapRadius > 0 ? mapRadius : info.grid.cellSize);
    S.radiusSource = mapRadius;
  }
  S.mapAgentRadius = mapRadius;
  radiusMeta();
  showRadiusRow();
}

function radiusMeta() {
  const m = S.mapAgentRadius;
  $("radius-meta").textContent = m > 0
    ? `the map's agent radius: ${m} m (its walls are inflated by it)`
    : `the map's agent radius is 0 m (walls are not inflated); previewing ${previewRadius()} m`;
}

function showRadiusRow() {
  const on = $("show-radius").checked;
  $("radius-row").hidden = !on;
  $("radius-meta").hidden = !on;
}

async function loadGrid() {
  const { data, headers } = await api("GET", "/api/grid");
  const codes = new Uint8Array(data);
  const w = +headers.get("X-Navkit-Width");
  const d = +headers.get("X-Navkit-Depth");
  const legend = (headers.get("X-Navkit-Legend") || "1").split(",").map(Number);
  const g = S.info.grid;
  S.grid = { w, d, cs: g.cellSize, minX: g.minX, minZ: g.minZ, version: +headers.get("X-Navkit-Version"), legend, codes };
  const cols = legendColors(legend);
  const off = document.createElement("canvas");
  off.width = w;
  off.height = d;
  const octx = off.getContext("2d");
  const img = octx.createImageData(w, d);
  const px = img.data;
  for (let i = 0, n = w * d; i < n; i++) {
    const c = codes[i];
    const rgb = c === 0 ? COLORS.blocked : cols[c - 1] || COLORS.walkable;
    const j = i * 4;
    px[j] = rgb[0]; px[j + 1] = rgb[1]; px[j + 2] = rgb[2]; px[j + 3] = 255;
  }
  octx.putImageData(img, 0, 0);
  S.gridImage = typeof createImageBitmap === "function" ? await createImageBitmap(off) : off;
  fillLegend(legend, cols);
  await composeHeat();
  S.mapLoads++;
}

async function reloadMap() {
  await loadInfo();
  await loadGrid();
  await loadMesh();
  requestRedraw();
}

// ------------------------------------------------------------------ mesh
// The navigation mesh is fetched when the layer is switched on, and again when
// the map's version changes; it is drawn as three Path2Ds in cell space.
function meshOn() {
  return $("show-mesh").checked && !$("show-mesh").disabled;
}

async function loadMesh() {
  if (!meshOn() || !S.grid) return;
  if (S.mesh && S.mesh.version === S.grid.version) return;
  let data;
  try {
    ({ data } = await busyApi("building the navigation mesh…", "GET", "/api/mesh"));
  } catch (e) {
    S.mesh = null;
    showMeshMeta(`mesh: ${e.message}`);
    toast(e.message);
    return;
  }
  const fill = new Path2D();
  for (const p of data.polygons) {
    for (let i = 0; i < p.length; i += 2) {
      const [x, z] = worldToCell(p[i], p[i + 1]);
      if (i) fill.lineTo(x, z); else fill.moveTo(x, z);
    }
    fill.closePath();
  }
  const segs = (flat) => {
    const path = new Path2D();
    for (let i = 0; i < flat.length; i += 4) {
      const [ax, az] = worldToCell(flat[i], flat[i + 1]);
      const [bx, bz] = worldToCell(flat[i + 2], flat[i + 3]);
      path.moveTo(ax, az);
      path.lineTo(bx, bz);
    }
    return path;
  };
  S.mesh = { version: data.version, data, fill, walls: segs(data.walls), portals: segs(data.portals) };
  S.meshLoads++;
  const build = data.buildMs ? ` · built in ${data.buildMs.toFixed(0)} ms` : "";
  const weights = data.weightsIgnored ? " · terrain weights ignored" : "";
  showMeshMeta(`mesh: ${data.nPolygons.toLocaleString()} polygons · ${data.nPortals.toLocaleString()} portals${build}${weights}`);
  requestRedraw();
}
S.loadMesh = loadMesh;

function showMeshMeta(text) {
  const el = $("mesh-meta");
  el.textContent = text;
  el.hidden = !meshOn();
}

function meshMethods() {
  return $("mesh-funnel").checked ? ["exact", "funnel"] : ["exact"];
}

function cellCentreWorld(cell) {
  const g = S.info.grid;
  return [g.minX + (cell[0] + 0.5) * g.cellSize, g.minZ + (cell[1] + 0.5) * g.cellSize];
}

async function runMeshQuery() {
  if (!meshOn() || !S.start || !S.goal) {
    S.meshResult = null;
    showMeshResult();
    return;
  }
  const start = S.start;
  const goal = S.goal;
  const body = { start: cellCentreWorld(start), goal: cellCentreWorld(goal), methods: meshMethods(), nearest: true };
  let result = null;
  try {
    ({ data: result } = await api("POST", "/api/mesh/path", body));
  } catch (e) {
    toast(e.message);
  }
  if (S.start !== start || S.goal !== goal) return; // no longer current
  S.meshResult = result;
  S.meshQueryCount++;
  showMeshResult();
  requestRedraw();
}
S.runMeshQuery = runMeshQuery;

function fmtMeshPath(p) {
  if (!p) return "–";
  if (!p.hasPath) return p.status;
  const st = p.status === "FOUND" ? "" : ` (${p.status})`;
  return `${p.length.toFixed(3)} m · ${p.waypoints.length} pts · ${p.expanded.toLocaleString()} exp${st}`;
}

function showMeshResult() {
  const on = meshOn();
  const funnel = on && $("mesh-funnel").checked;
  $("mesh-funnel-label").hidden = !on;
  $("mesh-searched-label").hidden = !on;
  $("mesh-meta").hidden = !on;
  $("row-mesh").hidden = !on;
  $("row-funnel").hidden = !funnel;
  const paths = (S.meshResult && S.meshResult.paths) || {};
  for (const [id, p] of [["r-mesh", paths.exact], ["r-funnel", paths.funnel]]) {
    $(id).textContent = fmtMeshPath(p);
    $(id).title = p ? `${p.timeMs.toFixed(2)} ms, ${p.generated.toLocaleString()} generated` : "";
  }
}

function drawMesh(px) {
  if (!meshOn() || !S.mesh) return 0;
  ctx.fillStyle = COLORS.meshFill;
  ctx.fill(S.mesh.fill);
  ctx.lineWidth = px;
  ctx.strokeStyle = COLORS.meshPortal;
  ctx.setLineDash([3 * px, 3 * px]);
  ctx.stroke(S.mesh.portals);
  ctx.setLineDash([]);
  ctx.lineWidth = 1.5 * px;
  ctx.strokeStyle = COLORS.meshWall;
  ctx.stroke(S.mesh.walls);
  return S.mesh.data.nPolygons;
}

function searchedPath(ids) {
  // the polygons a mesh search opened, as one Path2D (world -> canvas as drawMesh does)
  const path = new Path2D();
  const polys = S.mesh.data.polygons;
  for (const i of ids) {
    const p = polys[i];
    if (!p) continue;
    for (let k = 0; k < p.length; k += 2) {
      const [x, z] = worldToCell(p[k], p[k + 1]);
      if (k) path.lineTo(x, z); else path.moveTo(x, z);
    }
    path.closePath();
  }
  return path;
}

function drawMeshPaths(px) {
  const out = {};
  const r = S.meshResult;
  S.meshSearchedDrawn = 0;
  if (!meshOn() || !r) return out;
  const ex = r.paths.exact;
  if ($("mesh-searched").checked && S.mesh && ex && ex.searched) {
    ctx.fillStyle = COLORS.meshSearched;
    ctx.fill(searchedPath(ex.searched));
    S.meshSearchedDrawn = ex.searched.length;
  }
  const styles = { exact: [COLORS.meshExact, 3, null], funnel: [COLORS.meshFunnel, 2.5, [6, 4]] };
  for (const [method, [color, width, dash]] of Object.entries(styles)) {
    const p = r.paths[method];
    if (!p || !p.hasPath) continue;
    const pts = p.waypoints.map(([x, z]) => worldToCell(x, z));
    polyline(pts, Math.max(width * px, 0.12), color, dash && dash.map((d) => d * px));
    for (const [x, z] of pts.slice(1, -1)) marker(x, z, Math.max(2.5 * px, 0.12), color);
    out[method] = p.waypoints;
  }
  return out;
}

function fillLegend(legend, cols) {
  const box = $("legend");
  box.textContent = "";
  $("sec-legend").hidden = legend.length <= 1 && legend[0] === 1;
  legend.forEach((w, i) => {
    const span = document.createElement("span");
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = `rgb(${cols[i].join(",")})`;
    span.append(sw, `×${w}`);
    box.append(span);
  });
  // the colour scale: min .. max weight (ticks at both ends and the geometric middle)
  const lo = Math.min(...legend);
  const hi = Math.max(...legend);
  const c0 = cols[legend.indexOf(lo)];
  const c1 = cols[legend.indexOf(hi)];
  $("terrain-bar").style.background = `linear-gradient(to right, rgb(${c0.join(",")}), rgb(${c1.join(",")}))`;
  $("terrain-min").textContent = `×${lo}`;
  $("terrain-mid").textContent = hi > lo ? `×${+Math.sqrt(lo * hi).toFixed(1)}` : "";
  $("terrain-max").textContent = `×${hi}`;
  S.terrainRange = { min: lo, max: hi };
}

function showHeatLegend() {
  const heat = S.heatData;
  const on = !!heat && $("show-heat").checked;
  $("sec-heat-legend").hidden = !on;
  if (!on) { S.legendRange = null; return; }
  const flow = S.result && S.result.algorithm === "flow";
  $("heat-title").textContent = flow ? "Cost to the goal (steps)" : "Cost from the start (steps)";
  const max = heat.maxCost;
  const f = (v) => v.toLocaleString(undefined, { maximumFractionDigits: 2 });
  $("heat-min").textContent = "0";
  $("heat-mid").textContent = f(max / 2);
  $("heat-max").textContent = f(max);
  S.legendRange = { min: 0, max };
}

function fillAlgorithms(list, def, auto) {
  const sel = $("algorithm");
  const prev = sel.value;
  sel.textContent = "";
  for (const a of list) {
    const o = document.createElement("option");
    o.value = a.name;
    o.textContent = a.available ? a.label : `${a.label} (n/a)`;
    // auto says what it runs on this map (the library's default)
    if (a.name === "auto" && a.available && auto) o.textContent = `auto → ${auto}`;
    o.disabled = !a.available;
    o.title = a.available ? a.label : a.reason;
    sel.append(o);
  }
  const keep = list.find((a) => a.name === prev && a.available);
  sel.value = keep ? prev : def;
}

function fillAreas(areas) {
  const box = $("areas");
  box.textContent = "";
  const shown = areas.filter((a) => !a.generated); // a Tiled map's tile rectangles are machinery
  $("sec-areas").hidden = shown.length === 0;
  for (const a of shown) {
    const label = document.createElement("label");
    const cb = document.createElement("input");
    cb.type = "checkbox";
    cb.checked = a.available;
    cb.dataset.area = a.name;
    cb.id = `area-${a.name}`;
    cb.addEventListener("change", () => toggleArea(a.name, cb.checked, cb));
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = a.name + (a.weight !== 1 ? ` (×${a.weight})` : "");
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = areaColor(a.name);
    sw.dataset.areaColor = areaColor(a.name);
    label.append(cb, sw, name);
    const info = document.createElement("button");
    info.type = "button";
    info.textContent = "i";
    info.title = "inspect this area";
    info.dataset.inspectArea = a.name;
    info.addEventListener("click", (e) => { e.preventDefault(); inspectArea(a.name); });
    label.append(info);
    hoverable(label, "area", a.name);
    box.append(label);
  }
}

// hovering a list entry highlights its area / obstacle / circle on the map
function hoverable(el, kind, name) {
  el.dataset.hoverKind = kind;
  el.dataset.hoverName = name;
  el.addEventListener("mouseenter", () => { S.highlight = { kind, name }; el.classList.add("hl"); requestRedraw(); });
  el.addEventListener("mouseleave", () => {
    if (S.highlight && S.highlight.kind === kind && S.highlight.name === name) S.highlight = null;
    el.classList.remove("hl");
    requestRedraw();
  });
}

function fillCircles(circles) {
  const box = $("circles");
  box.textContent = "";
  S.circles = circles;
  for (const c of circles) {
    const div = document.createElement("div");
    div.className = "item";
    const name = document.createElement("span");
    name.textContent = `${c.name} · r ${c.radius} m · ${c.cells} cells`;
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = "remove";
    b.dataset.circle = c.name;
    b.addEventListener("click", () => removeCircle(c.name));
    div.append(name, b);
    hoverable(div, "circle", c.name);
    box.append(div);
  }
}

// ------------------------------------------------------------ inspector
function fmtValue(v) {
  if (v === null || v === undefined) return "–";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(+v.toFixed(4));
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "string") return v;
  if (Array.isArray(v)) {
    if (v.length === 0) return "none";
    if (v.every((x) => typeof x !== "object" || x === null)) {
      const txt = v.map(fmtValue).join(", ");
      return v.length === 2 && v.every((x) => typeof x === "number") ? `(${txt})` : txt;
    }
    const head = v.slice(0, 8).map(fmtValue).join("; ");
    return v.length > 8 ? `${head}; … (${v.length})` : head;
  }
  return Object.entries(v).map(([k, x]) => `${k}: ${fmtValue(x)}`).join(", ");
}

function fillTable(table, data, order = []) {
  table.textContent = "";
  const keys = [...order.filter((k) => k in data), ...Object.keys(data).filter((k) => !order.includes(k))];
  for (const k of keys) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.textContent = k;
    const td = document.createElement("td");
    td.textContent = fmtValue(data[k]);
    td.dataset.key = k;
    tr.append(th, td);
    table.append(tr);
  }
}

async function inspectCell(cell) {
  let data;
  try {
    ({ data } = await api("GET", `/api/cell?x=${cell[0]}&z=${cell[1]}`));
  } catch (e) {
    toast(e.message);
    return;
  }
  S.cellInfo = data;
  S.inspectedArea = null;
  $("cell-title").textContent = `Cell (${data.cell.join(", ")})`;
  const shown = { ...data };
  delete shown.version;
  fillTable($("cell-table"), shown, ["cell", "world", "walkable", "weight", "areas", "obstacles", "circles"]);
  $("sec-cell").hidden = false;
  requestRedraw();
}
S.inspectCell = inspectCell;

function inspectArea(name) {
  const a = (S.info.areas || []).find((x) => x.name === name);
  if (!a) return;
  const bb = ringBBox(a.polygon, [Infinity, Infinity, -Infinity, -Infinity]);
  S.inspectedArea = name;
  S.cellInfo = null;
  $("cell-title").textContent = `Area ${name}`;
  fillTable($("cell-table"), {
    name: a.name, colour: areaColor(a.name), available: a.available, weight: a.weight, points: a.polygon.length,
    holes: (a.holes || []).length, "min (m)": [bb[0], bb[1]], "max (m)": [bb[2], bb[3]],
  });
  $("sec-cell").hidden = false;
  S.highlight = { kind: "area", name };
  requestRedraw();
}
S.inspectArea = inspectArea;

// ------------------------------------------------------------ build panel
const PARAMS = ["cellSize", "agentRadius", "objectPadding", "boundaryPadding"];
function fillParams(info) {
  const p = info.buildParams;
  $("sec-level").hidden = !p;
  if (!p) return;
  const scene = info.kind === "scene" || info.kind === "building";
  for (const k of PARAMS) {
    const el = $(`p-${k}`);
    if (document.activeElement !== el) el.value = String(p[k]);
    el.disabled = scene;
  }
  $("rebuild").disabled = scene;
  $("rebuild").title = info.kind === "building" ? "a building's floors are rebuilt by editing the building file"
    : scene ? "a scene's level is rebuilt by editing the scene file" : "rebuild the level with these parameters";
  $("save-level").title = info.kind === "building" ? "the building as edited (every floor's doors and obstacles, the links), as JSON"
    : "the level as edited (doors, obstacles, parameters), as JSON";
  const g = info.grid;
  $("params-meta").textContent = `${g.width}×${g.depth} cells`;
}

async function rebuildLevel() {
  const body = {};
  for (const k of PARAMS) {
    const raw = $(`p-${k}`).value.trim();
    const v = Number(raw);
    body[k] = raw === "" || !Number.isFinite(v) ? raw : v;
  }
  const err = $("params-error");
  try {
    const { data } = await busyApi("rebuilding…", "POST", "/api/level/rebuild", body);
    err.hidden = true;
    err.textContent = "";
    S.rebuilt = data;
  } catch (e) {
    err.textContent = e.message;
    err.hidden = false;
    S.paramsError = e.response || { message: e.message };
    return;
  }
  S.paramsError = null;
  S.start = null; S.goal = null; S.result = null; S.heatData = null; S.flow = null;
  S.mesh = null; S.hpa = null; S.cellInfo = null;
  await reloadMap();
  fitView();
  showResult();
  await refreshLayers();
}

async function saveLevel() {
  let r;
  setBusy("saving…");
  try {
    r = await fetch("/api/level");
    const text = await r.text();
    if (!r.ok) {
      const e = JSON.parse(text).error;
      throw new Error(e.message);
    }
    S.savedLevel = text;
    const cd = r.headers.get("content-disposition") || "";
    const m = /filename="([^"]+)"/.exec(cd);
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    a.download = m ? m[1] : "level.json";
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    S.savedCount = (S.savedCount || 0) + 1;
  } catch (e) {
    toast(e.message);
  } finally {
    setBusy(null);
  }
}

function fillObstacles(obstacles) {
  const box = $("obstacles");
  box.textContent = "";
  $("obstacle-count").textContent = `(${obstacles.length})`;
  for (const o of obstacles) {
    const div = document.createElement("div");
    div.className = "item";
    const name = document.createElement("span");
    name.textContent = o.name + (o.added ? " ·added" : "");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = "remove";
    b.dataset.obstacle = o.name;
    b.addEventListener("click", () => removeObstacle(o.name));
    div.append(name, b);
    hoverable(div, "obstacle", o.name);
    box.append(div);
  }
}

function worldToCell(x, z) {
  const g = S.info.grid;
  return [(x - g.minX) / g.cellSize, (z - g.minZ) / g.cellSize];
}

function ringBBox(ring, bb) {
  for (const [x, z] of ring) {
    bb[0] = Math.min(bb[0], x); bb[1] = Math.min(bb[1], z);
    bb[2] = Math.max(bb[2], x); bb[3] = Math.max(bb[3], z);
  }
  return bb;
}

function buildPolygons(areas, obstacles) {
  const polys = [];
  const add = (kind, item, rings) => {
    const cellRings = rings.map((r) => r.map(([x, z]) => worldToCell(x, z)));
    const path = new Path2D();
    for (const r of cellRings) {
      r.forEach(([x, z], i) => (i ? path.lineTo(x, z) : path.moveTo(x, z)));
      path.closePath();
    }
    const bbox = ringBBox(cellRings[0], [Infinity, Infinity, -Infinity, -Infinity]);
    polys.push({ kind, name: item.name, available: item.available, added: item.added, path, bbox, rings,
                 color: kind === "area" ? areaColor(item.name) : null });
  };
  for (const a of areas) if (!a.generated) add("area", a, [a.polygon, ...(a.holes || [])]);
  for (const o of obstacles) add("obstacle", o, [o.polygon]);
  S.polys = polys;
}

function pointInRing(x, z, ring) {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, zi] = ring[i];
    const [xj, zj] = ring[j];
    if ((zi > z) !== (zj > z) && x < ((xj - xi) * (z - zi)) / (zj - zi) + xi) inside = !inside;
  }
  return inside;
}

// ------------------------------------------------------------------ view
function resize() {
  dpr = window.devicePixelRatio || 1;
  const r = canvas.getBoundingClientRect();
  canvas.width = Math.max(1, Math.round(r.width * dpr));
  canvas.height = Math.max(1, Math.round(r.height * dpr));
  requestRedraw();
}

function fitView() {
  if (!S.grid) return;
  const r = canvas.getBoundingClientRect();
  const pad = 16;
  const scale = Math.max(0.01, Math.min((r.width - 2 * pad) / S.grid.w, (r.height - 2 * pad) / S.grid.d));
  S.view.scale = scale;
  S.view.ox = (r.width - S.grid.w * scale) / 2;
  S.view.oy = (r.height - S.grid.d * scale) / 2;
  requestRedraw();
}

function clientToCell(clientX, clientY) {
  const r = canvas.getBoundingClientRect();
  const v = S.view;
  return [(clientX - r.left - v.ox) / v.scale, (clientY - r.top - v.oy) / v.scale];
}

// page coordinates of a cell's centre (tests click here)
function cellToClient(x, z) {
  const r = canvas.getBoundingClientRect();
  const v = S.view;
  return [r.left + v.ox + (x + 0.5) * v.scale, r.top + v.oy + (z + 0.5) * v.scale];
}
S.cellToClient = cellToClient;
S.fitView = fitView;

function zoomAt(clientX, clientY, factor) {
  const r = canvas.getBoundingClientRect();
  const v = S.view;
  const sx = clientX - r.left;
  const sy = clientY - r.top;
  const ns = Math.min(512, Math.max(0.02, v.scale * factor));
  const f = ns / v.scale;
  v.ox = sx - (sx - v.ox) * f;
  v.oy = sy - (sy - v.oy) * f;
  v.scale = ns;
  requestRedraw();
}

function visibleCells() {
  const r = canvas.getBoundingClientRect();
  const v = S.view;
  return [-v.ox / v.scale, -v.oy / v.scale, (r.width - v.ox) / v.scale, (r.height - v.oy) / v.scale];
}

function boxVisible(bb, vis, pad = 0) {
  return !(bb[2] + pad < vis[0] || bb[0] - pad > vis[2] || bb[3] + pad < vis[1] || bb[1] - pad > vis[3]);
}

// ------------------------------------------------------------------ draw
function requestRedraw() {
  if (redrawQueued) return;
  redrawQueued = true;
  requestAnimationFrame(() => {
    redrawQueued = false;
    draw();
  });
}
S.requestRedraw = requestRedraw;
S.draw = () => draw();

function heatColor(v) {
  // 1..255 -> blue, cyan, yellow, red
  const t = (v - 1) / 254;
  const stops = [[49, 99, 210], [34, 184, 207], [250, 218, 94], [232, 89, 12]];
  const p = t * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(p));
  return mix(stops[i], stops[i + 1], p - i);
}

// The heat map is blended into a copy of the grid image (one pixel per cell),
// so a frame still draws a single bitmap and heat and grid never disagree by
// a pixel at fractional zoom.
async function buildHeat(heat) {
  S.heatData = heat && heat.count ? heat : null;
  await composeHeat();
}

async function composeHeat() {
  S.heatImage = null;
  const heat = S.heatData;
  if (!heat || !S.gridImage || heat.x0 + heat.w > S.grid.w || heat.z0 + heat.h > S.grid.d) return;
  const bytes = Uint8Array.from(atob(heat.data), (c) => c.charCodeAt(0));
  const layer = document.createElement("canvas");
  layer.width = heat.w;
  layer.height = heat.h;
  const lctx = layer.getContext("2d");
  const img = lctx.createImageData(heat.w, heat.h);
  const lut = new Array(256);
  for (let v = 1; v < 256; v++) lut[v] = heatColor(v);
  for (let i = 0; i < bytes.length; i++) {
    const v = bytes[i];
    if (!v) continue;
    const c = lut[v];
    const j = i * 4;
    img.data[j] = c[0]; img.data[j + 1] = c[1]; img.data[j + 2] = c[2]; img.data[j + 3] = 255;
  }
  lctx.putImageData(img, 0, 0);
  const off = document.createElement("canvas");
  off.width = S.grid.w;
  off.height = S.grid.d;
  const octx = off.getContext("2d");
  octx.imageSmoothingEnabled = false;
  octx.drawImage(S.gridImage, 0, 0);
  octx.globalAlpha = 0.55;
  octx.drawImage(layer, heat.x0, heat.z0);
  S.heatImage = typeof createImageBitmap === "function" ? await createImageBitmap(off) : off;
}

function polyline(points, lineWidth, color, dash) {
  if (points.length < 2) return;
  ctx.beginPath();
  points.forEach(([x, z], i) => (i ? ctx.lineTo(x, z) : ctx.moveTo(x, z)));
  ctx.lineWidth = lineWidth;
  ctx.strokeStyle = color;
  ctx.setLineDash(dash || []);
  ctx.stroke();
  ctx.setLineDash([]);
}

function marker(x, z, radius, fill, shape = "circle") {
  ctx.beginPath();
  if (shape === "diamond") {
    ctx.moveTo(x, z - radius); ctx.lineTo(x + radius, z); ctx.lineTo(x, z + radius); ctx.lineTo(x - radius, z);
    ctx.closePath();
  } else {
    ctx.arc(x, z, radius, 0, Math.PI * 2);
  }
  ctx.fillStyle = fill;
  ctx.fill();
  ctx.lineWidth = 1.5 / S.view.scale;
  ctx.strokeStyle = "#fff";
  ctx.stroke();
}

function draw() {
  const v = S.view;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = COLORS.background;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  if (!S.grid || !S.gridImage) return;
  ctx.setTransform(dpr * v.scale, 0, 0, dpr * v.scale, dpr * v.ox, dpr * v.oy);
  ctx.imageSmoothingEnabled = false;
  const heatOn = $("show-heat").checked && S.heatImage && !S.replayActive;
  ctx.drawImage(heatOn ? S.heatImage : S.gridImage, 0, 0);
  const px = 1 / v.scale; // one CSS pixel in cell units
  ctx.lineWidth = px;
  ctx.strokeStyle = "#5c5f66";
  ctx.strokeRect(-px / 2, -px / 2, S.grid.w + px, S.grid.d + px);
  const vis = visibleCells();
  // what this frame drew, for tests: query = the number of answered queries it shows
  const drawn = { raw: [], smooth: [], characters: 0, nearest: null, query: S.queryCount, mapLoads: S.mapLoads,
                  meshPolygons: 0, meshPaths: {}, meshSearched: 0, meshQuery: S.meshQueryCount, velocities: 0, hover: null,
                  pathColors: {}, areaColors: {}, scale: v.scale };
  // the on-canvas legend: one entry per kind of thing this frame draws (drawLegend)
  const legend = [];
  // group: 0 paths, 1 markers, 2 search layers, 3 map geometry (the legend's order)
  const GROUPS = { line: 0, thin: 0, dash: 0, dot: 1, diamond: 1, ring: 1, square: 2, fill: 2 };
  const key = (label, color, style, group) => legend.push({ label, color, style, group: group ?? GROUPS[style] ?? 3 });
  if (heatOn) key(S.result && S.result.algorithm === "flow" ? "cost to the goal (blue near, red far)"
    : "expanded cells (blue near, red far)", COLORS.heat, "heat", 2);

  if ($("show-polygons").checked) {
    const fillAreas = $("show-area-colors").checked;
    const kinds = new Set();
    const areaKeys = [];
    for (const p of S.polys) {
      if (!boxVisible(p.bbox, vis, 1)) continue;
      let color;
      if (p.kind === "area") color = p.color;
      else color = p.added ? COLORS.obstacleAdded : COLORS.obstacle;
      if (p.kind === "area" && fillAreas && p.available) {
        ctx.fillStyle = rgba(p.color, 0.12);
        ctx.fill(p.path, "evenodd");
      }
      ctx.lineWidth = (p.kind === "area" ? 2 : 1.5) * px;
      ctx.strokeStyle = color;
      ctx.setLineDash(p.kind === "area" && !p.available ? [6 * px, 4 * px] : []);
      ctx.stroke(p.path);
      if (p.kind === "area" && !p.available) {
        ctx.fillStyle = "rgba(224,49,49,0.12)";
        ctx.fill(p.path, "evenodd");
      }
      if (p.kind === "area") {
        drawn.areaColors[p.name] = p.color;
        areaKeys.push([p.available ? p.name : `${p.name} (closed)`, p.color, p.available ? "area" : "areaClosed"]);
      } else {
        kinds.add(p.added ? "added" : "level");
      }
    }
    ctx.setLineDash([]);
    // a few areas are listed by name; more are one entry (their labels and the Areas
    // list name them), closed ones still by name
    const most = 4;
    if (areaKeys.length <= most) {
      for (const [label, color, style] of areaKeys) key(label, color, style);
    } else {
      key(`${areaKeys.length} areas, each in its own colour`, areaKeys.map((a) => a[1]), "areas");
      const closed = areaKeys.filter((a) => a[2] === "areaClosed");
      for (const [label, color, style] of closed.slice(0, most)) key(label, color, style);
      if (closed.length > most) key(`… ${closed.length - most} more closed`, null, "none");
    }
    if (kinds.has("level")) key("obstacle", COLORS.obstacle, "outline");
    if (kinds.has("added")) key("obstacle (added here)", COLORS.obstacleAdded, "outline");
  }
  drawn.circles = drawCircles(px);
  if (drawn.circles) key("circle obstacle", COLORS.circle, "disc");
  drawn.highlight = drawHighlight(px);
  drawn.hpa = $("show-hpa").checked ? drawHpa(px) : null;
  if (drawn.hpa) {
    key("HPA* cluster border", COLORS.hpaCluster, "dash", 2);
    key("HPA* entrance", COLORS.hpaNode, "square");
  }
  drawn.meshPolygons = drawMesh(px); // above the level's outlines: its walls are the inflated ones
  if (drawn.meshPolygons) {
    key("nav mesh wall", COLORS.meshWall, "line", 3);
    key("nav mesh portal", COLORS.meshPortal, "dash", 3);
  }
  const res = S.result;
  if (res && res.hasPath) {
    if ($("show-raw").checked) {
      const pts = res.cells.map(([x, z]) => [x + 0.5, z + 0.5]);
      polyline(pts, Math.max(1.5 * px, 0.12), COLORS.raw);
      drawn.raw = res.cells.map((c) => [c[0], c[1]]);
      key("raw path (every cell)", COLORS.raw, "thin");
    }
    if ($("show-smooth").checked) {
      const pts = res.smoothed.map(([x, z]) => [x + 0.5, z + 0.5]);
      polyline(pts, Math.max(3 * px, 0.2), COLORS.smooth);
      drawn.smooth = res.smoothed.map((c) => [c[0], c[1]]);
      key("smoothed grid path", COLORS.smooth, "line");
    }
  }
  drawn.spline = 0;
  if (res && res.hasPath && $("show-spline").checked && res.spline && res.spline.length > 1) {
    polyline(res.spline.map(([x, z]) => worldToCell(x, z)), Math.max(2.5 * px, 0.15), COLORS.spline);
    drawn.spline = res.spline.length;
    key("smooth curve", COLORS.spline, "line");
  }
  drawn.jumpPoints = null;
  if (res && res.jumpPoints && $("show-jumps").checked) {
    const jr = Math.max(3.5 * px, 0.22);
    for (const [x, z] of res.jumpPoints.generated) {
      ctx.beginPath();
      ctx.arc(x + 0.5, z + 0.5, jr, 0, Math.PI * 2);
      ctx.lineWidth = 1.5 * px;
      ctx.strokeStyle = COLORS.jumpGenerated;
      ctx.stroke();
    }
    for (const [x, z] of res.jumpPoints.expanded) marker(x + 0.5, z + 0.5, jr, COLORS.jumpExpanded, "diamond");
    drawn.jumpPoints = { expanded: res.jumpPoints.expanded.length, generated: res.jumpPoints.generated.length };
    if (drawn.jumpPoints.expanded) key("jump point (expanded)", COLORS.jumpExpanded, "diamond");
    if (drawn.jumpPoints.generated) key("jump point (pushed)", COLORS.jumpGenerated, "ring");
  }
  drawn.flowArrows = $("show-flow").checked ? drawFlow(px, vis) : 0;
  if (drawn.flowArrows) key("flow direction", COLORS.flow, "line", 2);
  drawn.meshPaths = drawMeshPaths(px);
  drawn.meshSearched = S.meshSearchedDrawn;
  if (drawn.meshSearched) key("searched polygons", COLORS.meshSearched, "fill");
  if (drawn.meshPaths.exact) key("mesh path (exact)", COLORS.meshExact, "line");
  if (drawn.meshPaths.funnel) key("mesh path (funnel)", COLORS.meshFunnel, "dash");
  drawn.building = S.building ? drawBuilding(px, key) : null;
  const mr = Math.max(5 * px, 0.35);
  if (S.start) { marker(S.start[0] + 0.5, S.start[1] + 0.5, mr, COLORS.start); key("start", COLORS.start, "dot"); }
  if (S.goal) { marker(S.goal[0] + 0.5, S.goal[1] + 0.5, mr, COLORS.goal); key("goal", COLORS.goal, "dot"); }
  if (res && res.nearest && res.endCell) {
    const [ex, ez] = res.endCell;
    polyline([[ex + 0.5, ez + 0.5], [res.goal[0] + 0.5, res.goal[1] + 0.5]], 1.5 * px, COLORS.nearest, [4 * px, 3 * px]);
    marker(ex + 0.5, ez + 0.5, mr * 1.2, COLORS.nearest, "diamond");
    drawn.nearest = [ex, ez];
    key("nearest reachable cell", COLORS.nearest, "diamond");
  }
  drawn.radius = $("show-radius").checked ? drawRadius(px) : null;
  if (drawn.radius) key(`agent radius ${+drawn.radius.radius.toFixed(3)} m`, COLORS.radius, "ring");
  drawn.charStates = new Set();
  drawn.characters = drawCharacters(vis, px, drawn);
  const pathCols = [...new Set(Object.values(drawn.pathColors))];
  if (pathCols.length) key("character paths (own colours)", pathCols, "areas", 0);
  for (const st of "wbrix") {
    if (drawn.charStates.has(st)) key(`character: ${STATE_NAMES[st]}`, COLORS.state[st], "dot", 1);
  }
  drawn.charStates = [...drawn.charStates];
  if (drawn.velocities) key("velocity (1 s)", COLORS.velocity, "line", 1);
  if (drawn.hover) key("avoidance radius", COLORS.avoidRadius, "ring", 1);
  drawn.crowd = drawCrowd(vis, px);
  if (drawn.crowd) {
    for (const k of [0, 1, 2]) {
      if (drawn.crowd.statuses.includes(k)) key(`agent: ${CROWD_NAMES[k]}`, CROWD_COLORS[k], "dot", 1);
    }
    if (drawn.crowd.velocities) key("agent velocity (1 s)", COLORS.velocity, "line", 1);
    if (drawn.crowd.hover) key("neighbour radius", COLORS.avoidRadius, "ring", 1);
  }
  drawn.axis = $("show-axes").checked ? drawAxes() : null;
  // screen-space layers last: the legend, then the labels placed around it
  legend.sort((a, b) => a.group - b.group); // stable: drawing order within a group
  const legendBox = $("show-legend").checked && legend.length ? drawLegend(legend) : null;
  drawn.legend = legendBox ? legendBox.entries : [];
  drawn.legendBox = legendBox ? legendBox.box : null;
  const avoid = legendBox ? [legendBox.box] : [];
  drawn.linkLabels = drawn.building && $("show-labels").checked ? drawLinkLabels(drawn.building.ends, avoid) : [];
  const placed = $("show-labels").checked ? drawLabels(vis, [...avoid, ...drawn.linkLabels]) : null;
  drawn.labels = placed ? placed.names : [];
  drawn.labelBoxes = placed ? placed.boxes : [];
  drawn.labelsSkipped = placed ? placed.skipped : [];
  S.drawn = drawn;
}

// the agent radius (metres) as a dashed circle at the cursor and a thin one at every
// waypoint of the grid path: what the map's walls were inflated by
function previewRadius() {
  const v = +$("preview-radius").value;
  return Number.isFinite(v) && v > 0 ? v : 0;
}

function drawRadius(px) {
  const radius = previewRadius();
  if (!radius || !S.info) return null;
  const r = radius / S.info.grid.cellSize;
  const out = { radius, cursor: false, waypoints: 0 };
  ctx.strokeStyle = COLORS.radius;
  if (S.cursor) {
    const [cx, cz] = S.cursor;
    ctx.beginPath();
    ctx.arc(cx, cz, r, 0, Math.PI * 2);
    ctx.fillStyle = rgba(COLORS.radius, 0.15);
    ctx.fill();
    ctx.lineWidth = 2 * px;
    ctx.setLineDash([5 * px, 3 * px]);
    ctx.stroke();
    ctx.setLineDash([]);
    out.cursor = true;
  }
  const res = S.result;
  if (res && res.hasPath && res.waypoints) {
    ctx.lineWidth = 1.5 * px;
    for (const [x, z] of res.waypoints) {
      const [wx, wz] = worldToCell(x, z);
      ctx.beginPath();
      ctx.arc(wx, wz, r, 0, Math.PI * 2);
      ctx.stroke();
      out.waypoints++;
    }
  }
  return out.cursor || out.waypoints ? out : null;
}

// The legend, bottom left of the canvas in screen pixels: a swatch drawn the way the
// thing is drawn, and its name. Returns its entries (with each swatch's centre, CSS
// pixels from the canvas' corner) and its box.
function drawLegend(entries) {
  const r = canvas.getBoundingClientRect();
  const rowH = 16, sw = 22, pad = 6;
  ctx.save();
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.font = "11px system-ui, sans-serif";
  const w = Math.ceil(Math.max(...entries.map((e) => ctx.measureText(e.label).width)) + sw + 3 * pad);
  const h = entries.length * rowH + 2 * pad;
  const x0 = 10, y0 = Math.max(10, r.height - h - 10);
  ctx.fillStyle = "rgba(255,255,255,0.92)";
  ctx.strokeStyle = "rgba(0,0,0,0.35)";
  ctx.lineWidth = 1;
  ctx.fillRect(x0, y0, w, h);
  ctx.strokeRect(x0 + 0.5, y0 + 0.5, w - 1, h - 1);
  const out = [];
  entries.forEach((e, i) => {
    const cy = y0 + pad + i * rowH + rowH / 2;
    const cx = x0 + pad + sw / 2;
    legendSwatch(e, cx, cy, sw);
    ctx.fillStyle = COLORS.label;
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    ctx.fillText(e.label, x0 + 2 * pad + sw, cy);
    out.push({ ...e, x: cx, y: cy });
  });
  ctx.restore();
  return { entries: out, box: { x: x0, y: y0, w, h } };
}

function legendSwatch(e, cx, cy, sw) {
  const c = e.color;
  if (!c) return;
  const half = sw / 2;
  ctx.setLineDash([]);
  if (e.style === "line" || e.style === "thin") {
    ctx.fillStyle = c;
    const t = e.style === "thin" ? 2 : 4;
    ctx.fillRect(cx - half, cy - t / 2, sw, t);
  } else if (e.style === "dash") {
    ctx.fillStyle = c;
    for (const dx of [-half, -half + 8, -half + 16]) ctx.fillRect(cx + dx, cy - 1.5, 5, 3);
  } else if (e.style === "dot" || e.style === "disc") {
    ctx.beginPath();
    ctx.arc(cx, cy, 5, 0, Math.PI * 2);
    ctx.fillStyle = c;
    ctx.fill();
  } else if (e.style === "diamond") {
    ctx.beginPath();
    ctx.moveTo(cx, cy - 6); ctx.lineTo(cx + 6, cy); ctx.lineTo(cx, cy + 6); ctx.lineTo(cx - 6, cy);
    ctx.closePath();
    ctx.fillStyle = c;
    ctx.fill();
  } else if (e.style === "ring") {
    ctx.beginPath();
    ctx.arc(cx, cy, 5, 0, Math.PI * 2);
    ctx.lineWidth = 2;
    ctx.strokeStyle = c;
    ctx.stroke();
    ctx.fillStyle = c;
    ctx.fillRect(cx - 1, cy - 1, 2, 2);
  } else if (e.style === "square") {
    ctx.fillStyle = c;
    ctx.fillRect(cx - 4, cy - 4, 8, 8);
  } else if (e.style === "fill") {
    ctx.fillStyle = c;
    ctx.fillRect(cx - half, cy - 5, sw, 10);
  } else if (e.style === "heat") { // the heat map's scale, blue (near) to red (far)
    const g = ctx.createLinearGradient(cx - half, 0, cx + half, 0);
    [1, 85, 170, 255].forEach((v, i) => g.addColorStop(i / 3, `rgb(${heatColor(v).join(",")})`));
    ctx.fillStyle = g;
    ctx.fillRect(cx - half, cy - 5, sw, 10);
  } else if (e.style === "areas") { // several areas: a stripe of each colour (up to 6)
    const cols = c.slice(0, 6);
    const step = sw / cols.length;
    cols.forEach((col, i) => { ctx.fillStyle = col; ctx.fillRect(cx - half + i * step, cy - 5, Math.ceil(step), 10); });
  } else { // area, areaClosed, outline: a small box outlined (areas also filled) in the colour
    if (e.style === "area") { ctx.fillStyle = rgba(c, 0.35); ctx.fillRect(cx - half, cy - 5, sw, 10); }
    if (e.style === "areaClosed") { ctx.fillStyle = "rgba(224,49,49,0.25)"; ctx.fillRect(cx - half, cy - 5, sw, 10); }
    ctx.fillStyle = c;
    ctx.fillRect(cx - 3, cy - 3, 6, 6); // the swatch's centre is the colour itself
    ctx.strokeStyle = c;
    ctx.lineWidth = 2;
    if (e.style === "areaClosed") ctx.setLineDash([4, 3]);
    ctx.strokeRect(cx - half + 1, cy - 5, sw - 2, 10);
    ctx.setLineDash([]);
  }
}

// circle obstacles: the disc, and the cells whose centre lies in it (docs/rules.md §7.1)
function drawCircles(px) {
  const circles = S.circles || [];
  if (!circles.length || !S.info) return 0;
  const g = S.info.grid;
  for (const c of circles) {
    const [cx, cz] = worldToCell(c.center[0], c.center[1]);
    const r = c.radius / g.cellSize;
    ctx.fillStyle = "rgba(174,62,201,0.35)";
    for (let z = Math.max(0, Math.floor(cz - r - 1)); z <= Math.min(S.grid.d - 1, Math.ceil(cz + r + 1)); z++) {
      for (let x = Math.max(0, Math.floor(cx - r - 1)); x <= Math.min(S.grid.w - 1, Math.ceil(cx + r + 1)); x++) {
        const wx = g.minX + (x + 0.5) * g.cellSize - c.center[0];
        const wz = g.minZ + (z + 0.5) * g.cellSize - c.center[1];
        if (wx * wx + wz * wz <= c.radius * c.radius) ctx.fillRect(x, z, 1, 1);
      }
    }
    ctx.beginPath();
    ctx.arc(cx, cz, r, 0, Math.PI * 2);
    ctx.fillStyle = COLORS.circleFill;
    ctx.fill();
    ctx.lineWidth = 1.5 * px;
    ctx.strokeStyle = COLORS.circle;
    ctx.stroke();
  }
  return circles.length;
}

function drawHighlight(px) {
  const h = S.highlight;
  if (!h) return null;
  if (h.kind === "circle") {
    const c = (S.circles || []).find((x) => x.name === h.name);
    if (!c) return null;
    const [cx, cz] = worldToCell(c.center[0], c.center[1]);
    ctx.beginPath();
    ctx.arc(cx, cz, c.radius / S.info.grid.cellSize, 0, Math.PI * 2);
    ctx.fillStyle = COLORS.highlightFill;
    ctx.fill();
    ctx.lineWidth = 4 * px;
    ctx.strokeStyle = COLORS.highlight;
    ctx.stroke();
    return h.name;
  }
  const p = S.polys.find((q) => q.kind === h.kind && q.name === h.name);
  if (!p) return null;
  // outline only: what lies inside (a closed door's wall) stays readable
  ctx.lineWidth = 7 * px;
  ctx.strokeStyle = "rgba(0,0,0,0.35)";
  ctx.stroke(p.path);
  ctx.lineWidth = 4 * px;
  ctx.strokeStyle = COLORS.highlight;
  ctx.stroke(p.path);
  return h.name;
}

function ringCentroid(ring) {
  let a = 0, x = 0, z = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const f = ring[j][0] * ring[i][1] - ring[i][0] * ring[j][1];
    a += f;
    x += (ring[j][0] + ring[i][0]) * f;
    z += (ring[j][1] + ring[i][1]) * f;
  }
  if (Math.abs(a) < 1e-12) return ring[0];
  return [x / (3 * a), z / (3 * a)];
}

// Area (door) and obstacle names, in screen pixels. Greedy placement: each label takes
// the first spot around its polygon's centroid (on it, a line above or below, to the
// right or left, two lines off) whose box meets no label already placed and no box in
// `avoid` (the legend); a label with no free spot is skipped. Closed doors go first.
// Returns the names drawn, their boxes (CSS pixels from the canvas' corner: x, y = top
// left) and the names skipped.
function drawLabels(vis, avoid) {
  const v = S.view;
  const out = { names: [], boxes: [], skipped: [] };
  ctx.save();
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.font = "11px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  const h = 14, gap = 1;
  const taken = avoid.map((b) => ({ ...b }));
  const r = canvas.getBoundingClientRect();
  const outside = (b) => b.x < 0 || b.y < 0 || b.x + b.w > r.width || b.y + b.h > r.height;
  const clash = (b) => outside(b) || taken.some((t) => b.x < t.x + t.w + gap && t.x < b.x + b.w + gap
                                                    && b.y < t.y + t.h + gap && t.y < b.y + b.h + gap);
  const order = S.polys.filter((p) => boxVisible(p.bbox, vis, 1));
  order.sort((a, b) => (a.kind === "area" && !a.available ? 0 : 1) - (b.kind === "area" && !b.available ? 0 : 1));
  for (const p of order) {
    const [wx, wz] = ringCentroid(p.rings[0]);
    const [x, z] = worldToCell(wx, wz);
    const ax = v.ox + x * v.scale, ay = v.oy + z * v.scale;
    const text = p.kind === "area" && !p.available ? `${p.name} (closed)` : p.name;
    const w = Math.ceil(ctx.measureText(text).width) + 6;
    const spots = [[0, 0], [0, -h], [0, h], [w / 2 + 4, 0], [-w / 2 - 4, 0], [0, -2 * h], [0, 2 * h],
                   [w / 2 + 4, -h], [-w / 2 - 4, -h], [w / 2 + 4, h], [-w / 2 - 4, h]];
    let box = null;
    for (const [dx, dy] of spots) {
      const b = { x: ax + dx - w / 2, y: ay + dy - h / 2, w, h };
      if (!clash(b)) { box = b; break; }
    }
    if (!box) { out.skipped.push(p.name); continue; }
    taken.push(box);
    const cx = box.x + w / 2, cy = box.y + h / 2;
    ctx.lineWidth = 3;
    ctx.strokeStyle = "rgba(255,255,255,0.85)";
    ctx.strokeText(text, cx, cy);
    ctx.fillStyle = p.kind === "area" ? COLORS.label : "#7a4a00";
    ctx.fillText(text, cx, cy);
    out.names.push(p.name);
    out.boxes.push({ name: p.name, ...box });
  }
  ctx.restore();
  return out;
}

function drawFlow(px, vis) {
  const f = S.flow;
  if (!f || f.version !== S.grid.version) return 0;
  const a = f.arrows;
  const half = f.every * 0.42;
  const off = f.directionOffsets;
  let n = 0;
  for (let i = 0; i < a.length; i += 3) {
    const x = a[i] + 0.5, z = a[i + 1] + 0.5;
    if (x < vis[0] - 1 || x > vis[2] + 1 || z < vis[1] - 1 || z > vis[3] + 1) continue;
    const [dx, dz] = off[a[i + 2]];
    const len = Math.hypot(dx, dz);
    const ux = dx / len, uz = dz / len;
    arrow(x - ux * half, z - uz * half, x + ux * half, z + uz * half, 1.2 * px, COLORS.flow, px);
    n++;
  }
  marker(f.goal[0] + 0.5, f.goal[1] + 0.5, Math.max(4 * px, 0.3), COLORS.goal);
  return n;
}

function drawHpa(px) {
  const h = S.hpa;
  if (!h || h.version !== S.grid.version) return null;
  const cs = h.clusterSize;
  ctx.beginPath();
  for (let x = cs; x < S.grid.w; x += cs) { ctx.moveTo(x, 0); ctx.lineTo(x, S.grid.d); }
  for (let z = cs; z < S.grid.d; z += cs) { ctx.moveTo(0, z); ctx.lineTo(S.grid.w, z); }
  ctx.lineWidth = 1.5 * px;
  ctx.strokeStyle = COLORS.hpaCluster;
  ctx.setLineDash([4 * px, 3 * px]);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.beginPath();
  for (const [i, j] of h.edges) {
    const a = h.nodes[i], b = h.nodes[j];
    ctx.moveTo(a[0] + 0.5, a[1] + 0.5);
    ctx.lineTo(b[0] + 0.5, b[1] + 0.5);
  }
  ctx.lineWidth = Math.min(2.5 * px, 0.15);
  ctx.strokeStyle = COLORS.hpaEdge;
  ctx.stroke();
  ctx.fillStyle = COLORS.hpaNode;
  const q = Math.min(0.3, 4 * px);
  for (const [x, z] of h.nodes) ctx.fillRect(x + 0.5 - q, z + 0.5 - q, 2 * q, 2 * q);
  return { clusters: h.clustersX * h.clustersZ, nodes: h.nodes.length, edges: h.edges.length, clusterSize: cs };
}

// the axis marker, in screen space at the grid's corner cell (0, 0) (kept in view):
// +x to the right, +z down, labelled in world metres
function drawAxes() {
  const g = S.info.grid;
  const r = canvas.getBoundingClientRect();
  let [sx, sy] = [S.view.ox, S.view.oy];
  sx = Math.min(Math.max(sx, 14), r.width - 80);
  sy = Math.min(Math.max(sy, 14), r.height - 80);
  const cx = (sx - S.view.ox) / S.view.scale;
  const cz = (sy - S.view.oy) / S.view.scale;
  const wx = g.minX + cx * g.cellSize;
  const wz = g.minZ + cz * g.cellSize;
  ctx.save();
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const L = 48;
  const line = (x0, y0, x1, y1, c) => { ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.strokeStyle = c; ctx.lineWidth = 2; ctx.stroke(); };
  for (const [dx, dy, c, name] of [[1, 0, "#e03131", "x"], [0, 1, "#1971c2", "z"]]) {
    const ex = sx + dx * L, ey = sy + dy * L;
    line(sx, sy, ex, ey, c);
    line(ex, ey, ex - dx * 7 - dy * 4, ey - dy * 7 - dx * 4, c);
    line(ex, ey, ex - dx * 7 + dy * 4, ey - dy * 7 + dx * 4, c);
    ctx.font = "bold 12px system-ui, sans-serif";
    ctx.fillStyle = c;
    ctx.textAlign = "left";
    ctx.fillText(`+${name}`, ex + (dx ? 4 : -6), ey + (dy ? 14 : 4));
  }
  const origin = [+wx.toFixed(2), +wz.toFixed(2)];
  const text = `(${origin[0]}, ${origin[1]}) m`;
  ctx.font = "11px system-ui, sans-serif";
  ctx.lineWidth = 3;
  ctx.strokeStyle = "rgba(0,0,0,0.7)";
  ctx.strokeText(text, sx + 7, sy + 16);
  ctx.fillStyle = COLORS.axis;
  ctx.fillText(text, sx + 7, sy + 16);
  ctx.restore();
  return { x: "+x →", z: "+z ↓", origin, atCorner: sx === S.view.ox && sy === S.view.oy };
}

// an arrow from (x0, z0) to (x1, z1), cell units
function arrow(x0, z0, x1, z1, lineWidth, color, px) {
  polyline([[x0, z0], [x1, z1]], lineWidth, color);
  const len = Math.hypot(x1 - x0, z1 - z0);
  if (len < 1e-9) return;
  const head = Math.min(6 * px, 0.45 * len);
  const ux = (x1 - x0) / len;
  const uz = (z1 - z0) / len;
  for (const s of [1, -1]) {
    const hx = x1 - head * (ux * 0.87 - s * uz * 0.5);
    const hz = z1 - head * (uz * 0.87 + s * ux * 0.5);
    polyline([[x1, z1], [hx, hz]], lineWidth, color);
  }
}

function drawCharacters(vis, px, drawn) {
  let crowd = null;
  if (S.replayActive && S.replay) crowd = replayCrowd();
  else if (S.sim && S.sim.ids) crowd = S.sim;
  if (!crowd) return 0;
  const g = S.info.grid;
  const inv = 1 / g.cellSize;
  const showPaths = $("show-char-paths").checked && crowd === S.sim;
  const showVel = $("show-velocities").checked && !!crowd.vel && crowd.vel.length === 2 * crowd.ids.length;
  const hover = crowd === S.sim && S.hover !== null;
  let n = 0;
  const ids = crowd.ids;
  for (let i = 0; i < ids.length; i++) {
    const cx = (crowd.pos[2 * i] - g.minX) * inv;
    const cz = (crowd.pos[2 * i + 1] - g.minZ) * inv;
    const r = Math.max(crowd.radii[i] * inv, 2 * px);
    if (cx + r < vis[0] || cx - r > vis[2] || cz + r < vis[1] || cz - r > vis[3]) {
      if (!showPaths) continue;
    }
    if (showPaths) {
      const path = crowd.paths[i];
      const k = crowd.wp[i];
      if (path && k < path.length) {
        const pts = [[cx, cz]];
        for (let j = k; j < path.length; j++) pts.push(worldToCell(path[j][0], path[j][1]));
        const pc = charColor(ids[i]);
        polyline(pts, 1.5 * px, pc, [5 * px, 3 * px]);
        const [tx, tz] = pts[pts.length - 1];
        const t = 3 * px;
        polyline([[tx - t, tz - t], [tx + t, tz + t]], 1.5 * px, pc);
        polyline([[tx - t, tz + t], [tx + t, tz - t]], 1.5 * px, pc);
        drawn.pathColors[String(ids[i])] = pc;
      }
    }
    if (cx + r < vis[0] || cx - r > vis[2] || cz + r < vis[1] || cz - r > vis[3]) continue;
    const st = crowd.state[i] || "i";
    drawn.charStates.add(st);
    ctx.beginPath();
    ctx.arc(cx, cz, r, 0, Math.PI * 2);
    ctx.fillStyle = COLORS.state[st] || COLORS.state.i;
    ctx.globalAlpha = 0.8;
    ctx.fill();
    ctx.globalAlpha = 1;
    const sel = S.selected !== null && ids[i] === S.selected;
    ctx.lineWidth = (sel ? 3 : 1) * px;
    ctx.strokeStyle = sel ? COLORS.selected : "#111";
    ctx.stroke();
    if (crowd.facing) {
      const f = crowd.facing[i];
      polyline([[cx, cz], [cx + Math.cos(f) * r, cz + Math.sin(f) * r]], 1.5 * px, "#111");
    }
    if (showVel) {
      const vx = crowd.vel[2 * i];
      const vz = crowd.vel[2 * i + 1];
      if (Math.hypot(vx, vz) >= 1e-3) {
        const t = VELOCITY_SECONDS * inv;
        arrow(cx, cz, cx + vx * t, cz + vz * t, 2 * px, COLORS.velocity, px);
        drawn.velocities++;
      }
    }
    if (hover && ids[i] === S.hover && crowd.avoidRadii) {
      const ra = crowd.avoidRadii[i];
      ctx.beginPath();
      ctx.arc(cx, cz, Math.max(ra * inv, 2 * px), 0, Math.PI * 2);
      ctx.setLineDash([4 * px, 3 * px]);
      ctx.lineWidth = 1.5 * px;
      ctx.strokeStyle = COLORS.avoidRadius;
      ctx.stroke();
      ctx.setLineDash([]);
      drawn.hover = { id: ids[i], radius: ra, speed: characterSpeed(i) };
    }
    if (S.view.scale * r > 14) {
      ctx.fillStyle = "#111";
      ctx.font = `${11 * px}px system-ui, sans-serif`;
      ctx.textAlign = "center";
      ctx.fillText(String(ids[i]), cx, cz - r - 3 * px);
    }
    n++;
  }
  return n;
}

// the --crowd crowd: discs by status, velocity ticks (VELOCITY_SECONDS long), and the
// hovered agent's neighbour radius (the largest flocking radius) as a dashed circle
const CROWD_COLORS = ["#0c8599", "#2f9e44", "#e03131"];
const CROWD_NAMES = ["moving", "arrived", "unreachable"];
const STATE_NAMES = { w: "walking", b: "blocked", r: "waiting to retry", i: "idle", x: "dead or disabled" };
function drawCrowd(vis, px) {
  const c = S.crowd;
  if (!c || !c.pos) return null;
  const g = S.info.grid;
  const inv = 1 / g.cellSize;
  const r = Math.max(c.agentRadius * inv, 2 * px);
  const out = { agents: 0, velocities: 0, hover: null, tick: c.tick, statuses: [] };
  const n = c.pos.length / 2;
  for (let i = 0; i < n; i++) {
    const cx = (c.pos[2 * i] - g.minX) * inv;
    const cz = (c.pos[2 * i + 1] - g.minZ) * inv;
    if (cx + r < vis[0] || cx - r > vis[2] || cz + r < vis[1] || cz - r > vis[3]) continue;
    ctx.beginPath();
    ctx.arc(cx, cz, r, 0, Math.PI * 2);
    ctx.fillStyle = CROWD_COLORS[c.status[i]] || CROWD_COLORS[0];
    ctx.globalAlpha = 0.85;
    ctx.fill();
    ctx.globalAlpha = 1;
    ctx.lineWidth = px;
    ctx.strokeStyle = "#111";
    ctx.stroke();
    const vx = c.vel[2 * i];
    const vz = c.vel[2 * i + 1];
    if (Math.hypot(vx, vz) >= 1e-3) {
      const t = VELOCITY_SECONDS * inv;
      polyline([[cx, cz], [cx + vx * t, cz + vz * t]], 1.5 * px, COLORS.velocity);
      out.velocities++;
    }
    if (i === S.crowdHover) {
      ctx.beginPath();
      ctx.arc(cx, cz, Math.max(c.neighbourRadius * inv, 2 * px), 0, Math.PI * 2);
      ctx.setLineDash([4 * px, 3 * px]);
      ctx.lineWidth = 1.5 * px;
      ctx.strokeStyle = COLORS.avoidRadius;
      ctx.stroke();
      ctx.setLineDash([]);
      out.hover = { index: i, radius: c.neighbourRadius, speed: Math.hypot(vx, vz) };
    }
    if (!out.statuses.includes(c.status[i])) out.statuses.push(c.status[i]);
    out.agents++;
  }
  return out;
}

function pickAgent(cx, cz) {
  const c = S.crowd;
  if (!c || !c.pos) return null;
  const g = S.info.grid;
  const wx = g.minX + cx * g.cellSize;
  const wz = g.minZ + cz * g.cellSize;
  const reach = Math.max(c.agentRadius, 6 / S.view.scale * g.cellSize);
  let best = null;
  let bestD = Infinity;
  for (let i = 0; i < c.pos.length / 2; i++) {
    const d = Math.hypot(c.pos[2 * i] - wx, c.pos[2 * i + 1] - wz);
    if (d <= reach && d < bestD) { best = i; bestD = d; }
  }
  return best;
}

function showCrowdHover() {
  const el = $("crowd-hover");
  const c = S.crowd;
  const i = S.crowdHover;
  if (!c || i === null || 2 * i + 1 >= c.vel.length) {
    el.hidden = true;
    el.textContent = "";
    return;
  }
  const speed = Math.hypot(c.vel[2 * i], c.vel[2 * i + 1]);
  el.hidden = false;
  el.textContent = `agent ${i} · (${c.pos[2 * i].toFixed(2)}, ${c.pos[2 * i + 1].toFixed(2)}) · ` +
    `${speed.toFixed(2)} m/s · neighbour radius ${c.neighbourRadius} m`;
}

function applyCrowd(f) {
  S.crowd = f;
  S.crowdFrames++;
  $("crowd-file").textContent = f.file;
  $("crowd-tick").textContent = f.tick;
  $("crowd-count").textContent = f.agents;
  const k = [0, 0, 0];
  for (const st of f.status) k[st] = (k[st] || 0) + 1;
  $("crowd-states").textContent = `${k[0]} / ${k[1]} / ${k[2]}`;
  $("crowd-radius").textContent = `${f.neighbourRadius} m`;
  applyCrowdStatus(f);
  if (S.crowdHover !== null && S.crowdHover >= f.agents) S.crowdHover = null;
  showCrowdHover();
  requestRedraw();
}

function applyCrowdStatus(st) {
  $("crowd-play").classList.toggle("active", !!st.playing);
  $("crowd-pause").classList.toggle("active", !st.playing);
}

async function crowdCommand(action, body) {
  try {
    const { data } = await api("POST", `/api/crowd/${action}`, body);
    if (data.type === "crowd") applyCrowd(data);
    else applyCrowdStatus(data);
  } catch (e) {
    toast(e.message);
  }
}

// -------------------------------------------------------------- building
// A building (a level with floors): the page shows one floor at a time (the map
// endpoints answer for it); link ends on that floor are drawn as squares with their
// name, kind and where they lead; a route's start and goal each remember their floor.
const LINK_COLORS = { stairs: "#1971c2", ladder: "#e8590c", jump: "#c2255c", elevator: "#5f3dc4", door: "#2f9e44" };
function linkColor(kind) { return LINK_COLORS[kind] || "#0c8599"; }
COLORS.route = "#f03e3e";
COLORS.linkOff = "#868e96";
COLORS.routeLink = "#ffd43b";

function floorName(i) {
  const f = S.building && S.building.floors[i];
  return f ? f.name : String(i);
}

function fillBuilding(b) {
  S.building = b;
  const sec = $("sec-building");
  sec.hidden = !b;
  if (!b) return;
  S.floor = b.shown;
  $("building-meta").textContent = `${b.floors.length} floors · ${b.links.length} links`;
  const box = $("floor-buttons");
  box.textContent = "";
  for (const f of b.floors) {
    const btn = document.createElement("button");
    btn.type = "button";
    btn.dataset.floor = String(f.index);
    btn.textContent = `${f.name} · y ${+f.floorY.toFixed(3)} m`;
    btn.title = `show floor ${f.index} (${f.name}, floorY ${f.floorY} m, ${f.walkable.toLocaleString()} walkable cells)`;
    btn.className = f.index === b.shown ? "active" : "";
    btn.setAttribute("aria-pressed", String(f.index === b.shown));
    btn.addEventListener("click", () => showFloor(f.index));
    box.append(btn);
  }
  const sel = $("floor-algorithm");
  if (!sel.options.length) {
    // grid searches (FloorMap), then the floors' nav meshes (FloorMesh) where meshes work
    const meshOk = !S.info.mesh || S.info.mesh.available !== false;
    const modes = [["grid", b.algorithms], ...(meshOk ? [["mesh", b.meshAlgorithms.filter((a) => a !== "auto")]] : [])];
    for (const [mode, algos] of modes) {
      for (const a of algos) {
        const o = document.createElement("option");
        o.value = `${mode}:${a}`;
        o.textContent = mode === "grid" ? a : `nav mesh (${a})`;
        sel.append(o);
      }
    }
  }
  fillLinks(b.links);
  $("floor-hint").textContent = `Showing ${floorName(b.shown)}. Path tool: click the start on the floor shown; `
    + "for a goal on another floor, pick that floor above, then click the goal.";
  showRoute();
}

function fillLinks(links) {
  S.building.links = links;
  const box = $("links");
  box.textContent = "";
  for (const lk of links) {
    const label = document.createElement("label");
    label.className = lk.enabled ? "" : "off";
    const cb = document.createElement("input");
    cb.type = "checkbox";
    cb.checked = lk.enabled;
    cb.dataset.link = lk.name;
    cb.addEventListener("change", () => toggleLink(lk.name, cb.checked, cb));
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = linkColor(lk.kind);
    const name = document.createElement("span");
    name.className = "name";
    const arrow = lk.bidirectional ? "⇄" : "→";
    name.textContent = `${lk.name} (${lk.kind}) ${lk.from.floorName} ${arrow} ${lk.to.floorName} · ${+lk.cost.toFixed(2)} m`;
    label.title = lk.enabled ? "switched on: untick to switch it off" : "switched off: tick to switch it on";
    label.append(cb, sw, name);
    box.append(label);
  }
}

async function showFloor(index) {
  if (!S.building || index === S.floor) return;
  try {
    await busyApi(`showing ${floorName(index)}…`, "POST", "/api/floors/show", { floor: index });
  } catch (e) {
    toast(e.message);
    return;
  }
  // the other floor's layers do not apply here
  S.result = null; S.meshResult = null; S.flow = null; S.hpa = null; S.mesh = null;
  S.heatData = null; S.heatImage = null; S.start = null; S.goal = null;
  await reloadMap();
  await refreshLayers();
  S.floorSwitches = (S.floorSwitches || 0) + 1;
  requestRedraw();
}
S.showFloor = showFloor;

async function toggleLink(name, enabled, cb) {
  try {
    const { data } = await busyApi(`switching ${name} ${enabled ? "on" : "off"}…`, "POST", "/api/floors/links", { name, enabled });
    fillLinks(data.links);
    const { data: info } = await api("GET", "/api/info");
    showEdits(info.edits || []);
  } catch (e) {
    if (cb) cb.checked = !enabled;
    toast(e.message);
    return;
  }
  requestRedraw();
  await runRoute();
}

function onRouteClick(cell, shift) {
  const end = { floor: S.floor, cell, point: cellCentreWorld(cell) };
  if (shift && S.routeStart) {
    S.routeGoal = end;
  } else if (!S.routeStart || S.routeGoal) {
    S.routeStart = end;
    S.routeGoal = null;
    S.route = null;
  } else {
    S.routeGoal = end;
  }
  showRoute();
  requestRedraw();
  if (S.routeStart && S.routeGoal) runRoute();
}

async function runRoute() {
  const a = S.routeStart;
  const b = S.routeGoal;
  if (!a || !b) return;
  const [mode, algorithm] = ($("floor-algorithm").value || "grid:auto").split(":");
  const body = { start: a.point, goal: b.point, startFloor: a.floor, goalFloor: b.floor, algorithm, mode };
  try {
    const { data } = await busyApi("searching across floors…", "POST", "/api/floors/path", body);
    if (S.routeStart !== a || S.routeGoal !== b) return; // no longer current
    S.route = data;
  } catch (e) {
    S.route = null;
    toast(e.message);
  }
  S.routeCount = (S.routeCount || 0) + 1;
  showRoute();
  requestRedraw();
}
S.runRoute = runRoute;

function showRoute() {
  const fmt = (v, unit = "") => (v === null || v === undefined ? "–" : v.toLocaleString(undefined, { maximumFractionDigits: 3 }) + unit);
  const where = (e) => `${floorName(e.floor)} (${e.point.map((v) => +v.toFixed(2)).join(", ")})`;
  const a = S.routeStart;
  const b = S.routeGoal;
  $("route-start").textContent = a ? where(a) : "click a cell";
  $("route-goal").textContent = b ? where(b) : a ? "click a goal (any floor)" : "–";
  const r = S.route;
  const list = $("route-links");
  list.textContent = "";
  if (!r) {
    for (const id of ["route-status", "route-floors", "route-cost", "route-length", "route-time"]) $(id).textContent = "–";
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = "–";
    list.append(li);
    return;
  }
  $("route-status").textContent = r.status;
  $("route-status").title = r.reason;
  $("route-floors").textContent = r.hasPath ? r.floorNamesVisited.join(" → ") : "–";
  $("route-cost").textContent = r.mode === "mesh" ? "– (nav mesh: see length)" : fmt(r.cost);
  $("route-length").textContent = fmt(r.length, " m") + (r.weightsIgnored ? " (weights ignored)" : "");
  $("route-time").textContent = `${r.timeMs.toFixed(2)} ms`;
  if (!r.links.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = r.hasPath ? "none (one floor)" : "–";
    list.append(li);
  }
  for (const s of r.links) {
    const li = document.createElement("li");
    li.dataset.link = s.name;
    li.textContent = `${s.name} (${s.kind}): ${floorName(s.fromFloor)} → ${floorName(s.toFloor)} · ${+s.cost.toFixed(2)} m`;
    list.append(li);
  }
}

// the link ends and the route on the floor shown (cell space); answers what it drew
function drawBuilding(px, key) {
  const b = S.building;
  const out = { floor: S.floor, ends: [], pieces: [], legs: [], route: S.routeCount || 0 };
  const r = S.route;
  if (r && r.hasPath) {
    for (const piece of r.pieces) {
      if (piece.floor !== S.floor) continue;
      polyline(piece.points.map(([x, z]) => worldToCell(x, z)), Math.max(3 * px, 0.2), COLORS.route);
      out.pieces.push(piece.points.length);
    }
    if (out.pieces.length) key("route on this floor", COLORS.route, "line");
  }
  const half = Math.max(5 * px, 0.4);
  const kinds = new Set();
  let off = false;
  for (const lk of b.links) {
    for (const tag of ["from", "to"]) {
      const end = lk[tag];
      if (end.floor !== S.floor) continue;
      const [x, z] = worldToCell(...end.point);
      const color = lk.enabled ? linkColor(lk.kind) : COLORS.linkOff;
      ctx.fillStyle = color;
      ctx.fillRect(x - half, z - half, 2 * half, 2 * half);
      ctx.lineWidth = 1.5 * px;
      ctx.strokeStyle = "#fff";
      ctx.strokeRect(x - half, z - half, 2 * half, 2 * half);
      if (!lk.enabled) { // a cross: switched off
        polyline([[x - half, z - half], [x + half, z + half]], 2 * px, "#212529");
        polyline([[x - half, z + half], [x + half, z - half]], 2 * px, "#212529");
        off = true;
      } else {
        kinds.add(lk.kind);
      }
      out.ends.push({ name: lk.name, end: tag, enabled: lk.enabled, x, z, text: linkText(lk, tag) });
    }
  }
  for (const k of kinds) key(`link end: ${k}`, linkColor(k), "square", 1);
  if (off) key("link switched off", COLORS.linkOff, "square", 1);
  if (r && r.hasPath) {
    for (const s of r.links) {
      for (const [tag, f, p] of [["leaves", s.fromFloor, s.from], ["arrives", s.toFloor, s.to]]) {
        if (f !== S.floor) continue;
        const [x, z] = worldToCell(...p);
        ctx.beginPath();
        ctx.arc(x, z, half * 1.9, 0, Math.PI * 2);
        ctx.lineWidth = 3 * px;
        ctx.strokeStyle = COLORS.routeLink;
        ctx.stroke();
        out.legs.push({ name: s.name, tag, x, z });
      }
    }
    if (out.legs.length) key("route leaves / arrives by a link", COLORS.routeLink, "ring", 1);
  }
  const mr = Math.max(5 * px, 0.35);
  for (const [e, color, label] of [[S.routeStart, COLORS.start, "start"], [S.routeGoal, COLORS.goal, "goal"]]) {
    if (!e || e.floor !== S.floor) continue;
    marker(e.cell[0] + 0.5, e.cell[1] + 0.5, mr, color);
    key(label, color, "dot");
  }
  return out;
}

// "stairs (stairs) → upstairs": where a link end leads from this floor
function linkText(lk, tag) {
  const other = tag === "from" ? lk.to : lk.from;
  let text;
  if (tag === "from" || lk.bidirectional) text = `${lk.name} (${lk.kind}) → ${other.floorName}`;
  else text = `${lk.name} (${lk.kind}) ← from ${other.floorName}, one way`;
  return lk.enabled ? text : `${text} (off)`;
}

// the link ends' labels, in screen space, beside their squares; answers their boxes
function drawLinkLabels(ends, avoid) {
  const v = S.view;
  const boxes = [];
  ctx.save();
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.font = "bold 11px system-ui, sans-serif";
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  const h = 14;
  const taken = avoid.map((b) => ({ ...b }));
  const r = canvas.getBoundingClientRect();
  const clash = (b) => b.x < 0 || b.y < 0 || b.x + b.w > r.width || b.y + b.h > r.height
    || taken.some((t) => b.x < t.x + t.w && t.x < b.x + b.w && b.y < t.y + t.h && t.y < b.y + b.h);
  for (const e of ends) {
    const ax = v.ox + e.x * v.scale, ay = v.oy + e.z * v.scale;
    const w = Math.ceil(ctx.measureText(e.text).width) + 6;
    const gap = Math.max(8, 0.5 * v.scale);
    let box = null;
    for (const [dx, dy] of [[gap, -h / 2], [-gap - w, -h / 2], [-w / 2, -gap - h], [-w / 2, gap], [gap, -1.5 * h], [gap, 0.5 * h]]) {
      const cand = { x: ax + dx, y: ay + dy, w, h };
      if (!clash(cand)) { box = cand; break; }
    }
    if (!box) box = { x: ax + gap, y: ay - h / 2, w, h };
    taken.push(box);
    ctx.fillStyle = "rgba(255,255,255,0.9)";
    ctx.fillRect(box.x, box.y, w, h);
    ctx.fillStyle = e.enabled ? "#1b1d22" : "#868e96";
    ctx.fillText(e.text, box.x + 3, box.y + h / 2);
    boxes.push({ name: e.name, end: e.end, text: e.text, ...box });
  }
  ctx.restore();
  return boxes;
}

// ----------------------------------------------------------------- paths
function showResult() {
  const r = S.result;
  const fmt = (v) => (v === null || v === undefined ? "–" : v.toLocaleString(undefined, { maximumFractionDigits: 3 }));
  $("r-endpoints").textContent = S.start
    ? `(${S.start.join(", ")}) → ${S.goal ? `(${S.goal.join(", ")})` : "click a goal"}`
    : "click a start cell";
  showMeshResult();
  if (!r) {
    for (const id of ["r-status", "r-cost", "r-algorithm", "r-expanded", "r-time", "r-compile", "r-length", "r-grid-m"]) $(id).textContent = "–";
    showHeatLegend();
    return;
  }
  let status = r.status;
  if (r.nearest && r.endCell) status += ` → nearest (${r.endCell.join(", ")})`;
  $("r-status").textContent = status;
  $("r-cost").textContent = fmt(r.cost);
  $("r-expanded").textContent = fmt(r.expanded);
  // auto (and any alias) names what it ran
  $("r-algorithm").textContent = r.resolvedAlgorithm && r.resolvedAlgorithm !== r.algorithm
    ? `${r.algorithm} → ${r.resolvedAlgorithm}` : r.algorithm;
  const searchMs = r.searchMs !== undefined ? r.searchMs : r.timeMs;
  $("r-time").textContent = `${searchMs.toFixed(2)} ms` + (r.extra && r.extra.buildMs ? ` + build ${r.extra.buildMs.toFixed(0)} ms` : "");
  $("r-compile").textContent = r.firstCall ? `${(r.compileMs || 0).toFixed(1)} ms (first call)` : "0 (kernels warm)";
  showHeatLegend();
  $("r-length").textContent = r.hasPath ? `${r.cells.length} cells, ${r.smoothed.length} waypoints` : "none";
  $("r-grid-m").textContent = r.hasPath ? `${polylineLength(r.waypoints).toFixed(3)} m` : "–";
}

function polylineLength(points) {
  let n = 0;
  for (let i = 1; i < points.length; i++) {
    n += Math.hypot(points[i][0] - points[i - 1][0], points[i][1] - points[i - 1][1]);
  }
  return n;
}

function queryKind(algo) {
  if (algo !== "auto") return algo;
  if (S.info.autoAlgorithm) return S.info.autoAlgorithm;
  const jps = (S.info.algorithms || []).find((a) => a.name === "jps");
  return jps && jps.available ? "jps" : "astar";
}

async function runQuery() {
  if (!S.start || !S.goal) return;
  const body = { start: S.start, goal: S.goal, algorithm: $("algorithm").value };
  const mesh = runMeshQuery(); // beside the grid query, when the mesh layer is on
  const flow = refreshFlow();
  const warm = (S.info.warmKinds || []).includes(queryKind(body.algorithm));
  try {
    const { data } = await busyApi(warm ? "searching…" : "compiling kernels, then searching…", "POST", "/api/path", body);
    if (data.firstCall && S.info.warmKinds) S.info.warmKinds.push(data.resolvedAlgorithm);
    // ignore answers to queries that are no longer current
    if (data.start[0] !== S.start[0] || data.start[1] !== S.start[1] || !S.goal
        || data.goal[0] !== S.goal[0] || data.goal[1] !== S.goal[1]) return;
    S.result = data;
    await buildHeat(data.heat);
  } catch (e) {
    S.result = null;
    await buildHeat(null);
    toast(e.message);
  }
  S.queryCount++;
  showResult();
  requestRedraw();
  await mesh;
  await flow;
}
S.runQuery = runQuery;

// ---------------------------------------------------------------- layers
async function refreshFlow() {
  if (!$("show-flow").checked || !S.goal) {
    S.flow = null;
    requestRedraw();
    return;
  }
  const goal = S.goal;
  const warm = (S.info.warmKinds || []).includes("flow");
  try {
    const { data } = await busyApi(warm ? "building the flow field…" : "compiling kernels, then building the flow field…",
      "POST", "/api/flow", { goal });
    if (S.goal !== goal) return;
    if (data.firstCall && S.info.warmKinds) S.info.warmKinds.push("flow");
    S.flow = data;
    S.flowCount++;
    showLayerMeta();
  } catch (e) {
    S.flow = null;
    toast(e.message);
  }
  requestRedraw();
}

async function refreshHpa() {
  if (!$("show-hpa").checked) { requestRedraw(); return; }
  if (S.hpa && S.hpa.version === S.grid.version) return;
  try {
    const { data } = await busyApi("building HPA* clusters…", "GET", "/api/hpa");
    S.hpa = data;
    showLayerMeta();
  } catch (e) {
    S.hpa = null;
    toast(e.message);
  }
  requestRedraw();
}

async function refreshLayers() {
  await refreshHpa();
  await refreshFlow();
}

function showLayerMeta() {
  const parts = [];
  if ($("show-flow").checked && S.flow) {
    parts.push(`flow: ${S.flow.reached.toLocaleString()} cells reached · every ${S.flow.every} cell(s) · ${S.flow.searchMs.toFixed(1)} ms`
      + (S.flow.firstCall ? ` (+ ${S.flow.compileMs.toFixed(0)} ms compile)` : ""));
  }
  if ($("show-hpa").checked && S.hpa) {
    parts.push(`HPA*: ${S.hpa.clustersX}×${S.hpa.clustersZ} clusters of ${S.hpa.clusterSize} · ${S.hpa.nodes.length} entrance nodes · ${S.hpa.edges.length} crossings`);
  }
  $("layer-meta").textContent = parts.join(" | ");
  $("layer-meta").hidden = parts.length === 0;
}

function pickCell(cx, cz) {
  const x = Math.floor(cx);
  const z = Math.floor(cz);
  if (!S.grid || x < 0 || z < 0 || x >= S.grid.w || z >= S.grid.d) return null;
  return [x, z];
}

function onPathClick(cell, shift) {
  if (S.building) { onRouteClick(cell, shift); return; }
  if (shift && S.start) {
    S.goal = cell;
  } else if (!S.start || S.goal) {
    S.start = cell;
    S.goal = null;
    S.result = null;
    S.meshResult = null;
    S.heatData = null;
    S.heatImage = null;
  } else {
    S.goal = cell;
  }
  showResult();
  requestRedraw();
  if (S.start && S.goal) runQuery();
}

// ------------------------------------------------------------- map edits
async function afterMapChange() {
  await reloadMap();
  if (S.start && S.goal) await runQuery();
  if (S.building) await runRoute();
  await refreshHpa();
}

async function onCircleClick(cx, cz) {
  const g = S.info.grid;
  const wx = g.minX + cx * g.cellSize;
  const wz = g.minZ + cz * g.cellSize;
  for (const c of S.circles || []) {
    if (Math.hypot(wx - c.center[0], wz - c.center[1]) <= c.radius) return removeCircle(c.name);
  }
  const radius = +$("circle-radius").value;
  try {
    await api("POST", "/api/circles", { center: [wx, wz], radius });
    await afterMapChange();
  } catch (e) {
    toast(e.message);
  }
}

async function removeCircle(name) {
  try {
    await api("DELETE", `/api/circles/${encodeURIComponent(name)}`);
    await afterMapChange();
  } catch (e) {
    toast(e.message);
  }
}

async function toggleArea(name, available, cb) {
  try {
    await api("POST", "/api/areas", { name, available });
    await afterMapChange();
  } catch (e) {
    if (cb) cb.checked = !available;
    toast(e.message);
  }
}

async function removeObstacle(name) {
  try {
    await api("DELETE", `/api/obstacles/${encodeURIComponent(name)}`);
    await afterMapChange();
  } catch (e) {
    toast(e.message);
  }
}

async function onObstacleClick(cx, cz) {
  const g = S.info.grid;
  const wx = g.minX + cx * g.cellSize;
  const wz = g.minZ + cz * g.cellSize;
  // topmost obstacle under the cursor: remove it
  for (let i = S.polys.length - 1; i >= 0; i--) {
    const p = S.polys[i];
    if (p.kind === "obstacle" && pointInRing(wx, wz, p.rings[0])) return removeObstacle(p.name);
  }
  const cell = pickCell(cx, cz);
  if (!cell) return;
  const n = Math.min(64, Math.max(1, Math.round(+$("obstacle-size").value || 4)));
  const half = (n * g.cellSize) / 2;
  const mx = g.minX + (cell[0] + 0.5) * g.cellSize;
  const mz = g.minZ + (cell[1] + 0.5) * g.cellSize;
  const polygon = [[mx - half, mz - half], [mx + half, mz - half], [mx + half, mz + half], [mx - half, mz + half]];
  try {
    await api("POST", "/api/obstacles", { polygon });
    await afterMapChange();
  } catch (e) {
    toast(e.message);
  }
}

// ------------------------------------------------------------ simulation
let socket = null;
let inspectTimer = null;

function connectSim() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${proto}://${location.host}/ws/sim`);
  $("conn").textContent = "connecting…";
  socket.onopen = () => { $("conn").textContent = "live"; };
  socket.onclose = () => {
    $("conn").textContent = "disconnected, retrying…";
    setTimeout(connectSim, 1000);
  };
  socket.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    onSimMessage(msg);
  };
}

function onSimMessage(msg) {
  if (msg.type === "crowd") applyCrowd(msg);
  else if (msg.type === "crowdStatus") applyCrowdStatus(msg);
  else if (msg.type === "frame") applyFrame(msg);
  else if (msg.type === "status") applyStatus(msg);
  else if (msg.type === "map") maybeReloadMap(msg.version);
  else if (msg.type === "error") {
    if (S.sim) S.sim.playing = false;
    updateSimPanel();
    toast(msg.message);
  }
}

function applyStatus(st) {
  if (!S.sim) return;
  S.sim.playing = st.playing;
  S.sim.speed = st.speed;
  updateSimPanel();
}

let mapReloading = false;
async function maybeReloadMap(version) {
  if (!S.grid || version === S.grid.version || mapReloading) return;
  mapReloading = true;
  try {
    await afterMapChange();
  } finally {
    mapReloading = false;
  }
}

function applyFrame(f) {
  if (f.full) {
    S.sim = {
      ids: f.ids, kinds: f.kinds, radii: f.radii, avoidRadii: f.avoidRadii || null, vel: null,
      avoidance: f.avoidance, pos: [], facing: [], state: "", wp: [],
      paths: new Array(f.ids.length).fill(null), tick: f.tick, playing: f.playing, speed: f.speed, history: [],
    };
  } else if (!S.sim || !S.sim.ids) {
    return; // diffs before the first full frame
  }
  const sim = S.sim;
  sim.pos = f.pos;
  sim.vel = f.vel || null;
  sim.facing = f.facing;
  sim.state = f.state;
  sim.wp = f.wp;
  sim.tick = f.tick;
  sim.playing = f.playing;
  sim.speed = f.speed;
  sim.stats = f.stats;
  for (const [k, path] of Object.entries(f.paths || {})) sim.paths[+k] = path;
  sim.history.push(f.tick);
  if (sim.history.length > 50) sim.history.shift();
  S.frames++;
  if (f.reset) {
    S.selected = null;
    $("sec-inspect").hidden = true;
  }
  if (f.full && f.avoidance !== undefined) showAvoidance(f.avoidance);
  if (S.hover !== null && !sim.ids.includes(S.hover)) S.hover = null;
  showMotion();
  updateSimPanel();
  maybeReloadMap(f.version);
  requestRedraw();
}

// the scene's local avoidance mode in the simulation panel (hidden when the server has none)
function showAvoidance(mode) {
  $("row-avoidance").hidden = mode === undefined || mode === null;
  $("sim-avoidance").textContent = mode ?? "–";
}

// speed (m/s) of character index i in the live simulation's last frame, null without velocities
function characterSpeed(i) {
  const sim = S.sim;
  if (!sim || !sim.vel || i < 0 || 2 * i + 1 >= sim.vel.length) return null;
  return Math.hypot(sim.vel[2 * i], sim.vel[2 * i + 1]);
}

// the selected character's speed and velocity in the inspector, from the last frame
function showMotion() {
  const sim = S.sim;
  const i = sim && sim.ids && S.selected !== null ? sim.ids.indexOf(S.selected) : -1;
  const speed = i < 0 ? null : characterSpeed(i);
  $("inspect-speed").textContent = speed === null ? "–" : `${speed.toFixed(2)} m/s`;
  $("inspect-vel").textContent = speed === null ? "–"
    : `(${sim.vel[2 * i].toFixed(2)}, ${sim.vel[2 * i + 1].toFixed(2)})`;
}

// the hovered character in the status line: ID, speed, avoidance radius
function hoverText() {
  const sim = S.sim;
  const i = sim && sim.ids && S.hover !== null ? sim.ids.indexOf(S.hover) : -1;
  if (i < 0) return "";
  const speed = characterSpeed(i);
  let txt = ` · ${String(S.hover)}`;
  if (speed !== null) txt += ` ${speed.toFixed(2)} m/s`;
  if (sim.avoidRadii) txt += ` · avoid r ${sim.avoidRadii[i]} m`;
  return txt;
}

function updateSimPanel() {
  const sim = S.sim;
  if (!sim) return;
  $("sim-tick").textContent = sim.tick;
  $("sim-count").textContent = sim.ids.length;
  const counts = { w: 0, b: 0, r: 0, i: 0, x: 0 };
  for (const c of sim.state) counts[c] = (counts[c] || 0) + 1;
  $("sim-states").textContent = `${counts.w} walk · ${counts.b} blocked · ${counts.r} retry · ${counts.i} idle`;
  const s = sim.stats || {};
  $("sim-stats").textContent = `${s.arrivals ?? 0} / ${s.blockedStops ?? 0} / ${s.retries ?? 0}`;
  $("sim-play").classList.toggle("active", !!sim.playing);
  $("sim-pause").classList.toggle("active", !sim.playing);
  const sel = $("sim-speed");
  if (String(+sel.value) !== String(sim.speed)) {
    const opt = [...sel.options].find((o) => +o.value === sim.speed);
    if (opt) sel.value = opt.value;
  }
}

async function simCommand(action, body) {
  try {
    const { data } = await api("POST", `/api/sim/${action}`, body);
    if (data.type === "frame") applyFrame(data);
    else applyStatus(data);
  } catch (e) {
    toast(e.message);
  }
}

function pickCharacter(cx, cz) {
  const crowd = S.sim;
  if (!crowd || !crowd.ids) return null;
  const g = S.info.grid;
  const wx = g.minX + cx * g.cellSize;
  const wz = g.minZ + cz * g.cellSize;
  let best = null;
  let bestD = Infinity;
  for (let i = 0; i < crowd.ids.length; i++) {
    const dx = crowd.pos[2 * i] - wx;
    const dz = crowd.pos[2 * i + 1] - wz;
    const d = Math.hypot(dx, dz);
    const reach = Math.max(crowd.radii[i], 6 / S.view.scale * g.cellSize);
    if (d <= reach && d < bestD) { best = crowd.ids[i]; bestD = d; }
  }
  return best;
}

async function inspect(id) {
  S.selected = id;
  $("sec-inspect").hidden = id === null;
  requestRedraw();
  if (id === null) return;
  $("inspect-id").textContent = String(id);
  showMotion();
  await refreshInspector();
}

async function refreshInspector() {
  if (S.selected === null) return;
  try {
    const { data } = await api("GET", `/api/sim/characters/${encodeURIComponent(String(S.selected))}`);
    $("inspect").textContent = JSON.stringify(data, null, 1);
    fillTable($("inspect-table"), data, ["id", "kind", "position", "speed", "velocity", "walkTarget"]);
    S.inspected = data;
  } catch (e) {
    $("inspect").textContent = e.message;
  }
}

// ---------------------------------------------------------------- replay
function replayCrowd() {
  const rp = S.replay;
  const f = rp.data.frames[rp.index];
  if (!f) return null;
  const seg = rp.data.segments[f.segment];
  return {
    ids: seg.ids, radii: seg.radii, pos: f.pos, facing: null,
    state: [...f.anim].map((c) => (c === "1" ? "w" : "i")).join(""), wp: [], paths: [],
  };
}

function setReplay(data) {
  S.replay = { data, index: 0, playing: false };
  S.replayActive = data.frames.length > 0;
  $("replay-controls").hidden = false;
  const sl = $("replay-slider");
  sl.max = Math.max(0, data.frames.length - 1);
  sl.value = 0;
  showReplayTick();
  requestRedraw();
}

function showReplayTick() {
  const rp = S.replay;
  if (!rp) return;
  const f = rp.data.frames[rp.index];
  $("replay-tick").textContent = f ? `tick ${f.tick} (${rp.index + 1}/${rp.data.frames.length})` : "no ticks";
}

let replayTimer = null;
function replayPlay() {
  const rp = S.replay;
  if (!rp) return;
  rp.playing = !rp.playing;
  $("replay-play").textContent = rp.playing ? "Pause" : "Play";
  clearInterval(replayTimer);
  if (!rp.playing) return;
  const f = rp.data.frames[rp.index];
  const rate = f ? rp.data.segments[f.segment].tickRate : 20;
  replayTimer = setInterval(() => {
    if (rp.index >= rp.data.frames.length - 1) { replayPlay(); return; }
    rp.index++;
    $("replay-slider").value = rp.index;
    showReplayTick();
    requestRedraw();
  }, 1000 / rate);
}

async function loadReplayFile(file) {
  if (!file) return;
  try {
    const text = await file.text();
    const { data } = await api("POST", "/api/replay", text, "application/x-ndjson");
    setReplay(data);
    toast(`replay: ${data.frames.length} ticks`, "info");
  } catch (e) {
    toast(e.message);
  }
}

// ----------------------------------------------------------------- input
function wireInput() {
  let down = null;
  canvas.addEventListener("pointerdown", (e) => {
    canvas.setPointerCapture(e.pointerId);
    down = { x: e.clientX, y: e.clientY, ox: S.view.ox, oy: S.view.oy, button: e.button, moved: false };
  });
  canvas.addEventListener("pointermove", (e) => {
    const [cx, cz] = clientToCell(e.clientX, e.clientY);
    S.cursor = [cx, cz];
    if ($("show-radius").checked) requestRedraw();
    if (S.info) {
      const g = S.info.grid;
      const x = Math.floor(cx);
      const z = Math.floor(cz);
      let txt = `cell (${x}, ${z}) · world (${(g.minX + cx * g.cellSize).toFixed(2)}, ${(g.minZ + cz * g.cellSize).toFixed(2)})`;
      if (S.grid && x >= 0 && z >= 0 && x < S.grid.w && z < S.grid.d) {
        const c = S.grid.codes[z * S.grid.w + x];
        txt += c ? ` · walkable ×${S.grid.legend[c - 1]}` : " · blocked";
      }
      const hv = S.replayActive ? null : pickCharacter(cx, cz);
      if (hv !== S.hover) { S.hover = hv; requestRedraw(); }
      const ha = S.replayActive ? null : pickAgent(cx, cz);
      if (ha !== S.crowdHover) { S.crowdHover = ha; showCrowdHover(); requestRedraw(); }
      $("cursor").textContent = txt + hoverText();
    }
    if (!down) return;
    const dx = e.clientX - down.x;
    const dy = e.clientY - down.y;
    if (!down.moved && Math.hypot(dx, dy) > 4) {
      down.moved = true;
      canvas.classList.add("panning");
    }
    if (down.moved) {
      S.view.ox = down.ox + dx;
      S.view.oy = down.oy + dy;
      requestRedraw();
    }
  });
  canvas.addEventListener("pointerup", (e) => {
    const d = down;
    down = null;
    canvas.classList.remove("panning");
    if (!d || d.moved || d.button !== 0 || !S.grid) return;
    const [cx, cz] = clientToCell(e.clientX, e.clientY);
    if (S.tool === "path") {
      const cell = pickCell(cx, cz);
      if (cell) onPathClick(cell, e.shiftKey);
    } else if (S.tool === "obstacle") {
      onObstacleClick(cx, cz);
    } else if (S.tool === "circle") {
      onCircleClick(cx, cz);
    } else if (S.tool === "inspect") {
      const who = pickCharacter(cx, cz);
      if (who !== null || S.selected !== null) inspect(who);
      const cell = pickCell(cx, cz);
      if (who === null && cell) inspectCell(cell);
    }
  });
  canvas.addEventListener("pointerleave", () => {
    S.cursor = null;
    if ($("show-radius").checked) requestRedraw();
    if (S.hover !== null) { S.hover = null; requestRedraw(); }
    if (S.crowdHover !== null) { S.crowdHover = null; showCrowdHover(); requestRedraw(); }
  });
  canvas.addEventListener("pointercancel", () => { down = null; canvas.classList.remove("panning"); });
  canvas.addEventListener("contextmenu", async (e) => {
    e.preventDefault();
    if (S.tool !== "inspect" || S.selected === null || !S.info) return;
    const [cx, cz] = clientToCell(e.clientX, e.clientY);
    const g = S.info.grid;
    const target = [g.minX + cx * g.cellSize, g.minZ + cz * g.cellSize];
    try {
      await api("POST", "/api/sim/target", { id: S.selected, target });
      refreshInspector();
    } catch (err) {
      toast(err.message);
    }
  });
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    zoomAt(e.clientX, e.clientY, Math.exp(-e.deltaY * unit * 0.0015));
  }, { passive: false });
  window.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "f" || e.key === "F") fitView();
    else if (e.key === "+" || e.key === "=") zoomAt(...centre(), 1.25);
    else if (e.key === "-") zoomAt(...centre(), 0.8);
    else if (e.key === " " && S.sim) { e.preventDefault(); simCommand(S.sim.playing ? "pause" : "play"); }
  });
  window.addEventListener("resize", resize);

  for (const el of document.querySelectorAll("input[name=tool]")) {
    el.addEventListener("change", () => { S.tool = el.value; toolHint(); });
  }
  for (const id of ["show-heat", "show-raw", "show-smooth", "show-polygons", "show-char-paths", "show-velocities",
    "show-spline", "show-jumps", "show-labels", "show-axes", "show-legend", "show-area-colors"]) {
    $(id).addEventListener("change", requestRedraw);
  }
  $("show-radius").addEventListener("change", () => { showRadiusRow(); requestRedraw(); });
  $("preview-radius").addEventListener("input", () => { radiusMeta(); requestRedraw(); });
  $("edits-reset").addEventListener("click", resetEdits);
  $("show-heat").addEventListener("change", showHeatLegend);
  $("show-flow").addEventListener("change", async () => { await refreshFlow(); showLayerMeta(); });
  $("show-hpa").addEventListener("change", async () => { await refreshHpa(); showLayerMeta(); });
  $("rebuild").addEventListener("click", rebuildLevel);
  $("save-level").addEventListener("click", saveLevel);
  $("algorithm").addEventListener("change", () => runQuery());
  $("show-mesh").addEventListener("change", async () => {
    showMeshResult();
    requestRedraw();
    if (!meshOn()) return;
    await loadMesh();
    await runMeshQuery();
  });
  $("mesh-funnel").addEventListener("change", () => { showMeshResult(); runMeshQuery(); });
  $("mesh-searched").addEventListener("change", () => requestRedraw());
  $("fit-view").addEventListener("click", fitView);
  $("crowd-play").addEventListener("click", () => crowdCommand("play"));
  $("crowd-pause").addEventListener("click", () => crowdCommand("pause"));
  $("crowd-step").addEventListener("click", () => crowdCommand("step", { ticks: 1 }));
  $("crowd-reset").addEventListener("click", () => crowdCommand("reset"));
  $("sim-play").addEventListener("click", () => simCommand("play"));
  $("sim-pause").addEventListener("click", () => simCommand("pause"));
  $("sim-step").addEventListener("click", () => simCommand("step", { ticks: 1 }));
  $("sim-reset").addEventListener("click", () => simCommand("reset"));
  $("sim-speed").addEventListener("change", () => simCommand("speed", { speed: +$("sim-speed").value }));
  $("replay-file").addEventListener("change", (e) => loadReplayFile(e.target.files[0]));
  $("replay-slider").addEventListener("input", (e) => {
    if (!S.replay) return;
    S.replay.index = +e.target.value;
    S.replayActive = true;
    showReplayTick();
    requestRedraw();
  });
  $("replay-play").addEventListener("click", replayPlay);
  $("replay-close").addEventListener("click", async () => {
    if (S.replay && S.replay.playing) replayPlay();
    S.replay = null;
    S.replayActive = false;
    $("replay-controls").hidden = true;
    $("replay-file").value = "";
    requestRedraw();
    try { await api("DELETE", "/api/replay"); } catch { /* already gone */ }
  });
}

function centre() {
  const r = canvas.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
}

function toolHint() {
  const hints = {
    path: "Click a start cell, then a goal (shift-click: new goal). Drag to pan, wheel to zoom.",
    obstacle: "Click to drop a square obstacle; click an obstacle to remove it.",
    circle: "Click to drop a circle obstacle (it blocks the cells whose centre lies in it); click one to remove it.",
    inspect: "Click a cell (or a character) to inspect it; right-click to send the character somewhere.",
  };
  if (S.building) hints.path = "Click a start, then a goal (on this floor or, after switching floor, another). Drag to pan, wheel to zoom.";
  $("tool-hint").textContent = hints[S.tool] || "";
  $("obstacle-size-row").hidden = S.tool !== "obstacle";
  $("circle-radius-row").hidden = S.tool !== "circle";
}

// ------------------------------------------------------------------ main
async function main() {
  wireInput();
  toolHint();
  resize();
  try {
    await loadInfo();
    await loadGrid();
  } catch (e) {
    toast(`cannot load the map: ${e.message}`);
    return;
  }
  fitView();
  showResult();
  if (S.building) {
    // paths are routes across floors (the Building section, above the tools)
    $("sec-result").hidden = true;
    $("algorithm").parentElement.hidden = true;
    $("floor-algorithm").addEventListener("change", () => runRoute());
    toolHint();
  }
  if (S.info.kind === "scene") {
    // the simulation's controls and inspector go first
    $("sec-tools").after($("sec-sim"), $("sec-inspect"));
    connectSim();
    inspectTimer = setInterval(() => { if (S.selected !== null && S.sim && S.sim.playing) refreshInspector(); }, 500);
  }
  if (S.info.crowd) {
    $("sec-crowd").hidden = false;
    $("sec-tools").after($("sec-crowd"));
    try {
      const { data } = await api("GET", "/api/crowd");
      applyCrowd(data);
    } catch (e) {
      toast(e.message);
    }
    if (S.info.kind !== "scene") connectSim(); // the crowd's frames come over the same socket
  }
  if (S.info.replay) {
    try {
      const { data } = await api("GET", "/api/replay");
      setReplay(data);
    } catch (e) {
      toast(e.message);
    }
  }
  S.ready = true;
  requestRedraw();
}

main();

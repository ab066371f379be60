// kubectl-preempt replay report. Draws what kubectl_preempt/replay/view.py derived from the
// replay report (both embedded below as JSON); this script only sums the layers the filters leave
// visible and lays them out. No network: everything it needs is in the page.
(function () {
  "use strict";

  var SVGNS = "http://www.w3.org/2000/svg";
  var LABEL_W = 210, PAD_R = 14, NODE_H = 30, GROUP_H = 38, AXIS_H = 24, MARK_S = 6;
  var MAX_TABLE_ROWS = 300, MAX_TIP_PODS = 10;
  // a follow row's verdict (replay/follow.py) as the table says it
  var VERDICTS = { agrees: "agrees", tied: "tied", undecidable: "UNDECIDABLE", differs: "DIFFERS", notExplained: "not explained" };

  // ---------------------------------------------------------------- small helpers
  function h(tag, attrs) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    for (var i = 2; i < arguments.length; i++) append(e, arguments[i]);
    return e;
  }
  function s(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    setAttrs(e, attrs);
    for (var i = 2; i < arguments.length; i++) append(e, arguments[i]);
    return e;
  }
  function setAttrs(e, attrs) {
    if (!attrs) return;
    for (var k in attrs) {
      if (!Object.prototype.hasOwnProperty.call(attrs, k) || attrs[k] === null || attrs[k] === undefined) continue;
      if (k === "text") e.textContent = attrs[k];
      else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    }
  }
  function append(e, c) {
    if (c === null || c === undefined || c === false) return;
    if (Array.isArray(c)) { c.forEach(function (x) { append(e, x); }); return; }
    e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }

  function pad2(n) { return (n < 10 ? "0" : "") + n; }
  function duration(sec) {
    if (sec === null || sec === undefined) return "-";
    var x = Number(sec);
    if (x < 1) return x ? x.toFixed(1) + "s" : "0s";
    if (x < 60) return (x === Math.floor(x) ? x.toFixed(0) : x.toFixed(1)) + "s";
    var r = Math.round(x), m = Math.floor(r / 60), ss = r % 60;
    if (m < 60) return ss ? m + "m" + pad2(ss) + "s" : m + "m";
    var hh = Math.floor(m / 60);
    return hh + "h" + pad2(m % 60) + "m";
  }
  function cpu(milli) {
    if (!milli) return "0";
    return milli % 1000 === 0 ? String(milli / 1000) : milli + "m";
  }
  function bytes(b) {
    if (!b) return "0";
    var units = [["Ti", Math.pow(1024, 4)], ["Gi", Math.pow(1024, 3)], ["Mi", Math.pow(1024, 2)], ["Ki", 1024]];
    for (var i = 0; i < units.length; i++) if (b >= units[i][1] && b % units[i][1] === 0) return b / units[i][1] + units[i][0];
    for (i = 0; i < units.length; i++) if (b >= units[i][1]) return (b / units[i][1]).toFixed(1) + units[i][0];
    return String(b);
  }
  function parseClock(text, run) {
    // "10:42:13" (UTC, on the trace's first day) or "+42m13s" / "+90s" from the start
    var t = String(text || "").trim();
    var m = /^\+?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(t);
    if (t && t[0] === "+" && m) return (+(m[1] || 0)) * 3600 + (+(m[2] || 0)) * 60 + (+(m[3] || 0));
    m = /^(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?$/.exec(t);
    if (!m) return null;
    var d = new Date(run.view.start * 1000);
    var day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 1000;
    var abs = day + (+m[1]) * 3600 + (+m[2]) * 60 + (+(m[3] || 0));
    if (abs < run.view.start - 1) abs += 86400;
    return abs - run.view.start;
  }

  // ---------------------------------------------------------------- data
  var runs = [];
  var reportEls = document.querySelectorAll("script.kp-report");
  for (var ri = 0; ri < reportEls.length; ri++) {
    var rEl = reportEls[ri];
    var vEl = document.querySelector('script.kp-view[data-run="' + rEl.getAttribute("data-run") + '"]');
    runs.push(prepare(ri, rEl.getAttribute("data-label") || "", JSON.parse(rEl.textContent), JSON.parse(vEl.textContent)));
  }

  function prepare(id, label, report, view) {
    var run = { id: id, label: label, report: report, view: view };
    run.classes = view.classes;
    run.pods = view.pods.map(function (a, i) {
      return { i: i, key: a[0], ns: view.namespaces[a[1]], cls: a[2], prio: a[3], cpu: a[4], mem: a[5], req: a[6], created: a[7],
               group: a[8] === undefined ? null : a[8], runs: [], preempted: [], evicted: [] };
    });
    run.runs = view.runs.map(function (a, i) {
      var r = { i: i, pod: a[0], node: a[1], start: a[2], end: a[3], how: a[4], pre: a[5], mark: a[6] };
      run.pods[r.pod].runs.push(i);
      return r;
    });
    run.runsByNode = view.lanes.map(function () { return []; });
    run.runs.forEach(function (r) { run.runsByNode[r.node].push(r.i); });
    run.groupOf = view.lanes.map(function (l) { return l.group === undefined ? null : l.group; });
    // pod groups (v1.36 PodGroups, v1.35 Workloads' pod groups): their members are drawn as one unit
    run.podGroups = (view.podGroups || []).map(function (g, i) {
      return { i: i, key: g.key, minCount: g.minCount, listed: g.listed, members: g.members, runs: g.runs,
               firstBound: g.firstBound, lastBound: g.lastBound, preempted: [], evicted: [] };
    });
    run.marks = view.marks.map(function (m, i) {
      var mk = { i: i, t: m.t, node: m.node, pod: m.pod, cls: m.cls, ns: m.ns, victims: m.victims, bound: m.bound,
                 evicts: m.evicts === undefined ? ((report.preemptions[i] || {}).victims || []).length : m.evicts,
                 missing: m.missing || [], p: report.preemptions[i] || {},
                 // a workload-aware preemption: made by a pod group for the whole cluster
                 group: m.group === undefined ? null : m.group, nodes: m.nodes || null, units: m.units || null,
                 membersBound: m.membersBound || null };
      if (m.pod !== null && m.pod !== undefined) run.pods[m.pod].preempted.push(i);
      if (mk.group !== null) run.podGroups[mk.group].preempted.push(i);
      m.victims.forEach(function (vr) { run.pods[run.runs[vr].pod].evicted.push(i); });
      return mk;
    });
    run.marksByNode = view.lanes.map(function () { return []; });
    run.marks.forEach(function (m) {
      if (m.node !== null && m.node !== undefined) run.marksByNode[m.node].push(m.i);
      // a pod group's preemption is marked on every node it took victims from
      (m.nodes || []).forEach(function (ni) { run.marksByNode[ni].push(m.i); });
      (m.units || []).forEach(function (u) {
        if (u.kind !== "PodGroup") return;
        run.podGroups.forEach(function (g) { if (g.key === u.key && g.evicted.indexOf(m.i) < 0) g.evicted.push(m.i); });
      });
    });
    run.expanded = {};
    run.changes = {};
    ((view.changes || {}).pods || []).forEach(function (c) { run.changes[c.pod] = c; });
    run.marks.forEach(function (m) {
      var keys = [m.p.preemptor].concat(m.p.victims || []);
      m.changed = keys.some(function (k) { return k in run.changes; });
    });
    run.shortName = shortNames(view.lanes.map(function (l) { return l.name; }));
    return run;
  }

  // node names without the domain every node shares ("ip-10-0-1-10" for
  // "ip-10-0-1-10.eu-west-1.compute.internal"); the full name is in the lane's tooltip
  function shortNames(names) {
    if (names.length < 2) return names.slice();
    var first = names[0], dot = first.indexOf(".");
    if (dot < 0) return names.slice();
    var suffix = first.slice(dot);
    while (suffix && !names.every(function (n) { return n.length > suffix.length && n.slice(-suffix.length) === suffix; })) {
      var next = suffix.indexOf(".", 1);
      suffix = next < 0 ? "" : suffix.slice(next);
    }
    return suffix ? names.map(function (n) { return n.slice(0, -suffix.length); }) : names.slice();
  }

  var allNs = [], allCls = [], clsColour = {}, clsValue = {};
  runs.forEach(function (run) {
    run.view.namespaces.forEach(function (n) { if (allNs.indexOf(n) < 0) allNs.push(n); });
    run.classes.forEach(function (c) {
      if (!(c.name in clsColour)) { allCls.push(c.name); clsColour[c.name] = c.colour; clsValue[c.name] = c.value; }
    });
  });
  allNs.sort();
  allCls.sort(function (a, b) { return clsValue[b] - clsValue[a]; });
  var full = Math.max.apply(null, runs.map(function (r) { return r.view.duration; }).concat([1]));
  // where a replay's bands end: its trace's end, or across the page for a trace of one instant
  runs.forEach(function (r) { r.end = r.view.duration > 0 ? r.view.duration : full; });

  var S = {
    t0: 0, t1: full,
    ns: new Set(allNs), cls: new Set(allCls),
    onlyMarked: false,
    selected: null, // {run, mark}
    gang: null, // {run, group}: a pod group whose members are outlined on the timeline
  };

  function colour(run, c) { return c === null || c === undefined ? "#777" : run.classes[c].colour; }
  function className(run, c) { return c === null || c === undefined ? "(unknown)" : run.classes[c].name; }
  function layerVisible(run, c, n) {
    return (c < 0 || S.cls.has(run.classes[c].name)) && (n < 0 || S.ns.has(run.view.namespaces[n]));
  }
  function markVisible(run, m) {
    if (m.t < S.t0 || m.t > S.t1) return false;
    var clsOk = m.cls !== null && S.cls.has(run.classes[m.cls].name);
    var nsOk = m.ns !== null && S.ns.has(run.view.namespaces[m.ns]);
    for (var i = 0; i < m.victims.length && !(clsOk && nsOk); i++) {
      var pod = run.pods[run.runs[m.victims[i]].pod];
      clsOk = clsOk || S.cls.has(run.classes[pod.cls].name);
      nsOk = nsOk || S.ns.has(pod.ns);
    }
    return clsOk && nsOk;
  }
  function wall(run, t) {
    var d = new Date((run.view.start + t) * 1000);
    var base = pad2(d.getUTCHours()) + ":" + pad2(d.getUTCMinutes()) + ":" + pad2(d.getUTCSeconds());
    var ms = d.getUTCMilliseconds();
    return ms ? base + "." + String(ms).padStart(3, "0") : base;
  }
  function podRef(run, podIdx, text) {
    var pod = run.pods[podIdx];
    return h("span", { "class": "pod" }, h("span", { "class": "sw-inline", style: "background:" + colour(run, pod.cls) }), text || pod.key);
  }
  // a pod group: a link that outlines its members on the timeline
  function groupRef(run, gi, text) {
    var g = run.podGroups[gi];
    return h("a", { "class": "jump pod gang-ref", "data-gang": g.key, text: text || g.key, title: "outline its members on the timeline",
      onclick: function () { showGang(run.id, gi); } });
  }
  function groupFacts(g) {
    return (g.minCount !== null && g.minCount !== undefined ? "gang of minCount " + g.minCount : g.listed ? "basic pod group" : "pod group not in the trace") +
      ", " + g.members.length + " member" + (g.members.length === 1 ? "" : "s");
  }
  function isGroupMark(m) { return m.group !== null || m.units !== null; }
  function markWhere(run, m) {
    if (isGroupMark(m)) return "the cluster (" + (m.nodes || []).length + " node" + ((m.nodes || []).length === 1 ? "" : "s") + " with victims)";
    return m.node !== null && m.node !== undefined ? run.shortName[m.node] : (m.p.node || "?");
  }
  function preemptorRef(run, m, text) {
    if (m.pod !== null) return podRef(run, m.pod, text);
    if (m.group !== null) return h("span", null, "PodGroup ", groupRef(run, m.group, text));
    return h("span", { "class": "pod", text: text || "?" });
  }

  // ---------------------------------------------------------------- tooltip
  var tip = document.getElementById("tip");
  function showTip(ev, nodes) {
    clear(tip);
    append(tip, nodes);
    tip.style.display = "block";
    var x = ev.clientX + 14, y = ev.clientY + 14;
    var w = tip.offsetWidth, hgt = tip.offsetHeight;
    if (x + w > window.innerWidth - 6) x = ev.clientX - w - 14;
    if (y + hgt > window.innerHeight - 6) y = ev.clientY - hgt - 14;
    tip.style.left = Math.max(4, x) + "px";
    tip.style.top = Math.max(4, y) + "px";
  }
  function hideTip() { tip.style.display = "none"; }

  // ---------------------------------------------------------------- header, banners, filters
  function renderHeader() {
    var top = document.getElementById("top");
    var r = runs[0].report, tr = r.trace || {}, src = tr.source || {};
    var where = src.context || src.form || "trace";
    var title = runs.length > 1 ? document.title : "Replay of " + where;
    append(top, h("h1", { text: title }));
    if (runs.length > 1) {
      append(top, h("div", { "class": "sub", text: runs.length + " replays, one above the other on the same time axis (seconds from each trace's start): " +
        runs.map(function (x) { return x.label; }).join(", ") + ". Outlined marks are preemptions the change affects." }));
    } else {
      append(top, h("div", { "class": "sub", text: traceLine(r) }));
    }
    runs.forEach(function (run) {
      var wi = run.report.whatIf || {};
      var parts = [];
      if (wi.priorityClasses && wi.priorityClasses.length) {
        parts.push("PriorityClasses " + wi.priorityClasses.map(function (c) { return c.name + "=" + c.value + (c.globalDefault ? " (default)" : ""); }).join(", ") +
                   (wi.reresolveExisting ? ", applied to every pod" : ", applied to pods created during the trace"));
      }
      if (wi.config) parts.push("scheduler configuration from --config");
      if (parts.length) append(top, h("div", { "class": "whatif", text: (run.label ? run.label + ": " : "") + "what-if " + parts.join("; ") }));
    });
    document.title = title;
    var banners = document.getElementById("banners");
    runs.forEach(function (run) {
      (run.view.notes || []).forEach(function (n) { append(banners, h("div", { "class": "banner", text: (run.label ? run.label + ": " : "") + n })); });
      if (run.view.approximate) append(banners, h("div", { "class": "banner", text: (run.label ? run.label + ": " : "") +
        "occupancy shows the recording's bindings: this report was made without the replay's own (no activity recorder)." }));
    });
    var foot = document.getElementById("foot");
    append(foot, "Made by " + (document.querySelector('meta[name="generator"]') || { content: "kubectl-preempt" }).content +
      ". The data drawn here is embedded in this file: the replay report exactly as `replay -o json` prints it (script.kp-report) and what was derived from it (script.kp-view). Times are UTC.");
  }

  function traceLine(r) {
    var tr = r.trace || {};
    return (tr.start || "") + " to " + (tr.end || "") + " (" + duration(tr.durationSeconds) + "), " +
      (tr.initialObjects || 0) + " objects at the start, " + (tr.events || 0) + " events after it; " +
      (r.mode === "follow" ? "follow mode: the recording as it happened, each preemption explained at its instant by the offline kube-scheduler " + (r.schedulerVersion || "v1.34.1")
                           : "simulate mode: the offline kube-scheduler " + (r.schedulerVersion || "v1.34.1") + " places every pending pod");
  }

  function renderFilters() {
    var f = document.getElementById("filters");
    clear(f);
    // namespaces
    var nsSummary = h("summary", { text: nsLabel() });
    var menu = h("div", { "class": "menu" },
      h("div", { "class": "links" },
        h("a", { "class": "jump", text: "all", onclick: function () { S.ns = new Set(allNs); refresh(); } }), " · ",
        h("a", { "class": "jump", text: "none", onclick: function () { S.ns = new Set(); refresh(); } })),
      allNs.map(function (n) {
        var cb = h("input", { type: "checkbox", "data-ns": n, onchange: function (e) {
          if (e.target.checked) S.ns.add(n); else S.ns.delete(n);
          refresh();
        } });
        cb.checked = S.ns.has(n);
        return h("label", null, cb, " ", n);
      }));
    var det = h("details", { "class": "ns", id: "ns-filter" }, nsSummary, menu);
    if (renderFilters.nsOpen) det.setAttribute("open", "");
    det.addEventListener("toggle", function () { renderFilters.nsOpen = det.open; });
    append(f, h("div", { "class": "group" }, h("label", { "class": "title", text: "Namespace" }), det));
    // classes
    append(f, h("div", { "class": "group", id: "class-filter" }, h("label", { "class": "title", text: "PriorityClass" }),
      allCls.map(function (c) {
        return h("span", { "class": "chip" + (S.cls.has(c) ? "" : " off"), "data-class": c, title: "priority " + clsValue[c] + " (click to toggle, double-click for only this one)",
          onclick: function () { if (S.cls.has(c)) S.cls.delete(c); else S.cls.add(c); refresh(); },
          ondblclick: function () { S.cls = new Set([c]); refresh(); } },
          h("span", { "class": "sw", style: "background:" + clsColour[c] }), c);
      }), h("a", { "class": "jump all", text: "all", title: "every PriorityClass", onclick: function () { S.cls = new Set(allCls); refresh(); } })));
    // time range
    var r0 = runs[0];
    // whole seconds in the boxes: a dragged range is never a round number
    var from = h("input", { "class": "time", id: "range-from", value: wall(r0, Math.floor(S.t0)), title: "HH:MM:SS (UTC) or +1m30s from the start" });
    var to = h("input", { "class": "time", id: "range-to", value: wall(r0, Math.ceil(S.t1)) });
    function apply() {
      var a = parseClock(from.value, r0), b = parseClock(to.value, r0);
      if (a === null || b === null || b <= a) { from.value = wall(r0, Math.floor(S.t0)); to.value = wall(r0, Math.ceil(S.t1)); return; }
      setRange(a, b);
    }
    from.addEventListener("change", apply);
    to.addEventListener("change", apply);
    append(f, h("div", { "class": "group" }, h("label", { "class": "title", text: "Time" }), from, "–", to,
      h("button", { id: "range-reset", text: "Whole trace", onclick: function () { setRange(0, full); } }),
      h("span", { "class": "hint", text: "drag across a chart or timeline to zoom" })));
    // lanes
    var only = h("input", { type: "checkbox", id: "only-marked", onchange: function (e) { S.onlyMarked = e.target.checked; refresh(); } });
    only.checked = S.onlyMarked;
    var grouped = runs.some(function (r) { return r.view.grouped; });
    append(f, h("div", { "class": "group" }, h("label", { "class": "title", text: "Lanes" }),
      h("label", null, only, " only with preemptions"),
      grouped ? h("button", { text: "Expand all", onclick: function () { runs.forEach(function (r) { r.view.groups.forEach(function (g, i) { r.expanded[i] = true; }); }); refresh(); } }) : null,
      grouped ? h("button", { text: "Collapse all", onclick: function () { runs.forEach(function (r) { r.expanded = {}; }); refresh(); } }) : null));
  }
  function nsLabel() {
    if (S.ns.size === allNs.length) return "all (" + allNs.length + ") ▾";
    if (S.ns.size === 0) return "none ▾";
    var list = allNs.filter(function (n) { return S.ns.has(n); });
    return (list.length <= 3 ? list.join(", ") : list.length + " of " + allNs.length) + " ▾";
  }

  function setRange(a, b) {
    a = Math.max(0, a); b = Math.min(full, b);
    if (b - a < 0.5) { var mid = (a + b) / 2; a = Math.max(0, mid - 0.25); b = Math.min(full, a + 0.5); }
    S.t0 = a; S.t1 = b;
    refresh();
  }

  // ---------------------------------------------------------------- scales and stacking
  function plotWidth() {
    var main = document.getElementById("runs");
    return Math.max(300, main.clientWidth - 26 - LABEL_W - PAD_R);
  }
  function xScale(w) {
    var k = w / (S.t1 - S.t0);
    return function (t) { return LABEL_W + (t - S.t0) * k; };
  }
  function tickStep(span, w) {
    var steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
    var want = span / Math.max(2, Math.floor(w / 95));
    for (var i = 0; i < steps.length; i++) if (steps[i] >= want) return steps[i];
    return steps[steps.length - 1];
  }

  // merges step layers ([t, v, t, v, ...]) into bands per (class, terminating), in class order
  function stack(run, layers) {
    var groups = {}, keys = [];
    layers.forEach(function (l) {
      var c = l[0], n = l[1], term = l.length > 3 ? l[2] : 0, st = l.length > 3 ? l[3] : l[2];
      if (!layerVisible(run, c, n)) return;
      var k = c * 2 + term;
      if (!groups[k]) { groups[k] = []; keys.push(k); }
      groups[k].push(st);
    });
    keys.sort(function (a, b) { return a - b; });
    var tset = {};
    tset[0] = true;
    keys.forEach(function (k) { groups[k].forEach(function (st) { for (var i = 0; i < st.length; i += 2) tset[st[i]] = true; }); });
    var ts = Object.keys(tset).map(Number).sort(function (a, b) { return a - b; });
    var bands = keys.map(function (k) {
      var vals = new Float64Array(ts.length);
      groups[k].forEach(function (st) {
        var j = 0, cur = 0;
        for (var i = 0; i < ts.length; i++) {
          while (j < st.length && st[j] <= ts[i]) { cur = st[j + 1]; j += 2; }
          vals[i] += cur;
        }
      });
      return { cls: k >> 1, term: k & 1, vals: vals };
    });
    return { ts: ts, bands: bands };
  }
  function valueAt(st, t) {
    var v = 0;
    for (var i = 0; i < st.length && st[i] <= t; i += 2) v = st[i + 1];
    return v;
  }

  // draws stacked bands between y0 (bottom) and y0 - height, scaled so `cap` fills the height
  function drawBands(g, run, stacked, x, y0, height, cap, end) {
    var ts = stacked.ts, n = ts.length;
    if (!n || !stacked.bands.length) return;
    var cum = new Float64Array(n);
    var lo = Math.max(0, bisect(ts, S.t0) - 1), hi = Math.min(n, bisect(ts, S.t1) + 1);
    stacked.bands.forEach(function (b) {
      var top = new Float64Array(n);
      for (var i = 0; i < n; i++) top[i] = cum[i] + b.vals[i];
      var d = "", back = "";
      for (i = lo; i < hi; i++) {
        var xa = x(Math.max(ts[i], S.t0)), xb = x(Math.min(i + 1 < n ? ts[i + 1] : end, S.t1));
        if (xb < xa) continue;
        var yt = y0 - Math.min(1.05, top[i] / cap) * height, yb = y0 - Math.min(1.05, cum[i] / cap) * height;
        d += (d ? "L" : "M") + xa.toFixed(1) + "," + yt.toFixed(1) + "L" + xb.toFixed(1) + "," + yt.toFixed(1);
        back = "L" + xb.toFixed(1) + "," + yb.toFixed(1) + "L" + xa.toFixed(1) + "," + yb.toFixed(1) + back;
      }
      if (d) {
        var path = d + back + "Z";
        g.appendChild(s("path", { d: path, fill: colour(run, b.cls), "fill-opacity": b.term ? 0.55 : 0.85 }));
        if (b.term) g.appendChild(s("path", { d: path, fill: "url(#kp-hatch)" }));
      }
      cum = top;
    });
  }
  function bisect(arr, t) {
    var lo = 0, hi = arr.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (arr[mid] < t) lo = mid + 1; else hi = mid; }
    return lo;
  }

  function defs() {
    return s("defs", null,
      s("pattern", { id: "kp-hatch", width: 5, height: 5, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
        s("rect", { width: 2, height: 5, fill: "rgba(255,255,255,.75)" })),
      s("pattern", { id: "kp-dead", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(-45)" },
        s("rect", { width: 6, height: 6, fill: "#eef0f3" }), s("rect", { width: 1.5, height: 6, fill: "#d5d9df" })),
      s("clipPath", { id: "kp-clip" }, s("rect", { x: LABEL_W, y: 0, width: 100000, height: 100000 })));
  }

  function axis(run, w, y, x) {
    var g = s("g", { "class": "axis" });
    var step = tickStep(S.t1 - S.t0, w);
    var first = Math.ceil(S.t0 / step) * step;
    for (var t = first; t <= S.t1 + 1e-9; t += step) {
      var xx = x(t);
      g.appendChild(s("line", { x1: xx, x2: xx, y1: y - 4, y2: y }));
      var anchor = xx > LABEL_W + w - 24 ? "end" : xx < LABEL_W + 24 ? "start" : "middle";
      g.appendChild(s("text", { x: xx, y: y - 7, "text-anchor": anchor, text: wall(run, t).slice(0, step < 1 ? 12 : 8) }));
    }
    g.appendChild(s("line", { x1: LABEL_W, x2: LABEL_W + w, y1: y, y2: y }));
    return g;
  }

  // ---------------------------------------------------------------- brushing (zoom by dragging)
  function brushable(svgEl, x, w, onClick) {
    var startX = null, rect = null;
    function toT(px) { return S.t0 + (px - LABEL_W) / w * (S.t1 - S.t0); }
    svgEl.addEventListener("mousedown", function (ev) {
      if (ev.button !== 0 || (ev.target.classList && ev.target.classList.contains("mark"))) return;
      var px = ev.clientX - svgEl.getBoundingClientRect().left;
      if (px < LABEL_W) return;
      startX = px;
      rect = s("rect", { "class": "brush", x: px, y: 0, width: 0, height: svgEl.getAttribute("height") });
      svgEl.appendChild(rect);
      ev.preventDefault();
    });
    svgEl.addEventListener("mousemove", function (ev) {
      if (startX === null) return;
      var px = Math.max(LABEL_W, Math.min(LABEL_W + w, ev.clientX - svgEl.getBoundingClientRect().left));
      rect.setAttribute("x", Math.min(px, startX));
      rect.setAttribute("width", Math.abs(px - startX));
    });
    function done(ev) {
      if (startX === null) return;
      var px = Math.max(LABEL_W, Math.min(LABEL_W + w, ev.clientX - svgEl.getBoundingClientRect().left));
      var a = startX;
      startX = null;
      if (rect && rect.parentNode) rect.parentNode.removeChild(rect);
      if (Math.abs(px - a) > 4) setRange(toT(Math.min(a, px)), toT(Math.max(a, px)));
      else if (onClick) onClick(ev, toT(px));
    }
    svgEl.addEventListener("mouseup", done);
    svgEl.addEventListener("mouseleave", function (ev) { if (startX !== null) done(ev); });
    svgEl.addEventListener("dblclick", function () { setRange(0, full); });
  }

  // ---------------------------------------------------------------- one run
  function renderRun(run, container) {
    var sec = h("section", { "class": "run", id: "run-" + run.id, "data-run": run.id });
    if (run.label) {
      append(sec, h("h2", { text: run.label }));
      if (runs.length > 1) append(sec, h("div", { "class": "hint", text: traceLine(run.report) }));
    }
    append(sec, cards(run));
    if (run.report.distribution) append(sec, spreadChart(run));
    var w = plotWidth(), x = xScale(w);
    append(sec, h("div", { "class": "chart-title", text: "Preemptions per " + (run.view.bucketSeconds === 60 ? "minute" : duration(run.view.bucketSeconds)) +
      ", by the preemptor's PriorityClass" }));
    append(sec, perBucketChart(run, w, x));
    append(sec, h("div", { "class": "chart-title", text: "Pods pending, by PriorityClass" }));
    append(sec, pendingChart(run, w, x));
    var res = run.view.resource;
    var other = run.view.lanes.some(function (l) { return l.resource && l.resource !== res.name; });
    append(sec, h("div", { "class": "chart-title", text: "Nodes: " + res.name + (other ? " (cpu on nodes without it)" : "") + " requested by the pods on each node, against its allocatable, by PriorityClass" +
      (run.view.grouped ? "; lanes are node pools / zones, click one to expand it" : "") }));
    append(sec, legend(run));
    append(sec, h("div", { "class": "timeline-wrap" }, timeline(run, w, x)));
    append(sec, h("div", { "class": "tables" }, preemptionTable(run), run.podGroups.length ? podGroupTable(run) : null, neverTable(run)));
    container.appendChild(sec);
  }

  // replay --runs N: the timeline drawn is the run with the median number of preemptions; this
  // band chart shows the spread over all runs (light: min to max, dark: p5 to p95, tick: p50)
  function spreadChart(run) {
    var d = run.report.distribution, which = run.report.run || {};
    var rows = [["preemptions", d.preemptions], ["victims", d.victims], ["pods never scheduled", d.podsNeverScheduled]];
    var byW = d.victimsByWorkload || {};
    Object.keys(byW).sort(function (a, b) { return byW[b].p50 - byW[a].p50 || (a < b ? -1 : 1); }).forEach(function (k) {
      rows.push(["victims of " + k, byW[k]]);
    });
    var max = 1;
    rows.forEach(function (r) { max = Math.max(max, r[1].max); });
    var LW = 260, W = 360, RH = 18, H = rows.length * RH + 20;
    var el = s("svg", { width: LW + W + 160, height: H, "class": "chart spread", id: "spread-" + run.id });
    var x = function (v) { return LW + (v / max) * W; };
    rows.forEach(function (r, i) {
      var y = 14 + i * RH, st = r[1];
      el.appendChild(s("text", { x: LW - 8, y: y + 4, "text-anchor": "end", "class": "lane-label", text: r[0] }));
      el.appendChild(s("line", { x1: LW, x2: LW + W, y1: y, y2: y, stroke: "#ddd" }));
      el.appendChild(s("rect", { x: x(st.min), y: y - 5, width: Math.max(2, x(st.max) - x(st.min)), height: 10, fill: "#c9d8ee", "class": "spread-range" }));
      el.appendChild(s("rect", { x: x(st.p5), y: y - 5, width: Math.max(2, x(st.p95) - x(st.p5)), height: 10, fill: "#5b84c4", "class": "spread-band" }));
      el.appendChild(s("line", { x1: x(st.p50), x2: x(st.p50), y1: y - 7, y2: y + 7, stroke: "#102a52", "stroke-width": 2 }));
      el.appendChild(s("text", { x: LW + W + 8, y: y + 4, "class": "lane-label sub",
        text: "p5 " + st.p5 + ", p50 " + st.p50 + ", p95 " + st.p95 + " (" + st.min + " to " + st.max + ")" }));
    });
    return h("div", { "class": "spread-wrap" },
      h("div", { "class": "chart-title", text: d.runs + " runs, each with its own random choices; drawn below: run " + which.run +
        ", the one with the median number of preemptions. Light: min to max over the runs; dark: p5 to p95 (" + d.percentiles + "); tick: p50" }),
      el);
  }

  // the schedulers whose binds a card counts, as the view names them ("kube-scheduler 6,
  // kube-batch 12"), and their names alone ("kube-scheduler and kube-batch")
  function bindsText(v) {
    return (v.binds || []).map(function (b) { return b[0] + " " + b[1]; }).join(", ");
  }
  function schedulersText(v) {
    var names = (v.binds || []).map(function (b) { return b[0]; });
    return names.length > 1 ? names.slice(0, -1).join(", ") + " and " + names[names.length - 1] : (names[0] || "");
  }

  function cards(run) {
    var r = run.report, sm = r.summary || {}, v = run.view;
    var tts = sm.timeToSchedule || v.timeToSchedule || {};
    var inRange = run.marks.filter(function (m) { return markVisible(run, m); });
    // as the text report counts them: a victim already terminating, or already being evicted, once
    var victims = inRange.reduce(function (a, m) { return a + m.evicts; }, 0);
    var items = [
      ["Preemptions", inRange.length, victims + " victims" + (inRange.length !== run.marks.length ? "; " + run.marks.length + " in all, before filters" : ""), "card-preemptions"],
    ];
    if (r.mode === "follow") {
      // every verdict the text summary counts (render/replay.py _follow_counts): tied and
      // undecidable too, or a follow of a gang's tied choices reads "0 agree, 0 differ"
      var others = [];
      if (sm.tied) others.push(sm.tied + " tied");
      if (sm.undecidable) others.push(sm.undecidable + " undecidable");
      others.push((sm.differ || 0) + " differ");
      if (sm.notExplained) others.push(sm.notExplained + " not explained");
      items.push(["Verdicts", (sm.agree || 0) + " agree", others.join(", "), "card-verdicts", sm.differ > 0]);
    } else {
      var bound = (v.binds || []).reduce(function (a, b) { return a + b[1]; }, 0);
      items.push(["Scheduled", bound, "bound by " + bindsText(v) + "; kube-scheduler: " + (sm.decisions || 0) + " decisions, " +
        (sm.unschedulableAttempts || 0) + " failed", "card-scheduled"]);
    }
    var never = r.mode === "follow" ? v.pendingAtEnd.length : (sm.podsNeverScheduled || 0);
    items.push([r.mode === "follow" ? "Pending at the end" : "Never scheduled", never, "pods without a node at the end", "card-never", never > 0]);
    items.push(["Time to schedule", "p50 " + duration(tts.p50Seconds), "p99 " + duration(tts.p99Seconds) + ", max " + duration(tts.maxSeconds) + " (" + (tts.pods || 0) + " pods" +
      (r.mode === "follow" ? ", as recorded" : " bound by " + schedulersText(v)) + ")", "card-tts"]);
    if (v.changes) {
      var tot = v.changes.totals || {};
      var parts = [["newlyPreempted", "newly preempted"], ["noLongerPreempted", "no longer preempted"], ["newlyUnschedulable", "newly unschedulable"],
                   ["newlyScheduled", "newly scheduled"], ["differentPreemptor", "other preemptor"], ["differentNode", "other node"],
                   ["newlyPreempting", "newly preempts"], ["noLongerPreempting", "no longer preempts"], ["differentPreemptions", "preempts otherwise"]]
        .filter(function (x) { return tot[x[0]]; }).map(function (x) { return tot[x[0]] + " " + x[1]; });
      items.push(["Changes with the proposal", tot.podsChanged || 0, parts.join(", ") || "no pod changes", "card-changes", (tot.newlyPreempted || tot.newlyUnschedulable) > 0]);
    }
    items.push(["Nodes", v.lanes.length, v.grouped ? v.groups.length + " pools / zones" : "one lane each", "card-nodes"]);
    return h("div", { "class": "cards" }, items.map(function (it) {
      return h("div", { "class": "card" + (it[4] ? " bad" : ""), id: it[3] + "-" + run.id }, h("div", { "class": "k", text: it[0] }),
        h("div", { "class": "v", text: String(it[1]) }), h("div", { "class": "k", text: it[2] }));
    }));
  }

  // what the timeline below draws, each pattern named once it is drawn: the allocatable line, the
  // victims' grace period, a node's absence, the preemption marks (and those a proposal changes),
  // where a preemptor was bound
  function legend(run) {
    var v = run.view, items = [["cap", "dashed line: the node's allocatable"]];
    var hatched = v.lanes.concat(v.groups || []).some(function (l) { return (l.layers || []).some(function (ly) { return ly[2] === 1; }); });
    if (hatched) items.push(["hatch", "hatched: victims in their grace period (terminating, still on the node)"]);
    if (v.lanes.some(function (l) { return absent(l.alive || [], v.duration); })) {
      items.push(["dead", "grey stripes: the node is not in the cluster (added later, or deleted)"]);
    }
    if (run.marks.length) {
      items.push(["mark", "▼ a preemption (colour of the preemptor's class)"]);
      if (run.marks.some(function (m) { return m.changed; })) items.push(["changed", "▼ outlined dark red: a preemption the proposal changes"]);
      items.push(["bound", "● where the selected preemption's preemptor was bound"]);
    }
    return h("div", { "class": "legend", id: "legend-" + run.id }, items.map(function (it) {
      return h("span", { "class": "legend-item", "data-pattern": it[0], text: it[1] });
    }));
  }
  // whether a node is missing from the cluster for part of the trace: before it was added, after it was removed
  function absent(alive, end) {
    var prev = 0;
    for (var i = 0; i < alive.length; i++) {
      if (alive[i][0] > prev + 1e-6) return true;
      if (alive[i][1] === null) return false;
      prev = alive[i][1];
    }
    return prev < end - 1e-6;
  }

  function perBucketChart(run, w, x) {
    var H = 64, v = run.view, b = v.bucketSeconds;
    var counts = {}; // bucket -> [per class]
    v.perBucket.forEach(function (l) {
      if (!layerVisible(run, l[0], l[1])) return;
      for (var i = 0; i < l[2].length; i += 2) {
        var k = l[2][i];
        (counts[k] = counts[k] || {})[l[0]] = ((counts[k] || {})[l[0]] || 0) + l[2][i + 1];
      }
    });
    var max = 1;
    Object.keys(counts).forEach(function (k) {
      var t = +k * b;
      if (t + b < S.t0 || t > S.t1) return;
      var sum = 0;
      for (var c in counts[k]) sum += counts[k][c];
      max = Math.max(max, sum);
    });
    var el = s("svg", { width: LABEL_W + w + PAD_R, height: H + AXIS_H, "class": "chart", id: "chart-preemptions-" + run.id });
    el.appendChild(defs());
    el.appendChild(axis(run, w, AXIS_H - 2, x));
    el.appendChild(s("text", { x: LABEL_W - 8, y: AXIS_H + 10, "text-anchor": "end", "class": "lane-label sub", text: max + " / " + (b === 60 ? "min" : duration(b)) }));
    el.appendChild(s("text", { x: LABEL_W - 8, y: AXIS_H + H, "text-anchor": "end", "class": "lane-label sub", text: "0" }));
    var g = s("g", { "clip-path": "url(#kp-clip)" });
    Object.keys(counts).forEach(function (k) {
      var t = +k * b;
      if (t + b < S.t0 || t > S.t1) return;
      var x0 = x(t), x1 = x(Math.min(t + b, full)), y = AXIS_H + H;
      Object.keys(counts[k]).map(Number).sort(function (a, c) { return a - c; }).forEach(function (c) {
        var hh = counts[k][c] / max * (H - 4);
        y -= hh;
        var r = s("rect", { x: x0 + 0.5, y: y, width: Math.max(1, x1 - x0 - 1), height: hh, fill: c >= 0 ? colour(run, c) : "#777" });
        r.addEventListener("mousemove", function (ev) {
          showTip(ev, [h("div", { text: wall(run, t) + "–" + wall(run, t + b) }), h("div", { text: counts[k][c] + " preemption(s) by " + (c >= 0 ? className(run, c) : "(unknown)") })]);
        });
        r.addEventListener("mouseleave", hideTip);
        g.appendChild(r);
      });
    });
    el.appendChild(g);
    brushable(el, x, w);
    return el;
  }

  function pendingChart(run, w, x) {
    var H = 54, v = run.view;
    var st = stack(run, v.pending);
    var max = 1;
    var tot = new Float64Array(st.ts.length);
    st.bands.forEach(function (bd) { for (var i = 0; i < tot.length; i++) tot[i] += bd.vals[i]; });
    for (var i = 0; i < st.ts.length; i++) {
      var next = i + 1 < st.ts.length ? st.ts[i + 1] : full;
      if (next >= S.t0 && st.ts[i] <= S.t1) max = Math.max(max, tot[i]);
    }
    var el = s("svg", { width: LABEL_W + w + PAD_R, height: H + 6, "class": "chart", id: "chart-pending-" + run.id });
    el.appendChild(defs());
    el.appendChild(s("text", { x: LABEL_W - 8, y: 10, "text-anchor": "end", "class": "lane-label sub", text: max + " pending" }));
    el.appendChild(s("text", { x: LABEL_W - 8, y: H, "text-anchor": "end", "class": "lane-label sub", text: "0" }));
    el.appendChild(s("line", { x1: LABEL_W, x2: LABEL_W + w, y1: H + 0.5, y2: H + 0.5, stroke: "#c9ced6" }));
    var g = s("g", { "clip-path": "url(#kp-clip)" });
    drawBands(g, run, st, x, H, H - 4, max, run.end);
    el.appendChild(g);
    el.addEventListener("mousemove", function (ev) {
      var px = ev.clientX - el.getBoundingClientRect().left;
      if (px < LABEL_W) { hideTip(); return; }
      var t = S.t0 + (px - LABEL_W) / w * (S.t1 - S.t0);
      var j = bisect(st.ts, t + 1e-9) - 1;
      if (j < 0) { hideTip(); return; }
      var lines = [h("div", { text: wall(run, t) + ": " + tot[j] + " pending" })];
      st.bands.forEach(function (bd) { if (bd.vals[j]) lines.push(h("div", null, h("span", { "class": "sw-inline", style: "background:" + colour(run, bd.cls) }), className(run, bd.cls) + " " + bd.vals[j])); });
      showTip(ev, lines);
    });
    el.addEventListener("mouseleave", hideTip);
    brushable(el, x, w);
    return el;
  }

  // lanes in drawing order: nodes, or pools / zones with the expanded ones' nodes under them
  function laneItems(run) {
    var v = run.view, items = [];
    function hasMarks(nodeIdx) { return run.marksByNode[nodeIdx].some(function (mi) { return markVisible(run, run.marks[mi]); }); }
    if (!v.grouped) {
      v.lanes.forEach(function (l, i) { if (!S.onlyMarked || hasMarks(i)) items.push({ kind: "node", i: i }); });
      return items;
    }
    v.groups.forEach(function (g, gi) {
      var marked = g.nodes.filter(hasMarks);
      if (S.onlyMarked && !marked.length) return;
      items.push({ kind: "group", i: gi });
      if (run.expanded[gi]) (S.onlyMarked ? marked : g.nodes).forEach(function (ni) { items.push({ kind: "node", i: ni, indent: true }); });
    });
    return items;
  }

  function timeline(run, w, x) {
    var v = run.view, items = laneItems(run);
    var height = AXIS_H + 4;
    // few lanes get more height: the bands are the point of the picture
    var nodeH = items.length <= 8 ? NODE_H + 14 : items.length <= 20 ? NODE_H + 6 : NODE_H;
    items.forEach(function (it) { it.y = height; it.h = it.kind === "group" ? GROUP_H : nodeH; height += it.h + 2; });
    height += 6;
    var el = s("svg", { width: LABEL_W + w + PAD_R, height: height, "class": "timeline", id: "timeline-" + run.id, "data-run": run.id });
    el.appendChild(defs());
    el.appendChild(axis(run, w, AXIS_H, x));
    var nodeY = {}, groupY = {};
    var lanesG = s("g", { "class": "lanes" }), marksG = s("g", { "class": "marks", "clip-path": "url(#kp-clip)" });
    items.forEach(function (it) {
      var lane = it.kind === "group" ? v.groups[it.i] : v.lanes[it.i];
      var g = s("g", { "class": "lane" + (it.kind === "group" ? " group" : ""), transform: "translate(0," + it.y + ")" });
      if (it.kind === "group") { g.setAttribute("data-group", lane.name); groupY[it.i] = it; }
      else { g.setAttribute("data-node", lane.name); nodeY[it.i] = it; }
      g.appendChild(s("rect", { "class": "lane-bg" + (it.kind === "group" ? " group" : ""), x: LABEL_W, y: 0, width: w, height: it.h }));
      // label
      var ind = it.indent ? 14 : 4;
      if (it.kind === "group") {
        var open = !!run.expanded[it.i];
        var lab = s("text", { "class": "lane-label group", x: ind, y: 14, text: (open ? "▾ " : "▸ ") + trunc(lane.name, 30) });
        lab.addEventListener("click", function () { run.expanded[it.i] = !run.expanded[it.i]; refresh(); });
        g.appendChild(lab);
        var nm = lane.nodes.reduce(function (a, ni) { return a + run.marksByNode[ni].filter(function (mi) { return markVisible(run, run.marks[mi]); }).length; }, 0);
        g.appendChild(s("text", { "class": "lane-label sub", x: ind + 12, y: 28, text: lane.nodes.length + " nodes" + (nm ? ", " + nm + " preemption" + (nm > 1 ? "s" : "") : "") }));
      } else {
        g.appendChild(s("text", { "class": "lane-label", x: ind, y: 13, text: trunc(run.shortName[it.i], 32) }, s("title", { text: lane.name })));
        var sub = [lane.pool, lane.zone, lane.resource && lane.resource !== v.resource.name ? "in " + lane.resource : ""].filter(Boolean).join(" · ");
        var nmk = run.marksByNode[it.i].filter(function (mi) { return markVisible(run, run.marks[mi]); }).length;
        if (nmk) sub = (sub ? sub + " · " : "") + nmk + " preemption" + (nmk > 1 ? "s" : "");
        if (sub) g.appendChild(s("text", { "class": "lane-label sub", x: ind, y: 25, text: trunc(sub, 36) }));
        // the node's absence (added later, removed before the end)
        var alive = lane.alive || [];
        var prev = 0;
        var clipG = s("g", { "clip-path": "url(#kp-clip)" });
        alive.concat([[v.duration + 1e9, null]]).forEach(function (a) {
          if (a[0] > prev + 1e-6) clipG.appendChild(s("rect", { "class": "lane-dead", x: x(Math.max(prev, S.t0)), y: 0, width: Math.max(0, x(Math.min(a[0], S.t1)) - x(Math.max(prev, S.t0))), height: it.h }));
          prev = a[1] === null ? v.duration + 2e9 : a[1];
        });
        g.appendChild(clipG);
      }
      var bandsG = s("g", { "clip-path": "url(#kp-clip)" });
      var cap = lane.capacity || 0;
      var st = stack(run, lane.layers);
      if (!cap) { var mx = 0; st.bands.forEach(function (b) { for (var i = 0; i < b.vals.length; i++) mx = Math.max(mx, b.vals[i]); }); cap = mx || 1; }
      drawBands(bandsG, run, st, x, it.h - 1, it.h - 7, cap, run.end);
      g.appendChild(bandsG);
      g.appendChild(s("line", { "class": "cap", x1: LABEL_W, x2: LABEL_W + w, y1: 6, y2: 6 }));
      // hover: what was on the node at that time
      var hit = s("rect", { x: LABEL_W, y: 0, width: w, height: it.h, fill: "transparent" });
      hit.addEventListener("mousemove", function (ev) { laneTip(ev, run, it, lane, st, cap, x, w); });
      hit.addEventListener("mouseleave", hideTip);
      g.appendChild(hit);
      lanesG.appendChild(g);
      // marks on this lane
      var mlist = it.kind === "group" ? lane.nodes.reduce(function (a, ni) { return a.concat(run.marksByNode[ni]); }, []) : run.marksByNode[it.i];
      mlist.forEach(function (mi) {
        var m = run.marks[mi];
        if (m.t < S.t0 || m.t > S.t1) return;
        var mx2 = x(m.t), y = it.y + 1;
        var vis = markVisible(run, m);
        var sel = S.selected && S.selected.run === run.id && S.selected.mark === mi;
        var tri = s("path", { "class": "mark" + (sel ? " sel" : "") + (vis ? "" : " dim") + (m.changed ? " changed" : ""), d: "M" + (mx2 - MARK_S) + "," + y + "L" + (mx2 + MARK_S) + "," + y + "L" + mx2 + "," + (y + MARK_S * 1.6) + "Z",
          fill: colour(run, m.cls), tabindex: vis ? 0 : null, role: "button", "data-mark": mi, "data-run": run.id,
          "aria-label": "preemption by " + (isGroupMark(m) ? "PodGroup " : "") + (m.p.preemptor || "?") + " on " + (isGroupMark(m) ? "the cluster" : m.p.node || "?") + " at " + wall(run, m.t) });
        tri.addEventListener("click", function (ev) { ev.stopPropagation(); select(run.id, mi); });
        tri.addEventListener("keydown", function (ev) { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(run.id, mi); } });
        tri.addEventListener("mousemove", function (ev) { markTip(ev, run, m); });
        tri.addEventListener("mouseleave", hideTip);
        marksG.appendChild(tri);
      });
    });
    el.appendChild(lanesG);
    el.appendChild(marksG);
    // the selected preemption: its victims' runs, and where the preemptor went
    if (S.selected && S.selected.run === run.id) el.appendChild(selectionOverlay(run, run.marks[S.selected.mark], nodeY, groupY, x, w));
    if (S.gang && S.gang.run === run.id) el.appendChild(gangOverlay(run, S.gang.group, nodeY, groupY, x));
    brushable(el, x, w, function (ev, t) {
      // a click near a mark on a lane selects it
      var rect = el.getBoundingClientRect(), py = ev.clientY - rect.top;
      var it = items.filter(function (i2) { return py >= i2.y && py <= i2.y + i2.h; })[0];
      if (!it) return;
      var lane = it.kind === "group" ? v.groups[it.i] : v.lanes[it.i];
      var mlist = it.kind === "group" ? lane.nodes.reduce(function (a, ni) { return a.concat(run.marksByNode[ni]); }, []) : run.marksByNode[it.i];
      var best = null, bestD = 8;
      mlist.forEach(function (mi) { var d = Math.abs(x(run.marks[mi].t) - (ev.clientX - rect.left)); if (d < bestD && markVisible(run, run.marks[mi])) { best = mi; bestD = d; } });
      if (best !== null) select(run.id, best);
    });
    return el;
  }

  function laneAnchor(run, nodeIdx, nodeY, groupY) {
    if (nodeY[nodeIdx]) return nodeY[nodeIdx];
    var g = run.groupOf[nodeIdx];
    return g !== null && groupY[g] ? groupY[g] : null;
  }

  // a pod group's members as one unit: each member's run outlined on its lane, the runs joined
  // by one line at the moment the group was bound (a gang binds all its members in one cycle)
  function gangOverlay(run, gi, nodeY, groupY, x) {
    var grp = run.podGroups[gi];
    var g = s("g", { "class": "gang", "clip-path": "url(#kp-clip)", "data-gang": grp.key });
    var points = [];
    grp.runs.forEach(function (ri) {
      var r = run.runs[ri], at = laneAnchor(run, r.node, nodeY, groupY);
      if (!at) return;
      var x0 = x(Math.max(r.start, S.t0)), x1 = x(Math.min(r.end === null ? run.end : r.end, S.t1));
      if (x1 < x0) return;
      var y = at.y + 3 + (points.filter(function (p2) { return p2[2] === at; }).length % 4) * 4;
      g.appendChild(s("rect", { "class": "gang-run", x: x0, y: y, width: Math.max(2, x1 - x0), height: 3, "data-pod": run.pods[r.pod].key },
        s("title", { text: run.pods[r.pod].key + " (member of " + grp.key + ")" })));
      points.push([x(r.start), y + 1.5, at]);
    });
    if (points.length > 1) {
      points.sort(function (a, b) { return a[1] - b[1]; });
      g.appendChild(s("path", { "class": "gang-join", d: points.map(function (p2, k) { return (k ? "L" : "M") + p2[0] + "," + p2[1]; }).join("") }));
    }
    points.forEach(function (p2) { g.appendChild(s("circle", { "class": "gang-dot", cx: p2[0], cy: p2[1], r: 3 })); });
    return g;
  }

  function groupSelectionOverlay(run, m, nodeY, groupY, x) {
    var g = s("g", { "class": "selection", "clip-path": "url(#kp-clip)" });
    var mx = x(m.t);
    // the victims, lane by lane, stacked at the bottom; a victim PodGroup's pods share one outline
    var perLane = [];
    (m.units || []).forEach(function (u) {
      u.victims.forEach(function (ri) {
        var r = run.runs[ri], at = laneAnchor(run, r.node, nodeY, groupY);
        if (!at) return;
        var k = perLane.indexOf(at);
        if (k < 0) { perLane.push(at); at.stackN = 0; g.appendChild(s("line", { "class": "guide", x1: mx, x2: mx, y1: at.y, y2: at.y + at.h })); }
        var bh = 4, y = at.y + at.h - 2 - (++at.stackN) * bh;
        var pod = run.pods[r.pod];
        var x0 = x(Math.max(r.start, S.t0)), x1 = x(Math.min(r.end === null ? run.end : r.end, S.t1));
        g.appendChild(s("rect", { "class": "victim-bar" + (u.kind === "PodGroup" ? " unit-group" : ""), x: x0, y: y, width: Math.max(1, x1 - x0), height: bh - 0.5,
          fill: colour(run, pod.cls), "data-victim": pod.key, "data-unit": u.key },
          s("title", { text: pod.key + " (victim" + (u.kind === "PodGroup" ? ", with its PodGroup " + u.key : "") + ")" })));
      });
    });
    // where the members went: one dot each, joined as one unit, linked to the mark
    var dots = [];
    (m.membersBound || []).forEach(function (mb) {
      if (!mb[1]) return;
      var bt = laneAnchor(run, mb[1][1], nodeY, groupY);
      if (bt) dots.push([x(mb[1][0]), bt.y + bt.h / 2, run.pods[mb[0]].key, mb[1][0]]);
    });
    if (dots.length) {
      dots.sort(function (a, b) { return a[1] - b[1]; });
      var first = perLane.length ? perLane[0] : null;
      if (first) {
        var y0 = first.y + MARK_S * 1.6 + 1, midY = (y0 + dots[0][1]) / 2;
        g.appendChild(s("path", { "class": "link", d: "M" + mx + "," + y0 + "C" + mx + "," + midY + " " + dots[0][0] + "," + midY + " " + dots[0][0] + "," + dots[0][1] }));
      }
      if (dots.length > 1) g.appendChild(s("path", { "class": "gang-join", d: dots.map(function (d2, k) { return (k ? "L" : "M") + d2[0] + "," + d2[1]; }).join("") }));
      dots.forEach(function (d2) {
        g.appendChild(s("circle", { cx: d2[0], cy: d2[1], r: 4.5, fill: colour(run, m.cls), stroke: "#000", "stroke-width": 1.2 },
          s("title", { text: d2[2] + " bound at " + wall(run, d2[3]) })));
      });
    }
    return g;
  }

  function selectionOverlay(run, m, nodeY, groupY, x, w) {
    if (isGroupMark(m)) return groupSelectionOverlay(run, m, nodeY, groupY, x);
    var g = s("g", { "class": "selection", "clip-path": "url(#kp-clip)" });
    var at = laneAnchor(run, m.node, nodeY, groupY);
    if (!at) return g;
    var mx = x(m.t);
    g.appendChild(s("line", { "class": "guide", x1: mx, x2: mx, y1: at.y, y2: at.y + at.h }));
    // victims: a bar per victim from its start to its end, stacked at the lane's bottom
    var n = m.victims.length, bh = Math.max(2, Math.min(5, (at.h - 12) / Math.max(1, n)));
    m.victims.forEach(function (ri, k) {
      var r = run.runs[ri], pod = run.pods[r.pod];
      var y = at.y + at.h - 2 - (k + 1) * bh;
      var x0 = x(Math.max(r.start, S.t0)), x1 = x(Math.min(r.end === null ? run.end : r.end, S.t1));
      g.appendChild(s("rect", { "class": "victim-bar", x: x0, y: y, width: Math.max(1, x1 - x0), height: bh - 0.5, fill: colour(run, pod.cls), "data-victim": pod.key },
        s("title", { text: pod.key + " (victim)" })));
      if (r.end !== null) g.appendChild(s("text", { x: x1 + 2, y: y + bh, "font-size": 9, text: "×" }));
    });
    // the preemptor: where and when it was bound
    if (m.bound) {
      var bt = laneAnchor(run, m.bound[1], nodeY, groupY);
      if (bt) {
        var bx = x(m.bound[0]), by = bt.y + bt.h / 2;
        var y0 = at.y + MARK_S * 1.6 + 1;
        var midY = (y0 + by) / 2;
        g.appendChild(s("path", { "class": "link", d: "M" + mx + "," + y0 + "C" + mx + "," + midY + " " + bx + "," + midY + " " + bx + "," + by }));
        g.appendChild(s("circle", { cx: bx, cy: by, r: 4.5, fill: colour(run, m.cls), stroke: "#000", "stroke-width": 1.2 },
          s("title", { text: (m.p.preemptor || "") + " bound at " + wall(run, m.bound[0]) })));
      }
    }
    return g;
  }

  function trunc(t, n) { t = String(t); return t.length > n ? t.slice(0, n - 1) + "…" : t; }

  function markTip(ev, run, m) {
    var p = m.p;
    var lines = [h("div", null, h("b", { text: wall(run, m.t) }), isGroupMark(m) ? " workload-aware preemption on " : " preemption on ", h("b", { text: isGroupMark(m) ? markWhere(run, m) : p.node || "?" }))];
    lines.push(h("div", null, preemptorRef(run, m, p.preemptor || "?"), h("span", { "class": "muted", text: "  priority " + p.priority + " (" + (p.priorityClassName || "(none)") + ")" })));
    var vs = p.victims || [];
    lines.push(h("div", { "class": "muted", text: "evicts " + vs.length + ": " + (m.units ? unitsText(m.units, 4) : vs.slice(0, 4).join(", ") + (vs.length > 4 ? " +" + (vs.length - 4) + " more" : "")) }));
    if (p.agrees === false) lines.push(h("div", { text: "the offline scheduler differs" }));
    if (p.verdict === "undecidable") lines.push(h("div", { text: "the trace cannot decide" }));
    lines.push(h("div", { "class": "muted", text: "click for why" }));
    showTip(ev, lines);
  }

  function laneTip(ev, run, it, lane, st, cap, x, w) {
    var svgEl = ev.target.ownerSVGElement;
    var px = ev.clientX - svgEl.getBoundingClientRect().left;
    var t = S.t0 + (px - LABEL_W) / w * (S.t1 - S.t0);
    var j = bisect(st.ts, t + 1e-9) - 1;
    var res = laneResource(run, lane);
    var total = 0;
    var lines = [h("div", null, h("b", { text: lane.name }), h("span", { "class": "muted", text: "  " + wall(run, t) }))];
    if (j >= 0) st.bands.forEach(function (b) {
      if (!b.vals[j]) return;
      total += b.vals[j];
      lines.push(h("div", null, h("span", { "class": "sw-inline", style: "background:" + colour(run, b.cls) }),
        className(run, b.cls) + (b.term ? " (terminating)" : "") + ": " + fmtRes(res, b.vals[j])));
    });
    lines.splice(1, 0, h("div", { "class": "muted", text: res.name + " requested " + fmtRes(res, total) + " of " + fmtRes(res, cap) + " allocatable" }));
    if (it.kind === "node") {
      var here = run.runsByNode[it.i].map(function (ri) { return run.runs[ri]; }).filter(function (r) {
        var pod = run.pods[r.pod];
        return r.start <= t && (r.end === null || r.end > t) && S.ns.has(pod.ns) && S.cls.has(run.classes[pod.cls].name);
      });
      here.sort(function (a, b) { return run.pods[a.pod].cls - run.pods[b.pod].cls || podRequest(run, run.pods[b.pod], res.name) - podRequest(run, run.pods[a.pod], res.name); });
      here.slice(0, MAX_TIP_PODS).forEach(function (r) {
        var pod = run.pods[r.pod];
        lines.push(h("div", null, podRef(run, r.pod), h("span", { "class": "muted", text: " " + fmtRes(res, podRequest(run, pod, res.name)) + (r.pre !== null && r.pre <= t ? ", terminating" : "") +
          (pod.group !== null ? ", of pod group " + run.podGroups[pod.group].key : "") })));
      });
      if (here.length > MAX_TIP_PODS) lines.push(h("div", { "class": "muted", text: "+" + (here.length - MAX_TIP_PODS) + " more pods" }));
    } else {
      lines.push(h("div", { "class": "muted", text: lane.nodes.length + " nodes; click the name to expand" }));
    }
    showTip(ev, lines);
  }
  function laneResource(run, lane) {
    var name = lane.resource || run.view.resource.name;
    return name === run.view.resource.name ? run.view.resource : { name: name };
  }
  function podRequest(run, pod, name) {
    if (name === run.view.resource.name) return pod.req;
    return name === "memory" ? pod.mem : pod.cpu;
  }
  function fmtRes(res, v) {
    if (res.name === "cpu") return cpu(v);
    if (res.name === "memory") return bytes(v);
    return String(v);
  }

  // ---------------------------------------------------------------- tables
  function preemptionTable(run) {
    var rows = run.marks.filter(function (m) { return markVisible(run, m); });
    var follow = run.report.mode === "follow";
    var wrap = h("div", { "class": "ptable", id: "preemptions-" + run.id });
    append(wrap, h("h3", { text: "Preemptions (" + rows.length + (rows.length !== run.marks.length ? " of " + run.marks.length : "") + ")" }));
    if (!rows.length) { append(wrap, h("div", { "class": "more", text: run.marks.length ? "None match the filters and time range." : "No preemptions in this replay." })); return wrap; }
    var tb = h("tbody");
    rows.slice(0, MAX_TABLE_ROWS).forEach(function (m) {
      var p = m.p, vs = p.victims || [];
      var sel = S.selected && S.selected.run === run.id && S.selected.mark === m.i;
      append(tb, h("tr", { "class": "clickable" + (sel ? " sel" : ""), "data-mark": m.i, onclick: function () { select(run.id, m.i); } },
        h("td", { text: wall(run, m.t) }),
        h("td", null, m.pod !== null || m.group !== null ? preemptorRef(run, m, p.preemptor) : (p.preemptor || "?")),
        h("td", { text: p.priority === null || p.priority === undefined ? "-" : p.priority + " (" + (p.priorityClassName || "(none)") + ")" }),
        h("td", { "class": "pod", text: isGroupMark(m) ? markWhere(run, m) : m.node !== null && m.node !== undefined ? run.shortName[m.node] : (p.node || ""), title: p.node || "" }),
        h("td", { "class": "pod", text: m.units ? unitsText(m.units, 3) : vs.slice(0, 3).join(", ") + (vs.length > 3 ? " (+" + (vs.length - 3) + ")" : "") }),
        follow ? h("td", { text: VERDICTS[p.verdict] || "not explained" }) : null));
    });
    append(wrap, h("table", null, h("thead", null, h("tr", null, h("th", { text: "Time" }), h("th", { text: "Preemptor" }), h("th", { text: "Priority" }),
      h("th", { text: "Node" }), h("th", { text: "Victims" }), follow ? h("th", { text: "Verdict" }) : null)), tb));
    if (rows.length > MAX_TABLE_ROWS) append(wrap, h("div", { "class": "more", text: (rows.length - MAX_TABLE_ROWS) + " more: narrow the time range or the filters" }));
    return wrap;
  }

  // victims of a workload-aware preemption by unit: "batch/lowgang (PodGroup, 4 pods), batch/f1"
  function unitsText(units, n) {
    var parts = units.slice(0, n).map(function (u) { return u.kind === "PodGroup" ? u.key + " (PodGroup, " + u.victims.length + " pod" + (u.victims.length === 1 ? "" : "s") + ")" : u.key; });
    return parts.join(", ") + (units.length > n ? " (+" + (units.length - n) + ")" : "");
  }

  // one row per pod group: its members as one unit, where and when they were bound, what it preempted
  function podGroupTable(run) {
    var wrap = h("div", { "class": "gtable", id: "podgroups-" + run.id });
    append(wrap, h("h3", { text: "Pod groups (" + run.podGroups.length + ")" }));
    var tb = h("tbody");
    run.podGroups.slice(0, MAX_TABLE_ROWS).forEach(function (g) {
      var nodes = {};
      g.runs.forEach(function (ri) { var n = run.shortName[run.runs[ri].node]; nodes[n] = (nodes[n] || 0) + 1; });
      var bound = g.members.filter(function (pi) { return run.pods[pi].runs.length; }).length;
      var sel = S.gang && S.gang.run === run.id && S.gang.group === g.i;
      append(tb, h("tr", { "class": "clickable" + (sel ? " sel" : ""), "data-gang": g.key, onclick: function () { showGang(run.id, g.i); } },
        h("td", { "class": "pod", text: g.key }),
        h("td", { text: groupFacts(g) }),
        h("td", { text: bound + " of " + g.members.length + (g.firstBound === null ? "" : " at " + wall(run, g.firstBound) + (g.lastBound !== g.firstBound ? " to " + wall(run, g.lastBound) : "")) }),
        h("td", { "class": "pod", text: Object.keys(nodes).map(function (n) { return n + (nodes[n] > 1 ? " ×" + nodes[n] : ""); }).join(", ") || "-" }),
        h("td", null, g.preempted.map(function (mi, k) { return [k ? ", " : "", jump(run, mi, wall(run, run.marks[mi].t))]; })),
        h("td", null, g.evicted.map(function (mi, k) { return [k ? ", " : "", jump(run, mi, "by " + (run.marks[mi].p.preemptor || "?"))]; }))));
    });
    append(wrap, h("table", null, h("thead", null, h("tr", null, h("th", { text: "Pod group" }), h("th", { text: "Policy" }), h("th", { text: "Bound" }),
      h("th", { text: "Nodes" }), h("th", { text: "Preempted" }), h("th", { text: "Evicted whole" }))), tb));
    append(wrap, h("div", { "class": "more", text: "Click a pod group to outline its members on the timeline." }));
    return wrap;
  }
  function showGang(runId, gi) {
    S.gang = S.gang && S.gang.run === runId && S.gang.group === gi ? null : { run: runId, group: gi };
    refresh();
  }

  function neverTable(run) {
    var r = run.report, sm = r.summary || {};
    var wrap = h("div", { "class": "ntable", id: "never-" + run.id });
    var rows, total;
    if (r.mode === "follow") {
      rows = run.view.pendingAtEnd.map(function (a) {
        var pod = run.pods[a[0]];
        return { pod: pod.key, podIdx: a[0], priority: pod.prio, cls: className(run, pod.cls), ns: pod.ns, waiting: run.view.duration - a[1], attempts: null, nominated: null, msg: "" };
      });
      total = rows.length;
    } else {
      rows = (sm.neverScheduled || []).map(function (n) {
        return { pod: n.pod, priority: n.priority, cls: n.priorityClassName || "(none)", ns: n.namespace, waiting: n.waitingSeconds,
                 attempts: n.attempts, nominated: n.nominatedNode, msg: n.lastMessage,
                 reasons: n.reasons, preFilterMessage: n.preFilterMessage };
      });
      total = sm.podsNeverScheduled || rows.length;
    }
    var shown = rows.filter(function (x) { return S.ns.has(x.ns) && S.cls.has(x.cls); });
    append(wrap, h("h3", { text: (r.mode === "follow" ? "Pods still pending at the end" : "Pods never scheduled") + " (" + total + ")" }));
    if (!total) { append(wrap, h("div", { "class": "more", text: "Every pod got a node by the end of the trace." })); return wrap; }
    var tb = h("tbody");
    shown.slice(0, MAX_TABLE_ROWS).forEach(function (x) {
      append(tb, h("tr", null, h("td", { "class": "pod", text: x.pod }), h("td", { text: x.priority + " (" + x.cls + ")" }),
        h("td", { "class": "num", text: duration(x.waiting) }), h("td", { "class": "num", text: x.attempts === null ? "-" : String(x.attempts) }),
        h("td", { "class": "pod", text: x.nominated || "-" }), h("td", { text: shortReason(x) || (x.attempts === null ? "" : "(not tried yet)") })));
    });
    append(wrap, h("table", null, h("thead", null, h("tr", null, h("th", { text: "Pod" }), h("th", { text: "Priority" }), h("th", { "class": "num", text: "Waiting" }),
      h("th", { "class": "num", text: "Attempts" }), h("th", { text: "Nominated" }), h("th", { text: "Last reason" }))), tb));
    var hidden = total - shown.length;
    if (hidden > 0) append(wrap, h("div", { "class": "more", text: hidden + " more " + (rows.length < total ? "(the report lists the first " + rows.length + "; others are filtered out)" : "filtered out") }));
    return wrap;
  }
  // why a pod did not fit, from the FitError's fields the report carries beside its message
  // (reasons: [{reason, nodes}], or the PreFilter's message); any other message in full
  function shortReason(x) {
    if (!x.reasons) return x.msg || "";
    if (x.preFilterMessage) return x.preFilterMessage;
    return x.reasons.map(function (r) { return r.nodes + " " + r.reason; }).join(", ");
  }

  // ---------------------------------------------------------------- the detail panel
  function select(runId, markIdx) {
    S.selected = { run: runId, mark: markIdx };
    refresh();
  }

  function renderDetail() {
    var d = document.getElementById("detail");
    clear(d);
    if (!S.selected) {
      append(d, h("div", { "class": "empty", text: "Click a preemption mark (▼) in a timeline, or a row of the preemption table, to see who was evicted for whom and why there." }));
      return;
    }
    var run = runs[S.selected.run], m = run.marks[S.selected.mark], p = m.p, why = p.why || {};
    d.setAttribute("data-mark", m.i);
    append(d, h("h3", { text: (run.label ? run.label + ": " : "") + "Preemption " + (m.i + 1) + " of " + run.marks.length }));
    if (isGroupMark(m)) append(d, h("div", null, h("b", { text: wall(run, m.t) }), " (" + duration(m.t) + " into the trace), workload-aware, on ",
      h("b", { id: "detail-node", text: markWhere(run, m) })));
    else append(d, h("div", null, h("b", { text: wall(run, m.t) }), " (" + duration(m.t) + " into the trace) on node ", h("b", { "class": "pod", id: "detail-node", text: p.node || "?" })));
    // beside kube-batch: which scheduler evicted, and which of its parts
    if (p.scheduler) append(d, h("div", { id: "detail-by" }, "by ", h("b", { text: p.scheduler + " " + (p.action || "") })));
    // the preemptor
    append(d, h("h4", { text: "Preemptor" }));
    var req = why.requests || {};
    append(d, h("div", { id: "detail-preemptor" }, preemptorRef(run, m, p.preemptor),
      " priority " + (p.priority === null || p.priority === undefined ? "?" : p.priority) + " (" + (p.priorityClassName || "(none)") + ")" + (p.preemptorInferred ? ", inferred" : "")));
    if (run.changes[p.preemptor]) append(d, h("div", null, h("b", { "class": "change", text: changeText(run.changes[p.preemptor]) })));
    var needs = [];
    if (req.milliCPU) needs.push("cpu " + cpu(req.milliCPU));
    if (req.memory) needs.push("memory " + bytes(req.memory));
    if (needs.length) append(d, h("div", { text: "requests " + needs.join(", ") }));
    if (p.attempt !== undefined) append(d, h("div", { text: "attempt " + p.attempt + (p.waitedSeconds !== undefined ? ", " + duration(p.waitedSeconds) + " after it was queued" : "") }));
    if (m.bound) append(d, h("div", { text: "bound to " + run.shortName[m.bound[1]] + " at " + wall(run, m.bound[0]) + " (" + duration(m.bound[0] - m.t) + " later)" }));
    else if (m.pod !== null) append(d, h("div", { text: "not bound by the end of the trace" }));
    if (m.group !== null) append(d, h("div", { text: groupFacts(run.podGroups[m.group]) }));
    if (m.membersBound) {
      // the group's members: one unit, placed together by one pod-group cycle
      var fitted = {};
      (why.members || []).forEach(function (x) { fitted[x.pod] = x; });
      append(d, h("div", { id: "detail-members" }, m.membersBound.map(function (mb) {
        var pod = run.pods[mb[0]], f = fitted[pod.key];
        var where = mb[1] ? "bound to " + run.shortName[mb[1][1]] + " at " + wall(run, mb[1][0]) : "not bound by the end of the trace";
        return h("div", { "class": "member", "data-pod": pod.key }, podRef(run, mb[0]), h("span", { "class": "muted", text: "  " + where +
          (f && !f.fitted && f.message ? "; in this cycle: " + f.message : "") }));
      })));
    }
    // victims
    var det = {};
    (p.victimDetails || []).forEach(function (v) { det[v.pod] = v; });
    append(d, h("h4", { text: "Victims (" + (p.victims || []).length + ")" + (m.units ? " in " + m.units.length + " unit" + (m.units.length === 1 ? "" : "s") : "") }));
    var list = h("div", { id: "detail-victims" });
    var scalarRes = ["cpu", "memory"].indexOf(run.view.resource.name) < 0 ? run.view.resource.name : "";
    var runOf = {};
    m.victims.forEach(function (ri) { runOf[run.pods[run.runs[ri].pod].key] = run.runs[ri]; });
    // a workload-aware preemption evicts units: a PodGroup whole, or one pod; its victims by unit
    var unitOf = {};
    (p.victimDetails || []).forEach(function (v) { if (v.unit) unitOf[v.pod] = v; });
    var lastUnit = null;
    (p.victims || []).forEach(function (key) {
      var v = det[key] || {}, r = runOf[key], pod = r ? run.pods[r.pod] : null;
      var u = unitOf[key];
      if (u && u.unitKind === "PodGroup" && u.unit !== lastUnit) {
        var n = (p.victimDetails || []).filter(function (x) { return x.unit === u.unit; }).length;
        var gi = -1;
        run.podGroups.forEach(function (g) { if (g.key === u.unit) gi = g.i; });
        append(list, h("div", { "class": "unit", "data-unit": u.unit }, "PodGroup ", gi >= 0 ? groupRef(run, gi) : h("span", { "class": "pod", text: u.unit }),
          h("span", { "class": "muted", text: " evicted whole: " + n + " pod" + (n === 1 ? "" : "s") })));
      }
      lastUnit = u ? u.unit : null;
      var notes = [];
      if (v.pdbViolation) notes.push(h("b", { text: "violates its PodDisruptionBudget" }));
      if (v.alreadyTerminating) notes.push("already terminating (no delete call)");
      if (v.alreadyEvicting) notes.push("already being evicted by an earlier decision");
      if (r && r.end !== null) notes.push("gone at " + wall(run, r.end) + (v.gracePeriodSeconds !== undefined ? " after its " + duration(v.gracePeriodSeconds) + " grace period" : ""));
      else if (r) notes.push("still terminating at the end");
      if (run.changes[key]) notes.push(h("b", { "class": "change", text: changeText(run.changes[key]) }));
      if (pod) pod.preempted.forEach(function (mi) { if (mi !== m.i && run.marks[mi].t < m.t) notes.push(jump(run, mi, "it had itself preempted at " + wall(run, run.marks[mi].t))); });
      if (pod) pod.evicted.forEach(function (mi) { if (mi !== m.i) notes.push(jump(run, mi, "also chosen as a victim at " + wall(run, run.marks[mi].t))); });
      var prio = v.priority !== undefined ? v.priority : pod ? pod.prio : "?";
      var cls = v.priorityClassName !== undefined ? (v.priorityClassName || "(none)") : pod ? className(run, pod.cls) : "";
      append(list, h("div", { "class": "victim" + (u && u.unitKind === "PodGroup" ? " in-unit" : ""), "data-pod": key },
        h("div", null, pod ? podRef(run, pod.i, key) : h("span", { "class": "pod", text: key })),
        h("div", { "class": "facts", text: "priority " + prio + " (" + cls + ")" + (pod ? " · frees cpu " + cpu(pod.cpu) + ", memory " + bytes(pod.mem) + (scalarRes ? ", " + scalarRes + " " + pod.req : "") : "") }),
        notes.length ? h("div", { "class": "facts" }, notes.map(function (n, i) { return [i ? "; " : "", n]; })) : null));
    });
    append(d, list);
    if (why.freedMilliCPU !== undefined || why.freedMemory !== undefined)
      append(d, h("div", { text: "frees cpu " + cpu(why.freedMilliCPU || 0) + ", memory " + bytes(why.freedMemory || 0) + (why.pdbViolations ? "; " + why.pdbViolations + " PDB violation(s)" : "; no PDB violated") }));
    // why there
    append(d, h("h4", { text: isGroupMark(m) ? "Why these victims" : "Why " + (m.node !== null && m.node !== undefined ? run.shortName[m.node] : p.node || "this node") }));
    var chain = [];
    if (isGroupMark(m)) {
      // podgrouppreemption.go: the whole group is placed at once, victims taken by unit across the cluster
      chain.push("The pod group needs every member placed in one cycle: its preemption looks at the whole cluster, not one node.");
      if (why.potentialVictims !== undefined) chain.push(why.potentialVictims + " lower-priority unit(s) could go; all were removed at once, then put back one at a time, most important first (PDB-violating ones first), each kept where the group still fit" +
        ((why.reprieved || []).length ? " (kept: " + why.reprieved.join(", ") + ")" : "") + ".");
    }
    var tied = why.tiedNodes || [];
    if (why.candidates === 1) chain.push("The only node where removing lower-priority pods makes room.");
    else if (why.candidates) {
      if (tied.length > 1) chain.push(why.candidates + " candidate nodes; " + tied.length + " tied after the whole choice chain (" + tied.join(", ") + "): the scheduler takes one of them.");
      else chain.push(why.candidates + " candidate nodes; " + p.node + " won on " + (why.decidedBy || "?") + (why.runnerUp ? " over " + why.runnerUp : "") + ".");
    }
    if (why.pdbViolations) chain.push("Evicting these victims violates " + why.pdbViolations + " PodDisruptionBudget(s): no candidate did better.");
    if (why.eligibleBy) {
      // kube-batch: decided per queue and per job, not by kube-scheduler's choice chain
      if (why.action === "reclaim") chain.push("Queue " + (why.reclaimingQueue || "?") + " is under its deserved share: it reclaims for job " + (why.preemptorJob || "?") + " from running tasks of other queues.");
      else chain.push("Job " + (why.preemptorJob || "?") + " preempts lower-priority jobs of its own queue.");
      chain.push("Eligible by " + why.eligibleBy.join(", ") + " (the plugins of the first tier that decided).");
    }
    if ((why.clearedNominations || []).length) chain.push("Clears the nomination of " + why.clearedNominations.join(", ") + " on this node.");
    chain.forEach(function (c) { append(d, h("div", { text: c })); });
    if (why.message) {
      append(d, h("div", { "class": "chart-title", text: "Why no node fit without preemption (the scheduler's message):" }));
      append(d, h("div", { "class": "msg", text: why.message }));
    }
    if (run.report.mode === "follow") {
      append(d, h("h4", { text: "Verdict" }));
      var ok = p.agrees;
      var says = p.verdict === "tied" ? "The cluster's choice is one the offline scheduler finds equally possible." :
        p.verdict === "undecidable" ? "The trace cannot decide:" : ok === true ? "The offline scheduler agrees with the cluster." :
        ok === false ? "The offline scheduler differs:" : "Not explained:";
      append(d, h("div", { "class": "verdict " + (ok ? "ok" : "bad"), text: says }));
      (p.differences || []).forEach(function (x) { append(d, h("div", { text: "• " + x })); });
    }
    // cascade
    var later = m.pod !== null ? run.pods[m.pod].evicted.filter(function (mi) { return run.marks[mi].t >= m.t && mi !== m.i; }) : [];
    var before = m.pod !== null ? run.pods[m.pod].preempted.filter(function (mi) { return mi !== m.i; }) : [];
    if (later.length || before.length) {
      append(d, h("h4", { text: "Cascade" }));
      later.forEach(function (mi) { append(d, h("div", null, "The preemptor was itself evicted: ", jump(run, mi, wall(run, run.marks[mi].t) + " by " + (run.marks[mi].p.preemptor || "?")))); });
      before.forEach(function (mi) { append(d, h("div", null, "The preemptor also preempted: ", jump(run, mi, wall(run, run.marks[mi].t) + " on " + (run.marks[mi].p.node || "?")))); });
    }
    if (m.missing.length) append(d, h("div", { "class": "chart-title", text: "Not found on the node in the trace: " + m.missing.join(", ") }));
  }
  var CHANGE_WORDS = { newlyPreempted: "newly preempted", noLongerPreempted: "no longer preempted", newlyUnschedulable: "newly unschedulable",
                       newlyScheduled: "newly scheduled", differentPreemptor: "preempted by another pod", differentNode: "on another node",
                       newlyPreempting: "newly preempts others", noLongerPreempting: "no longer preempts others",
                       differentPreemptions: "preempts on other nodes" };
  function changeText(c) {
    return "with the proposed classes: " + (c.changes || []).map(function (x) { return CHANGE_WORDS[x] || x; }).join(", ");
  }
  function jump(run, mi, text) {
    return h("a", { "class": "jump", text: text, onclick: function () { select(run.id, mi); } });
  }

  // ---------------------------------------------------------------- everything
  function refresh() {
    var scroll = window.scrollY;
    renderFilters();
    var main = document.getElementById("runs");
    clear(main);
    hideTip();
    runs.forEach(function (run) { renderRun(run, main); });
    renderDetail();
    window.scrollTo(0, scroll);
    document.body.setAttribute("data-ready", "1");
  }

  window.addEventListener("error", function (ev) {
    var b = document.getElementById("banners");
    if (b) b.appendChild(h("div", { "class": "banner error", text: "This report hit an error: " + (ev.message || ev) }));
    document.body.setAttribute("data-error", String(ev.message || ev));
  });
  var resizeTimer = null;
  window.addEventListener("resize", function () { clearTimeout(resizeTimer); resizeTimer = setTimeout(refresh, 120); });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape") { S.selected = null; refresh(); }
  });

  renderHeader();
  refresh();
  // test and automation hooks: the state, and a way to select a preemption
  window.kubectlPreempt = { runs: runs, state: S, select: select, setRange: setRange, refresh: refresh };
})();

// Opening a link to a step of a paired view unfolds that step's inputs
// and results on both sides.
(function () {
  "use strict";
  function unfold() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (el && el.tagName === "TR") {
      Array.prototype.forEach.call(el.querySelectorAll("details"), function (d) { d.open = true; });
    }
  }
  window.addEventListener("hashchange", unfold);
  unfold();
})();

// Sorting, filtering and paging of every table that has a filter bar
// (<div class="filters" data-table="ID">) or sortable headers. Every value
// comes from data-* attributes of the rows; nothing is ever inserted as
// HTML. A control of the bar names the row attribute it filters in
// data-key, and how in data-match: "eq" (the default), "list" (one of the
// newline-separated values), "contains" (case-insensitive), "min" (a
// number at least the control's).
(function () {
  "use strict";
  function setup(table) {
    var body = table.tBodies[0];
    if (!body) { return; }
    var rows = Array.prototype.slice.call(body.rows);
    var bar = document.querySelector('.filters[data-table="' + table.id + '"]');
    var controls = bar ? Array.prototype.slice.call(bar.querySelectorAll("[data-key]")) : [];
    var shown = bar && bar.querySelector(".shown");
    var more = bar && bar.querySelector(".show-all");
    var noun = (bar && bar.dataset.noun) || "rows";
    // Only the first rows that match are laid out, so that a suite of
    // thousands of cases opens quickly; "show all" lifts the limit.
    var limit = parseInt(table.dataset.limit, 10) || Infinity;
    function matches(r, c) {
      var want = c.value;
      if (!want) { return true; }
      var have = r.dataset[c.dataset.key] || "";
      switch (c.dataset.match) {
        case "list": return have.split("\n").indexOf(want) >= 0;
        case "contains": return have.toLowerCase().indexOf(want.toLowerCase()) >= 0;
        case "min": return parseFloat(have) >= parseFloat(want);
      }
      return have === want;
    }
    function filter() {
      var n = 0, visible = 0;
      rows.forEach(function (r) {
        var ok = controls.every(function (c) { return matches(r, c); });
        if (ok) { n++; }
        var show = ok && n <= limit;
        if (r.hidden === show) { r.hidden = !show; }
        if (show) { visible++; }
      });
      if (shown) {
        shown.textContent = visible < n ?
          "the first " + visible + " of " + n + " matching " + noun + " shown (of " + rows.length + ")" :
          n + " of " + rows.length + " " + noun + " shown";
      }
      if (more) { more.hidden = visible >= n; }
    }
    if (more) { more.addEventListener("click", function () { limit = Infinity; filter(); }); }
    // The controls' values outlive a reload (the live view reloads).
    var store = "lux-filters " + location.pathname + location.search + " " + table.id;
    try {
      var saved = JSON.parse(sessionStorage.getItem(store) || "{}");
      controls.forEach(function (c, i) { if (saved[i]) { c.value = saved[i]; } });
    } catch (e) { /* no storage: start unfiltered */ }
    function save() {
      try { sessionStorage.setItem(store, JSON.stringify(controls.map(function (c) { return c.value; }))); } catch (e) { /* ignore */ }
    }
    controls.forEach(function (el) {
      el.addEventListener("input", function () { filter(); save(); });
      el.addEventListener("change", function () { filter(); save(); });
    });
    Array.prototype.forEach.call(table.tHead ? table.tHead.querySelectorAll("th[data-sort]") : [], function (th) {
      th.tabIndex = 0;
      function sort() {
        var key = th.dataset.sort, numeric = th.dataset.type === "number";
        var asc = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(table.tHead.querySelectorAll("th"), function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        rows.sort(function (a, b) {
          var x = a.dataset[key] || "", y = b.dataset[key] || "";
          var c = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
          return asc ? c : -c;
        });
        var frag = document.createDocumentFragment();
        rows.forEach(function (r) { frag.appendChild(r); });
        body.appendChild(frag);
        filter();
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
    filter();
  }
  Array.prototype.forEach.call(document.querySelectorAll("table[id]"), function (t) {
    if (t.querySelector("th[data-sort]") || document.querySelector('.filters[data-table="' + t.id + '"]')) { setup(t); }
  });
})();

// The live view of a served suite or experiment still running: ask the
// server whether the record changed (it answers when it did, or after a
// while that it did not) and reload only then.
(function () {
  "use strict";
  var el = document.getElementById("live");
  if (!el || !window.fetch) { return; }
  var state = document.getElementById("live-state");
  function poll() {
    fetch(el.dataset.changes, { cache: "no-store" }).then(function (r) {
      if (!r.ok) { throw new Error("HTTP " + r.status); }
      return r.json();
    }).then(function (j) {
      if (j.changed) { location.reload(); } else { poll(); }
    }).catch(function (e) {
      if (state) { state.textContent = "Lost the server (" + e.message + "); trying again in 5 s."; }
      setTimeout(poll, 5000);
    });
  }
  poll();
})();

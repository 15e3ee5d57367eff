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
// Sorting and filtering of the case table. Every value comes from data-*
// attributes of the rows; nothing is ever inserted as HTML.
(function () {
  "use strict";
  var table = document.getElementById("cases");
  if (!table) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var shown = document.getElementById("shown");
  var more = document.getElementById("show-all");
  // Only the first rows that match are laid out, so that a suite of
  // thousands of cases opens quickly; "show all" lifts the limit.
  var limit = parseInt(table.dataset.limit, 10) || Infinity;
  function value(id) { var el = document.getElementById(id); return el ? el.value : ""; }
  function filter() {
    var tag = value("f-tag"), cluster = value("f-cluster"), verdict = value("f-verdict");
    var text = value("f-text").toLowerCase();
    var n = 0, visible = 0;
    rows.forEach(function (r) {
      var ok = (!tag || r.dataset.tags.split("\n").indexOf(tag) >= 0) &&
        (!cluster || r.dataset.cluster === cluster) &&
        (!verdict || r.dataset.verdict === verdict) &&
        (!text || r.dataset.id.toLowerCase().indexOf(text) >= 0);
      if (ok) { n++; }
      var show = ok && n <= limit;
      if (r.hidden === show) { r.hidden = !show; }
      if (show) { visible++; }
    });
    if (shown) {
      shown.textContent = visible < n ?
        "the first " + visible + " of " + n + " matching cases shown (of " + rows.length + ")" :
        n + " of " + rows.length + " cases shown";
    }
    if (more) { more.hidden = visible >= n; }
  }
  if (more) { more.addEventListener("click", function () { limit = Infinity; filter(); }); }
  ["f-tag", "f-cluster", "f-verdict", "f-text"].forEach(function (id) {
    var el = document.getElementById(id);
    if (el) { el.addEventListener("input", filter); el.addEventListener("change", filter); }
  });
  Array.prototype.forEach.call(table.tHead.querySelectorAll("th[data-sort]"), function (th) {
    th.addEventListener("click", function () {
      var key = th.dataset.sort, numeric = th.dataset.type === "number";
      var asc = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(table.tHead.querySelectorAll("th"), function (o) { o.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      rows.sort(function (a, b) {
        var x = a.dataset[key], y = b.dataset[key];
        var c = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
        return asc ? c : -c;
      });
      var frag = document.createDocumentFragment();
      rows.forEach(function (r) { frag.appendChild(r); });
      body.appendChild(frag);
      filter();
    });
  });
  filter();
})();

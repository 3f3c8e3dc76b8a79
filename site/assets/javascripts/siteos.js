/* siteos-bench results: sortable tables and nothing fetched from the network.
 *
 * A header's button sorts its column. The first click puts the best first (the header's
 * data-first: "desc" for points, "asc" for cost and time), the next click reverses it. Empty
 * cells always sort last; equal values keep the page's order (data-order, the documented tie
 * rule), so the sort is stable in both directions. */
(function () {
  function value(row, index) {
    var cell = row.cells[index];
    if (!cell) return null;
    var raw = cell.getAttribute("data-sort");
    if (raw === null) raw = cell.textContent.trim();
    if (raw === "") return null;
    var number = Number(raw);
    return isNaN(number) ? raw.toLowerCase() : number;
  }

  function sortBy(table, th) {
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var current = th.getAttribute("aria-sort");
    var first = th.getAttribute("data-first") || "asc";
    var dir = current === null || current === "none" ? first : current === "ascending" ? "desc" : "asc";
    table.querySelectorAll("thead th[aria-sort]").forEach(function (other) {
      other.setAttribute("aria-sort", "none");
    });
    th.setAttribute("aria-sort", dir === "asc" ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a, index), y = value(b, index);
      var tie = Number(a.getAttribute("data-order")) - Number(b.getAttribute("data-order"));
      if (x === null && y === null) return tie;
      if (x === null) return 1;
      if (y === null) return -1;
      if (x === y) return tie;
      var order = x < y ? -1 : 1;
      return dir === "asc" ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    table.classList.toggle("sb-resorted", th.getAttribute("data-sb-key") !== "rank" || dir !== "asc");
  }

  /* Material wraps plain tables in a scrolling box: make each reachable by keyboard. */
  function focusableScrollers() {
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (box) {
      if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
    });
  }

  function setup() {
    focusableScrollers();
    setTimeout(focusableScrollers, 0);
    document.querySelectorAll("table.sb-sortable").forEach(function (table) {
      if (table.dataset.sbReady) return;
      table.dataset.sbReady = "1";
      Array.prototype.forEach.call(table.tBodies[0] ? table.tBodies[0].rows : [], function (row, i) {
        if (!row.hasAttribute("data-order")) row.setAttribute("data-order", String(i));
      });
      table.querySelectorAll("thead th[aria-sort]").forEach(function (th) {
        var button = th.querySelector("button.sb-sort");
        if (button) button.addEventListener("click", function () { sortBy(table, th); });
      });
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(setup);
  } else {
    document.addEventListener("DOMContentLoaded", setup);
  }
})();

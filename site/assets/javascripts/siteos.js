/* siteos-bench results: sortable tables (vendored tablesort), nothing fetched from the network. */
(function () {
  function setup() {
    document.querySelectorAll("table.sb-sortable").forEach(function (table) {
      if (table.dataset.sbReady) return;
      table.dataset.sbReady = "1";
      new Tablesort(table);
      table.addEventListener("afterSort", function () {
        var byRank = table.querySelector('th[data-sb-key="rank"][aria-sort="ascending"]');
        table.classList.toggle("sb-resorted", !byRank);
      });
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(setup);
  } else {
    document.addEventListener("DOMContentLoaded", setup);
  }
})();

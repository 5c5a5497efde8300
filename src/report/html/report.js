// The report's filters and search. The page reads whole without this script: it only
// hides what a reader filtered out, and shows the bar that does it.
(function () {
  "use strict";
  var bar = document.getElementById("bar");
  var shown = document.getElementById("shown");
  var none = document.getElementById("none");
  var search = document.getElementById("search");
  var journeys = Array.prototype.slice.call(document.querySelectorAll("details.journey"));
  var filters = Array.prototype.slice.call(document.querySelectorAll("button[data-filter]"));
  var status = "all";
  var query = "";
  function apply() {
    var n = 0;
    journeys.forEach(function (j) {
      var fits = (status === "all" || j.dataset.status === status) &&
        (query === "" || j.dataset.search.indexOf(query) !== -1);
      j.hidden = !fits;
      if (fits) n += 1;
    });
    shown.textContent = n + " of " + journeys.length + " journeys shown";
    none.hidden = n > 0;
  }
  filters.forEach(function (b) {
    b.addEventListener("click", function () {
      status = b.dataset.filter;
      filters.forEach(function (x) { x.setAttribute("aria-pressed", String(x === b)); });
      apply();
    });
  });
  search.addEventListener("input", function () {
    query = search.value.trim().toLowerCase();
    apply();
  });
  document.getElementById("expand").addEventListener("click", function () {
    journeys.forEach(function (j) { if (!j.hidden) j.open = true; });
  });
  document.getElementById("collapse").addEventListener("click", function () {
    journeys.forEach(function (j) { j.open = false; });
  });
  bar.hidden = false;
  apply();
})();

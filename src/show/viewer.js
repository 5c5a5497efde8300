// One step shown at a time, chosen from the list or with the keyboard (↑ ↓, j k, Home,
// End). Without this script every step's detail is in the page, one after another.
(function () {
  "use strict";
  var items = Array.prototype.slice.call(document.querySelectorAll("a.step"));
  var details = Array.prototype.slice.call(document.querySelectorAll("section.detail"));
  if (items.length === 0) return;
  var current = 0;
  function show(i, focus) {
    current = Math.max(0, Math.min(items.length - 1, i));
    items.forEach(function (a, k) {
      if (k === current) a.setAttribute("aria-current", "step");
      else a.removeAttribute("aria-current");
    });
    details.forEach(function (d, k) { d.hidden = k !== current; });
    var item = items[current];
    // Only a person's choice moves the page and the address: the fragment set while the
    // page loads would scroll the page to that step's detail when it has loaded.
    if (focus) {
      item.focus();
      item.scrollIntoView({ block: "nearest" });
      history.replaceState(null, "", "#step-" + item.dataset.step);
    }
  }
  items.forEach(function (a, k) {
    a.addEventListener("click", function (e) {
      e.preventDefault();
      show(k, true);
    });
  });
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var to = { ArrowDown: current + 1, j: current + 1, ArrowUp: current - 1, k: current - 1,
      Home: 0, End: items.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(to, true);
  });
  var asked = /^#step-(\d+)$/.exec(location.hash);
  var start = asked ? items.findIndex(function (a) { return a.dataset.step === asked[1]; }) : -1;
  if (start < 0) {
    // A failed trace opens on its first failed step.
    start = items.findIndex(function (a) { return a.classList.contains("bad"); });
  }
  show(start < 0 ? 0 : start, false);
})();

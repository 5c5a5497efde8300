// The elements a read named, for the perception audit.

  // The elements a read named by `ids`, in order; null for one the page no longer has. The
  // last full read keeps its elements by id; any other (a region read, a cut one) is found
  // among the anchored elements of every root the collector watches.
  function elementsOf(ids) {
    var known = W.cache ? W.cache.elOf : [], found = null;
    return ids.map(function (id) {
      if (known[id]) return known[id];
      if (!found) {
        found = new Map();
        (W.roots || []).forEach(function (r) {
          var els = r.root.querySelectorAll(scanned());
          for (var i = 0; i < els.length; i++) {
            var n = idIn(els[i]);
            if (n) found.set(n, els[i]);
          }
        });
      }
      return found.get(id) || null;
    });
  }

// A control's region, and the read of one region.

  var LANDMARKS = 'main,nav,header,footer,aside,form[aria-label],form[aria-labelledby],section[aria-label],[role=region],[role=navigation],[role=main],[role=dialog]';

  function regionOf(el, inherited) {
    var r = el.closest('[data-anchor-region]');
    if (r) return r.getAttribute('data-anchor-region');
    return outerRegion(el, inherited);
  }

  // The region of an element in no `data-anchor-region` of its own tree: the one its tree
  // inherits (unless that is only `page`), else its landmark's name, else `page`. A web
  // component's landmarks (its header, main, footer) are in its shadow tree.
  function outerRegion(el, inherited) {
    if (inherited && inherited !== 'page') return inherited;
    var lm = el.closest(LANDMARKS);
    if (lm) return norm(lm.getAttribute('aria-label')) || lm.getAttribute('role') || lm.tagName.toLowerCase();
    return 'page';
  }

  // One region's controls, whole (up to `max`): a full read that leaves the page's cache
  // and dirty marks as they were, so the caller's held read stays the base of the next
  // delta. Its token is empty: nothing may be sent against it. When the region has no
  // control, the regions the screen does have come back, counted.
  function readRegion(max, wanted, caps) {
    var roots = collectRoots();
    matched();
    W.generated = ruleStops(roots, 'generated', generates);
    var scans = roots.map(function (r) { return scan(r.root); });
    var labels = labelsOf(scans.map(function (sc) { return sc.labels; }));
    clipping(roots, scans);
    var ids = [], parts = [], total = 0, counts = {}, droppedByRegion = {}, droppedByRole = {};
    roots.forEach(function (r, k) {
      var sc = scans[k], els = sc.anchored, origin = originOf(r);
      for (var i = 0; i < els.length; i++) {
        var el = els[i];
        var region = sc.regions[i] !== null ? sc.regions[i] : outerRegion(el, r.region);
        bump(counts, region);
        if (region !== wanted) continue;
        total++;
        var tag = sc.tags[i], type = tag === 'INPUT' ? el.type : undefined;
        var role = shownRole(el, roleOf(el, tag, type, sc.roles[i]));
        if (ids.length >= max) {
          bump(droppedByRegion, region);
          bump(droppedByRole, role);
          continue;
        }
        ids.push(idOf(el));
        pack(record(el, tag, type, role, region, labels, origin, null, sc.anchors[i]), parts);
      }
    });
    clipCtx = null;
    var dialog = modalOf(scans.map(function (sc) { return sc.dialogs; }));
    var head = headOf('', total, droppedByRegion, droppedByRole, dialog);
    if (caps) head.evidence = gatherEvidence(roots, caps);
    if (total === 0) head.regions = counts;
    head.kind = 'full';
    head.ids = runs(ids);
    head.strings_from = 0;
    head.strings = W.strs;
    head.collector_ms = performance.now() - t0;
    return withRecords(JSON.stringify(head), parts);
  }

// The roots controls live in, and the scan of each.

  // Every place controls can live: the document, open shadow roots and same-origin
  // iframes, each with the origin of its viewport in top-document coordinates (`null` for
  // the top document, whose origin is its scroll offset) and the region its host sits in.
  // Found in one pass per root, and kept while the mutations since leave them standing
  // (see rootsHold).
  function collectRoots() {
    // The mutations logged since the roots were last looked at decide (with no log, they
    // are found again).
    if (W.roots && !W.rootsUnknown && W.log && rootsHold(W.log, W.rootsAt)) {
      W.rootsAt = W.log.length;
      return W.roots;
    }
    W.rootsUnknown = false;
    W.rootsAt = W.log ? W.log.length : 0;
    var roots = [], far = [];
    function visit(root, origin, region) {
      roots.push({ root: root, origin: origin, region: region });
      watch(root);
      // A tree walker: two DOM calls per element, where indexing a querySelectorAll('*')
      // list cost a 10,000-control page twice the time. Only frames have a
      // `contentDocument`, and testing for it makes no DOM call on other elements; but it
      // looks the name up through each element's prototypes (0.4 ms of that page's walk of
      // 4.7, timed alone): a document that holds no iframe (its list of them the browser
      // keeps) skips the test. A shadow root, which has no such list, tests each element.
      var frames = root.getElementsByTagName ? root.getElementsByTagName('iframe').length > 0 : true;
      var walker = (root.nodeType === 9 ? root : root.ownerDocument).createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
      for (var el = walker.nextNode(); el; el = walker.nextNode()) {
        if (el.shadowRoot) visit(el.shadowRoot, origin, regionOf(el, region));
        if (frames && el.contentDocument !== undefined && el.tagName === 'IFRAME') {
          var doc = null;
          try { doc = el.contentDocument; } catch (e) { doc = null; }
          if (doc && doc.documentElement) {
            var base = origin || [0, 0], o = contentOrigin(el);
            visit(doc, [
              base[0] + o[0] + (origin ? 0 : scrollX),
              base[1] + o[1] + (origin ? 0 : scrollY)
            ], frameRegion(el, region));
          } else if (!doc) {
            // A frame of another origin (out of process under site isolation): read by
            // the runner in its own process, placed where this element sits (see farFrames).
            far.push({ el: el, origin: origin, region: region });
          }
        }
      }
    }
    // A frame read by the runner names its document's region after its iframe (`inherit`).
    visit(document, null, W.inherit || null);
    W.roots = roots;
    W.far = far;
    return roots;
  }

  // The region a frame's controls are placed in: the iframe's own data-anchor-region, else
  // its title, else its name, else the region around it.
  function frameRegion(el, region) {
    return el.getAttribute('data-anchor-region') || norm(el.getAttribute('title') || '') ||
      norm(el.getAttribute('name') || '') || regionOf(el, region);
  }

  // The frames of another origin the roots hold, for the runner to read in their own
  // process: each with the id the runner tagged its element with (null before it did),
  // where its content box sits in box coordinates and its size, its region, what names it
  // (title, name, src) and the anchors its element carries (for a matcher's `within:`).
  function farFrames(roots) {
    var out = [];
    (W.far || []).forEach(function (f) {
      var el = f.el;
      if (!el.isConnected) return;
      var o = contentOrigin(el), base = f.origin;
      var of = W.matchOf ? W.matchOf.of.get(el) : null;
      var anchor = el.getAttribute('data-anchor') || (of ? of.a : null);
      out.push({
        frame: el.__waymarkFrame || null,
        origin: [Math.round(o[0] + (base ? base[0] : scrollX)), Math.round(o[1] + (base ? base[1] : scrollY))],
        size: [el.clientWidth, el.clientHeight],
        region: frameRegion(el, f.region),
        title: el.getAttribute('title'),
        name: el.getAttribute('name'),
        src: el.src || el.getAttribute('src') || '',
        anchors: anchor === null ? [] : [anchor]
      });
    });
    return out;
  }

  // Where a root's viewport sits in box coordinates: a frame's origin, or the top
  // document's scroll offset. Read once per root: `scrollX` per control cost as much as
  // its box (2-3 µs; a quarter of a 10,000-control read).
  function originOf(r) {
    return r.origin || [scrollX, scrollY];
  }

  function labelMap(roots) {
    return labelsOf(roots.map(function (r) { return tagged(r.root, 'label'); }));
  }

  // A root's elements of one tag, in document order: a document's by getElementsByTagName,
  // a shadow root's (which has no such method) by querySelectorAll. On a 10,000-control
  // page of 3,100 labels, querySelectorAll('label') took 1.75 ms and getElementsByTagName
  // 0.5, and the labels' pass of a whole read was 2.5 ms less (`bench/compare/ab.mjs --runs
  // 100`: 74.4 ms in the page against 77.5). The document's list is live: it is read within
  // the operation that asked for it, before anything can change the page.
  function tagged(root, tag) {
    return root.getElementsByTagName ? root.getElementsByTagName(tag) : root.querySelectorAll(tag);
  }

  // Each labelled control's labels, from each root's list of labels.
  function labelsOf(lists) {
    var map = new Map();
    lists.forEach(function (labs) {
      for (var i = 0; i < labs.length; i++) {
        var c = labs[i].control;
        if (!c) continue;
        var list = map.get(c);
        if (list) list.push(labs[i]); else map.set(c, [labs[i]]);
      }
    });
    return map;
  }

  // What a whole read looks for in a root: the anchored elements with their tag, anchor
  // and role attribute (read here once, for the record), the labels and the dialogs, each
  // in document order. The anchored elements, the dialogs and the regions come from one
  // selector scan (a scan each cost a 10,000-control page twice as much); the labels from
  // a list of their own (see tagged), whose elements need nothing of the loop below (in
  // the one scan they cost that page 3-4 ms of tag and attribute reads).
  // The scan also finds the elements that can hide one with a box, besides a style rule
  // (see trustBoxes): a style attribute naming visibility, a closed details element and
  // hidden=until-found (their content has content-visibility: hidden), SVG's visibility
  // attribute; finds the elements marked aria-disabled (see disabledUnder), in place of
  // a `closest` per control; and those whose style attribute makes them clip their
  // overflow (see viewOf). All are TESTED, asked for in the same selector scan, and each
  // element found that may be one (see mayBeTested) is tested (testOne). (TESTED had a
  // selector scan of its own, a second pass over every element: 3-4 ms of that read's
  // 80-95 in the page, `bench/compare/ab.mjs --base 480d06b`.) Anchored elements past the
  // first `budget` (past the read's cut) are not tested: what they hide is their own
  // content, past the cut as well, and what a shadow tree slots into them (see
  // trustBoxes).
  // The scan also finds each anchored element's region (the nearest `data-anchor-region`
  // at or around it, null for none in its tree), from the regions it meets on the way, in
  // place of a `closest` per control (a sixth of a 10,000-control read, and of a 50,000-
  // control one cut at 5,000, whose dropped controls are counted by region); a region's
  // name is read only of the regions (a set of them, from a scan of its own), not of every
  // element found.
  var HIDERS = '[style*="visibility" i],details:not([open]),[hidden="until-found" i],[visibility]';
  var HIDER_ATTRS = { style: 1, open: 1, hidden: 1, visibility: 1 };
  var MARKED = '[aria-disabled="true" i]';
  // What its style attribute makes clip its overflow (see viewOf): an overflow, or a
  // containment (of paint; clipRect tells).
  var CLIPPERS = '[style*="overflow" i],[style*="contain" i]';
  var CLIPPER_ATTRS = { style: 1 };
  // The scan asks for any style attribute, and testOne for what it says: one attribute
  // looked for on every element, where asking for visibility and for overflow in it was
  // two (each 1-3 ms of a 10,000-control page's scan; few elements have one).
  // (mayBeTested says what may match it without asking the selector.)
  var TESTED = '[style],details:not([open]),[hidden="until-found" i],[visibility],' + MARKED;
  var REGIONS = '[data-anchor-region]';
  // (`[role$=dialog]`: both dialog roles in one selector, which costs a dense page's scan
  // as much as each of the two did; what else it finds is told apart below.)
  var MAIN = '[data-anchor],dialog[open],[role$=dialog],' + REGIONS;
  // What the main scan asks for.
  var FOUND = MAIN + ',' + TESTED;
  // Everything a scan finds, in all its selector scans: what a mutation must add, remove or
  // rename for a scan to be taken again (see scanHolds).
  var SCANNED = MAIN + ',label,' + HIDERS + ',' + MARKED + ',' + CLIPPERS;
  // What a scan looks for (SCANNED, or its main scan's part, FOUND), and every element a
  // registry matcher can anchor (none when the last matcher pass anchored nothing: a pass
  // that anchors something after it says so, see matchMoved, and the scan is taken again).
  function scanned(main) {
    var sel = main ? FOUND : SCANNED;
    return W.M && !(W.matchOf && !W.matchOf.of.size) ? sel + ',' + W.M.sel : sel;
  }
  function scan(root, budget) {
    var found = root.querySelectorAll(scanned(true));
    var of = W.matchOf ? W.matchOf.of : null;
    var s = { anchored: [], tags: [], anchors: [], roles: [], regions: [], labels: tagged(root, 'label'),
      dialogs: [], marks: [], hiders: [], clippers: [], untested: false };
    if (budget === undefined) budget = Infinity;
    var regionEls = root.querySelectorAll(REGIONS);
    var isRegion = regionEls.length ? new Set(regionEls) : null;
    // The regions around the element at hand, innermost last, and their names.
    var around = [], names = [];
    for (var i = 0; i < found.length; i++) {
      var el = found[i], tag = el.tagName, role = el.getAttribute('role');
      var anchor = el.getAttribute('data-anchor');
      var region = isRegion && isRegion.has(el) ? el.getAttribute('data-anchor-region') : null;
      if (anchor === null && of) {
        var m = of.get(el);
        if (m) anchor = m.a;
      }
      if (anchor !== null && s.anchored.length >= budget) s.untested = true;
      else if (mayBeTested(el, tag)) testOne(s, el);
      if (anchor !== null || region !== null) {
        while (around.length && !around[around.length - 1].contains(el)) {
          around.pop();
          names.pop();
        }
        if (region !== null) {
          around.push(el);
          names.push(region);
        }
      }
      if (anchor !== null) {
        s.anchored.push(el);
        s.tags.push(tag);
        s.anchors.push(anchor);
        s.roles.push(role);
        s.regions.push(names.length ? names[names.length - 1] : null);
      }
      if (tag === 'DIALOG' ? el.hasAttribute('open') : role === 'dialog' || role === 'alertdialog') s.dialogs.push(el);
    }
    return s;
  }

  // Whether an element the main scan found may be one of the TESTED, which testOne then
  // tells: it holds an attribute TESTED asks for, or is a details element. The scan finds
  // it for TESTED, or for its anchor, its region, its dialog role or a matcher's selector;
  // most it finds are anchored controls with none of these, which this spares a `matches`
  // each (8 ms of a 10,000-control read).
  function mayBeTested(el, tag) {
    return tag === 'DETAILS' || el.hasAttribute('style') || el.hasAttribute('aria-disabled')
      || el.hasAttribute('hidden') || el.hasAttribute('visibility');
  }

  // One of the TESTED elements, kept as a hider, as marked aria-disabled, or as clipping.
  function testOne(s, el) {
    if (el.matches(HIDERS)) s.hiders.push(el);
    var off = el.getAttribute('aria-disabled');
    if (off !== null && off.toLowerCase() === 'true') s.marks.push(el);
    if (el.matches(CLIPPERS)) s.clippers.push(el);
  }

  function deepActive() {
    var a = document.activeElement;
    for (;;) {
      if (a && a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
      if (a && a.tagName === 'IFRAME') {
        var d = null;
        try { d = a.contentDocument; } catch (e) { d = null; }
        if (d && d.activeElement && d.activeElement !== d.body) { a = d.activeElement; continue; }
      }
      return a;
    }
  }

  var NO_LABELS = new Map();

  // The name of the first shown modal dialog among each root's dialogs, or null.
  function modalOf(lists) {
    for (var i = 0; i < lists.length; i++) {
      var ds = lists[i];
      for (var j = 0; j < ds.length; j++) {
        var d = ds[j];
        var modal = d.tagName === 'DIALOG' ? d.matches(':modal') : d.getAttribute('aria-modal') === 'true' || d.getAttribute('role') === 'alertdialog';
        if (!modal) continue;
        var box = d.getBoundingClientRect();
        if (!visibleOf(d, box.width, box.height, true)) continue;
        // A dialog is named by aria-labelledby or aria-label, never by a <label>.
        return nameOf(d, 'dialog', NO_LABELS) || 'dialog';
      }
    }
    return null;
  }

  function bump(map, k) { map[k] = (map[k] || 0) + 1; }

  // Each root's scan, in order, the anchored elements within `max` of them all tested for
  // HIDERS.
  function scanAll(roots, max) {
    var left = max;
    return roots.map(function (r) {
      var sc = scan(r.root, left);
      left = Math.max(0, left - sc.anchored.length);
      return sc;
    });
  }

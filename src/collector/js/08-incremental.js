// Incremental reads: what changed since the last read.

  // Whether the roots found before the mutations in `log` (from record `from` on) are still
  // all there are, each with the region it inherits: no element added or removed held a
  // shadow root or a frame, and none that holds one had an attribute its region reads
  // changed. A shadow root attached to an element already in place is no mutation: the
  // watched attachShadow says so (see watchSetters).
  function rootsHold(log, from) {
    function bare(x) {
      if (x.nodeType !== 1) return true;
      if (x.shadowRoot || x.tagName === 'IFRAME') return false;
      if (!x.firstElementChild) return true;
      if (x.querySelector('iframe')) return false;
      var walker = x.ownerDocument.createTreeWalker(x, NodeFilter.SHOW_ELEMENT);
      for (var el = walker.nextNode(); el; el = walker.nextNode()) if (el.shadowRoot) return false;
      return true;
    }
    for (var i = from || 0; i < log.length; i++) {
      var m = log[i];
      if (m.type === 'childList' ? !nodesAll(m, bare)
        : m.type === 'attributes' && INHERITED[m.attributeName] && !bare(m.target)) return false;
    }
    return true;
  }

  // Whether `ok` holds for every node a childList record `m` added or removed.
  function nodesAll(m, ok) {
    var lists = [m.addedNodes, m.removedNodes];
    for (var l = 0; l < 2; l++) {
      for (var k = 0; k < lists[l].length; k++) if (!ok(lists[l][k])) return false;
    }
    return true;
  }

  // Past this many mutation records since a read, the next gathers everything again.
  var LOG_MOST = 500;
  // Attributes of an element that its descendants' records read (region, disabled state,
  // role, editability, name parts): a change to one gathers every control inside again.
  var INHERITED = { 'data-anchor-region': 1, 'aria-label': 1, 'aria-labelledby': 1,
    'aria-labeledby': 1, role: 1,
    disabled: 1, 'aria-disabled': 1, contenteditable: 1, inert: 1, hidden: 1, 'aria-hidden': 1 };
  // What names, disables or types controls other than the ones around it.
  var NAMING = 'label,legend,datalist,style,link';

  // The controls `log` (mutation records) could have changed in anything but their box and
  // visibility, which every read takes again for every control: the controls at or around
  // each changed node, and those inside an added subtree or an element whose inherited
  // attribute changed. Null when the change may reach further than that — a label, a
  // legend or a datalist, a style sheet, an id or what an aria-labelledby names, a shadow
  // root or a frame — and the read must gather everything.
  function affectedBy(log) {
    var hit = new Set(), refs = W.refIds;
    var of = W.matchOf ? W.matchOf.of : null;
    function up(n) {
      if (of) {
        for (var m = n; m; m = m.parentElement) if (m.hasAttribute('data-anchor') || of.has(m)) hit.add(m);
        return;
      }
      for (var a = n.closest('[data-anchor]'); a; a = a.parentElement && a.parentElement.closest('[data-anchor]')) hit.add(a);
    }
    function down(n) {
      if (n.hasAttribute('data-anchor') || (of && of.has(n))) hit.add(n);
      var inner = n.querySelectorAll(of ? '[data-anchor],' + W.M.sel : '[data-anchor]');
      for (var i = 0; i < inner.length; i++) if (!of || inner[i].hasAttribute('data-anchor') || of.has(inner[i])) hit.add(inner[i]);
    }
    // n sits in something that names or types other controls.
    function inside(n) {
      if (n.closest(NAMING)) return true;
      if (refs.size) for (var a = n; a; a = a.parentElement) if (a.id && refs.has(a.id)) return true;
      return false;
    }
    // n is or holds an element an aria-labelledby names (hidden or shown, it names
    // differently).
    function holdsRef(n) {
      if (!refs.size) return false;
      if (n.id && refs.has(n.id)) return true;
      var ids = n.querySelectorAll('[id]');
      for (var i = 0; i < ids.length; i++) if (refs.has(ids[i].id)) return true;
      return false;
    }
    for (var i = 0; i < log.length; i++) {
      var m = log[i], n = m.type === 'characterData' ? m.target.parentNode : m.target;
      // Changed inside a subtree removed since: its removal is another record.
      if (n && !n.isConnected) continue;
      if (!n || n.nodeType !== 1 || n.getRootNode() !== document) return null;
      // The head holds no control: only its style sheets matter (a new title does not).
      if (n.closest('head')) {
        if (n.closest('style,link')) return null;
        if (m.type === 'childList' && [m.addedNodes, m.removedNodes].some(function (list) {
          return Array.prototype.some.call(list, function (x) {
            return x.nodeType === 1 && (x.matches('style,link') || x.querySelector('style,link'));
          });
        })) return null;
        continue;
      }
      if (m.type === 'attributes') {
        if (m.attributeName === 'id' || inside(n) || holdsRef(n)) return null;
        up(n);
        if (INHERITED[m.attributeName]) down(n);
      } else if (m.type === 'characterData') {
        if (inside(n)) return null;
        up(n);
      } else {
        if (inside(n)) return null;
        var nodes = [m.removedNodes, m.addedNodes];
        for (var l = 0; l < 2; l++) {
          for (var k = 0; k < nodes[l].length; k++) {
            var x = nodes[l][k];
            if (x.nodeType !== 1) continue;
            if (x.matches(NAMING) || x.querySelector(NAMING) || holdsRef(x)) return null;
            if (l === 1 && x.isConnected) down(x);
          }
        }
        up(n);
      }
    }
    return hit;
  }

  // The attributes `scan` reads (the hiders' and clippers' aside: see madeSince).
  var SCAN_ATTRS = { 'data-anchor': 1, 'data-anchor-region': 1, role: 1, open: 1, 'aria-disabled': 1 };

  // What the scan's TESTED elements of a kind (the HIDERS, the CLIPPERS), `held` since the
  // scan, are after the mutations in `log`: each element that had one of `attrs`, the
  // attributes the kind is told by, set and now matches `sel`, added once. (An element
  // added is found by a new scan: see scanHolds.) One that stopped being one is still
  // held until the next scan.
  function madeSince(held, log, attrs, sel) {
    var made = [];
    for (var i = 0; i < log.length; i++) {
      var m = log[i];
      if (m.type === 'attributes' && attrs[m.attributeName] && m.target.matches(sel)) made.push(m.target);
    }
    return made.length ? Array.from(new Set(held.concat(made))) : held;
  }

  // Whether a scan taken before the mutations in `log` still finds what a new one would: no
  // element it could find was added or removed (a label included, which names others), and
  // none had an attribute it reads changed. Text changes never matter.
  function scanHolds(log) {
    var sel = scanned();
    function unscanned(x) {
      return x.nodeType !== 1 || !(x.matches(sel) || x.querySelector(sel));
    }
    for (var i = 0; i < log.length; i++) {
      var m = log[i];
      if (m.type === 'attributes' ? SCAN_ATTRS[m.attributeName]
        : m.type === 'childList' && !nodesAll(m, unscanned)) return false;
    }
    return true;
  }

  // `rec`, a field's record as reused, with the value and checked state the field holds
  // now (input changes them with no mutation): itself when they are as they were, else a
  // copy (never `old`, the held read's record, changed in place).
  function refreshed(el, tag, type, rec, old) {
    var value = valueOf(el, tag, type, rec.secret === true), checked = checkedOf(el, tag, type);
    if (holds(rec, value, checked)) return rec;
    if (rec === old) rec = copied(old);
    setLive(rec, value, checked);
    return rec;
  }

  // Whether `rec` holds `value` and `checked` as the helpers read them (null: none).
  function holds(rec, value, checked) {
    return value === (rec.value === undefined ? null : rec.value)
      && checked === (rec.checked === undefined ? null : rec.checked);
  }

  // Sets `rec`'s value and checked state as the helpers read them (null: none).
  function setLive(rec, value, checked) {
    rec.value = value === null ? undefined : value;
    rec.checked = checked === null ? undefined : checked;
  }

  // `old`, the record of a control no mutation reached, as it is now: itself when its box
  // and visibility are as they were, else a copy with the new ones.
  function moved(el, old, origin) {
    var rect = el.getBoundingClientRect();
    var b = [Math.round(rect.left + origin[0]), Math.round(rect.top + origin[1]), Math.round(rect.width), Math.round(rect.height)];
    var shown = visibleOf(el, rect.width, rect.height), o = old.bbox;
    var view = viewOf(el, rect, origin), v = old.view;
    if (b[0] === o[0] && b[1] === o[1] && b[2] === o[2] && b[3] === o[3] && shown === old.visible
      && (view === v || (view && v && view[0] === v[0] && view[1] === v[1] && view[2] === v[2] && view[3] === v[3]))) return old;
    var rec = copied(old);
    rec.bbox = b;
    rec.visible = shown;
    rec.view = view;
    return rec;
  }

  // A record's copy, of the same shape (see record).
  function copied(r) {
    return { anchor: r.anchor, key: r.key, label: r.label, role: r.role, disabled: r.disabled,
      editable: r.editable, value: r.value, secret: r.secret, checked: r.checked, region: r.region,
      visible: r.visible, bbox: r.bbox, view: r.view };
  }

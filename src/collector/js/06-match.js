// Registry matchers: anchors for the elements a page does not mark with `data-anchor`.

  // The matchers as the runner sends them (see registry::Matchers), compiled once per
  // document and version: {v, tid, list: [{a, k, role, name, t, v, w, key, shown}]}, where
  // `name` and `t` are {s: text} or {re, f}, `w` the index of the `within` matcher (or the
  // anchor, when that one is found by its data-anchor only), `key` null, 'text' or {attr}.
  // Grouped by kind, so one pass over each root's candidates serves every matcher: a
  // 10,000-anchor registry costs a lookup per candidate, not a scan per anchor.
  function takeMatchers(m) {
    var M = { v: m.v, tid: m.tid, list: m.list, roles: {}, label: group(), placeholder: group(),
      text: group(), testId: new Map(), css: [], topo: [], sel: '', anyText: false };
    var sels = [];
    // Each anchor's entry, for an action's lookup (a 10,000-entry list is not scanned).
    M.entry = new Map();
    m.list.forEach(function (e, i) {
      M.entry.set(e.a, e);
      var t = e.k === 'role' ? e.name : e.t;
      if (t) {
        if (t.re !== undefined) {
          try { e.rx = new RegExp(t.re, t.f); } catch (err) { e.bad = 'the pattern /' + t.re + '/' + t.f + ' is not a JavaScript regular expression: ' + err.message; return; }
        }
      }
      switch (e.k) {
        case 'role': {
          var g = M.roles[e.role] || (M.roles[e.role] = group());
          if (!e.name) g.any.push(i); else add(g, e, e.name, i);
          if (e.name && e.hidden) g.hiddenNamed = true;
          sels.push('[role]', IMPLICIT[e.role] || '');
          break;
        }
        case 'label': add(M.label, e, e.t, i); sels.push(LABELLED); break;
        case 'placeholder': add(M.placeholder, e, e.t, i); sels.push('[placeholder]'); break;
        case 'text':
          add(M.text, e, e.t, i);
          M.anyText = true;
          if (e.t.re === undefined) (M.text.lens || (M.text.lens = new Set())).add(nonSpace(e.t.s));
          break;
        case 'test_id': {
          var l = M.testId.get(e.v);
          if (l) l.push(i); else M.testId.set(e.v, [i]);
          sels.push('[' + m.tid + ']');
          break;
        }
        case 'css':
          try { document.createDocumentFragment().querySelector(e.v); } catch (err) { e.bad = 'the selector ' + JSON.stringify(e.v) + ' is not valid CSS'; return; }
          M.css.push(i);
          sels.push(e.v);
          break;
      }
    });
    // `within` matchers after the one they are within; a loop was refused by the registry.
    var placed = new Array(m.list.length);
    function place(i, depth) {
      if (placed[i] || depth > m.list.length) return;
      var w = m.list[i].w;
      if (typeof w === 'number') place(w, depth + 1);
      placed[i] = true;
      M.topo.push(i);
    }
    for (var i = 0; i < m.list.length; i++) place(i, 0);
    // What a scan must also find: every element a matcher can give an anchor to (a text
    // matcher: any element).
    M.sel = M.anyText ? '*' : uniq(sels.filter(Boolean)).join(',');
    // The elements any role matcher's role may be on, found once per root and pass.
    var roleSels = [];
    Object.keys(M.roles).forEach(function (role) { roleSels.push('[role]', IMPLICIT[role] || ''); });
    M.roleSel = uniq(roleSels.filter(Boolean)).join(',');
    W.M = M;
    W.matchOf = null;
    W.matchStale = true;
  }

  function group() { return { exact: new Map(), re: [], any: [] }; }
  function add(g, e, t, i) {
    if (t.re !== undefined) g.re.push(i);
    else { var l = g.exact.get(t.s); if (l) l.push(i); else g.exact.set(t.s, [i]); }
  }
  function uniq(a) { return a.filter(function (x, i) { return a.indexOf(x) === i; }); }

  // The elements a role may be implicit on (the explicit ones carry `role`); roleOf decides.
  var IMPLICIT = {
    button: 'button,input', link: 'a[href],area[href]', textbox: 'input,textarea,[contenteditable]',
    searchbox: 'input', checkbox: 'input', radio: 'input', combobox: 'select,input', listbox: 'select',
    slider: 'input', spinbutton: 'input', heading: 'h1,h2,h3,h4,h5,h6', listitem: 'li', list: 'ul,ol,menu',
    row: 'tr', cell: 'td', columnheader: 'th', rowheader: 'th', table: 'table', img: 'img', option: 'option',
    status: 'output', dialog: 'dialog', progressbar: 'progress', meter: 'meter', navigation: 'nav',
    main: 'main', article: 'article', region: 'section', form: 'form', group: 'fieldset,details',
    paragraph: 'p', complementary: 'aside', banner: 'header', contentinfo: 'footer', generic: 'div,span'
  };
  var LABELLED = 'input,select,textarea,button,meter,output,progress,[aria-label],[aria-labelledby],[aria-labeledby]';
  // (LABELLED: what a scan must find for label matchers; the pass itself starts from labels.)
  // What a repeated element's row is when no `within` says: the nearest of these.
  var ROW = 'li,tr,[role=row],[role=listitem],[role=option],[role=treeitem],[role=article],article';
  var ROW_ROLES = { row: 1, listitem: 1, option: 1, treeitem: 1, article: 1 };
  // What a row's key leaves out: the text of its buttons and fields (an icon, "Delete").
  var NOT_KEY = { BUTTON: 1, SELECT: 1, TEXTAREA: 1, INPUT: 1 };

  function tests(e, t, s) {
    if (e.bad) return false;
    return e.rx ? (e.rx.lastIndex = 0, e.rx.test(s)) : s === t.s;
  }

  // The indices of `g`'s matchers that `s` satisfies, pushed onto `out`.
  function matching(g, s, out, list, field) {
    var l = g.exact.get(s);
    if (l) for (var i = 0; i < l.length; i++) out.push(l[i]);
    for (var j = 0; j < g.re.length; j++) {
      var e = list[g.re[j]];
      if (tests(e, e[field], s)) out.push(g.re[j]);
    }
  }

  // An element's label texts: its `<label>`s, what its aria-labelledby names, its aria-label.
  function labelTexts(el, labels) {
    return labelTextsOf(el, labels, new Map()).map(function (t) { return norm(textNorm(t)); });
  }

  // An element's labels as Playwright's getByLabel reads them (see fullText): what its
  // aria-labelledby names, each element whole; else its aria-label; else, for a labelable
  // element, each of its `<label>`s whole (a select inside one lends its options' text).
  function labelTextsOf(el, labels, cache) {
    var v = el.getAttribute('aria-labelledby');
    if (v !== null) {
      var root = rootNode(el), refs = [];
      v.trim().split(/\s+/).forEach(function (id) {
        var ref = id && root.getElementById(id);
        if (ref && refs.indexOf(ref) < 0) refs.push(ref);
      });
      if (refs.length) return refs.map(function (ref) { return fullText(ref, cache); });
    }
    v = el.getAttribute('aria-label');
    if (v !== null && v.trim()) return [{ full: v, norm: null, nws: nonSpace(v) }];
    var labs = labels.get(el);
    return labs ? labs.map(function (l) { return fullText(l, cache); }) : [];
  }

  // An element's role as role matchers take it: roleOf's, but for a `<summary>`, which
  // has no ARIA role of its own (HTML-AAM, Playwright's and Testing Library's role queries;
  // Chromium's tree calls it a DisclosureTriangle): a read lists it as a button, a role
  // matcher finds it only by an explicit role.
  function matchRole(el) {
    var r = roleOf(el);
    return r === 'button' && el.tagName === 'SUMMARY' && roleOf(el, 'SPAN') !== 'button' ? '' : r;
  }

  // Whether every matcher of `found` opts in to elements hidden from accessibility.
  function hiddenAllowed(found, list) {
    for (var i = 0; i < found.length; i++) if (!list[found[i]].hidden) return false;
    return true;
  }

  // Hidden from the accessibility tree, as Playwright's role queries decide it: not shown by
  // CSS (`display: none` on it or any ancestor, shadow hosts included; `hidden`;
  // `visibility: hidden`; a light child no slot takes), or `aria-hidden="true"` on it or
  // any ancestor. An element with `display: contents` is hidden when all its children are
  // (and only then); an option of a select is judged by its select's `display` alone.
  // `aria`: whether any root holds an aria-hidden attribute at all; `seen`: the pass's
  // answers by ancestor.
  function hiddenForAria(el, aria, seen) {
    var tag = el.tagName;
    if (SKIP_TAGS[tag]) return true;
    if (tag === 'OPTION' && el.closest('select')) {
      if (!el.closest('select').checkVisibility()) return true;
    } else if (tag !== 'SLOT' && !el.checkVisibility(VISIBILITY)) {
      if (getComputedStyle(el).display !== 'contents') return true;
      var shown = false;
      for (var c = el.firstChild; c && !shown; c = c.nextSibling) {
        if (c.nodeType === 1) shown = !hiddenForAria(c, aria, seen);
        else if (c.nodeType === 3) shown = contentsShown(el);
      }
      // Shown through a child: not hidden, whatever is above (as Playwright decides it).
      return !shown;
    }
    return aria ? ariaHiddenUp(el, seen) : false;
  }

  function ariaHiddenUp(el, seen) {
    var h = seen.get(el);
    if (h !== undefined) return h;
    var v = el.getAttribute('aria-hidden');
    h = v !== null && v.toLowerCase() === 'true';
    if (!h) { var up = above(el); h = up ? ariaHiddenUp(up, seen) : false; }
    seen.set(el, h);
    return h;
  }

  // An element's whole text content, as Playwright's getByText reads it: its text nodes and
  // its children's text in order, then its shadow root's; an `<input type=button>` its
  // value; nothing of a script, a style or the document's head. `full` as written, `norm`
  // collapsed (zero-width spaces and soft hyphens left out), `nws` the count of characters
  // that are not whitespace (an exact text can only match an element with as many).
  function fullText(node, cache) {
    var t = cache.get(node);
    if (t) return t;
    t = { full: '', norm: null, nws: 0 };
    if (node.nodeType === 1 && skipText(node)) { cache.set(node, t); return t; }
    if (node.tagName === 'INPUT' && (node.type === 'submit' || node.type === 'button' || node.type === 'reset')) {
      t.full = node.value;
      t.nws = nonSpace(t.full);
    } else {
      for (var c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) { t.full += c.data; t.nws += nonSpace(c.data); }
        else if (c.nodeType === 1) { var ct = fullText(c, cache); t.full += ct.full; t.nws += ct.nws; }
      }
      if (node.shadowRoot) { var st = fullText(node.shadowRoot, cache); t.full += st.full; t.nws += st.nws; }
    }
    cache.set(node, t);
    return t;
  }
  var SPACES = /[\s\u200b\u00ad]+/g;
  function nonSpace(s) { return s ? s.replace(SPACES, '').length : 0; }
  function skipText(el) {
    var tag = el.tagName;
    if (tag === 'SCRIPT' || tag === 'NOSCRIPT' || tag === 'STYLE') return true;
    var head = el.ownerDocument.head;
    return !!head && head.contains(el);
  }
  function textNorm(t) {
    if (t.norm === null) t.norm = t.full.replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');
    return t.norm;
  }

  // The text matchers `t` (see fullText) satisfies: a string the collapsed text whole, a
  // pattern the text as written (as Playwright tests them). `glyphless`: a string is
  // compared with icon-font glyphs left out too (labels, as names).
  function textMatching(g, t, out, list, glyphless) {
    if (g.exact.size && (!g.lens || g.lens.has(t.nws))) {
      var l = g.exact.get(glyphless ? norm(textNorm(t)) : textNorm(t));
      if (l) for (var i = 0; i < l.length; i++) out.push(l[i]);
    }
    for (var j = 0; j < g.re.length; j++) {
      var e = list[g.re[j]];
      if (!e.bad) { e.rx.lastIndex = 0; if (e.rx.test(t.full)) out.push(g.re[j]); }
    }
  }

  // Whether a child element of `el` (or its shadow root) matches the text matcher `e` too.
  function childMatches(el, e, cache) {
    function test(n) {
      var t = fullText(n, cache);
      if (e.rx) { e.rx.lastIndex = 0; return e.rx.test(t.full); }
      return t.nws === nonSpace(e.t.s) && textNorm(t) === e.t.s;
    }
    for (var c = el.firstElementChild; c; c = c.nextElementSibling) if (test(c)) return true;
    return !!el.shadowRoot && test(el.shadowRoot);
  }

  // The element above `el` in the flat tree: its parent, or its shadow root's host.
  function above(el) {
    if (el.parentElement) return el.parentElement;
    var r = el.parentNode;
    if (r && r.host) return r.host;
    // Out of a same-origin frame's document: its iframe (a `within:` anchor may be one).
    if (r && r.nodeType === 9 && r !== document) {
      try { return r.defaultView ? r.defaultView.frameElement : null; } catch (err) { return null; }
    }
    return null;
  }

  // A row's text, as a key: its text runs joined by spaces (cells run together in
  // textContent), collapsed, at most 120 characters.
  function rowText(row) {
    var parts = [];
    (function walk(node, depth) {
      if (depth > 64) return;
      for (var n = node.firstChild; n; n = n.nextSibling) {
        if (n.nodeType === 3) parts.push(n.data);
        else if (n.nodeType !== 1 || SKIP_TAGS[n.tagName] || NOT_KEY[n.tagName] || n.getAttribute('role') === 'button') continue;
        else if (n.shadowRoot) walk(n.shadowRoot, depth + 1);
        else if (n.tagName === 'SLOT') {
          var assigned = n.assignedNodes({ flatten: true });
          if (!assigned.length) walk(n, depth + 1);
          for (var i = 0; i < assigned.length; i++) {
            if (assigned[i].nodeType === 3) parts.push(assigned[i].data);
            else walk(assigned[i], depth + 1);
          }
        } else walk(n, depth + 1);
      }
    })(row.shadowRoot || row, 0);
    var s = norm(parts.join(' '));
    return s.length > 120 ? s.slice(0, 120) : s;
  }

  // The anchors the registry's matchers give the page's elements: {of: Map element ->
  // {a: anchor, k: key}, by: Map anchor -> [{el, k}] (document order), names: Map element
  // -> accessible name (for the read to reuse), failed: [why]}. Worked out again after any
  // mutation; `changed` then lists the elements whose anchor or key changed, and `moved`
  // says whether any element gained or lost one (the read's scan is then taken again).
  function matched() {
    var M = W.M;
    if (!M) return null;
    if (W.matchOf && !W.matchStale) return W.matchOf;
    var roots = collectRoots();
    var list = M.list, hits = new Array(list.length);
    // With no matcher applying on the screen the address is on (see onScreen), no root is
    // searched for candidates: on a 10,000-control screen whose anchors the page carries
    // itself (a screen the registry declares without matchers), that search named and
    // labelled every control for nothing (~15 % of a whole read's time in the page).
    var searched = list.some(onScreen);
    var labels = null, names = new Map(), tcache = null, ariaSeen = new Map(), anyAriaHidden;
    // What the last pass learnt of each candidate (role, name), less what the
    // mutations since may have changed (see staleFacts): a pass after a click that changed
    // one line of a 10,000-control page names one element again, not 10,000.
    var facts = W.facts;
    if (!facts || !W.log || facts.size > 4 * (W.factsFor || 0) + 1000 || staleFacts(W.log, facts)) {
      facts = W.facts = new Map();
    }
    function factOf(el) {
      var f = facts.get(el);
      if (!f) { f = { role: matchRole(el), name: undefined }; facts.set(el, f); }
      return f;
    }
    // Anchors the page marks itself: their matchers stand aside (data-anchor wins).
    var marked = new Map();
    if (searched) roots.forEach(function (r) {
      var root = r.root;
      var own = root.querySelectorAll('[data-anchor]');
      for (var i = 0; i < own.length; i++) {
        var a = own[i].getAttribute('data-anchor'), l = marked.get(a);
        if (l) l.push(own[i]); else marked.set(a, [own[i]]);
      }
      var found = [], els, el, k;
      function hit(el, idx) {
        for (var j = 0; j < idx.length; j++) (hits[idx[j]] || (hits[idx[j]] = [])).push(el);
      }
      if (M.roleSel) {
        els = root.querySelectorAll(M.roleSel);
        for (k = 0; k < els.length; k++) {
          el = els[k];
          if (el.hasAttribute('data-anchor')) continue;
          var fact = factOf(el), role = fact.role, g = M.roles[role];
          if (!g) continue;
          found.length = 0;
          for (var x = 0; x < g.any.length; x++) found.push(g.any[x]);
          if (g.exact.size || g.re.length) {
            if (fact.name === undefined) {
              if (!labels) labels = labelMap(roots);
              fact.name = nameOf(el, role, labels);
            }
            names.set(el, fact.name);
            matching(g, fact.name, found, list, 'name');
          }
          // Hidden from the accessibility tree: found only by a matcher that asks
          // (`hidden: true`), as Testing Library's and Playwright's role queries, and named
          // then with its hidden parts.
          if ((found.length && !hiddenAllowed(found, list)) || g.hiddenNamed) {
            if (anyAriaHidden === undefined) anyAriaHidden = roots.some(function (r) { return !!r.root.querySelector('[aria-hidden]'); });
            if (hiddenForAria(el, anyAriaHidden, ariaSeen)) {
              if (g.hiddenNamed) {
                found.length = 0;
                for (var hy = 0; hy < g.any.length; hy++) found.push(g.any[hy]);
                if (!labels) labels = labelMap(roots);
                matching(g, hiddenNameOf(el, role, labels), found, list, 'name');
              }
              for (var hx = found.length - 1; hx >= 0; hx--) if (!list[found[hx]].hidden) found.splice(hx, 1);
            }
          }
          hit(el, found);
        }
      }
      var lab = M.label;
      if (lab.exact.size || lab.re.length) {
        // Only what has a label: each label's control, and what names itself by ARIA (a
        // field without either has no label text to match, and is not looked at).
        els = root.querySelectorAll('label,[aria-label],[aria-labelledby]');
        var seen = new Set();
        if (!tcache) tcache = new Map();
        if (!labels) labels = labelMap(roots);
        for (k = 0; k < els.length; k++) {
          // A label's control, and the label itself when it names itself by ARIA.
          var pair = [els[k]];
          if (els[k].tagName === 'LABEL') {
            pair = [els[k].control];
            if (els[k].hasAttribute('aria-label') || els[k].hasAttribute('aria-labelledby')) pair.push(els[k]);
          }
          for (var pi = 0; pi < pair.length; pi++) {
            el = pair[pi];
            if (!el || seen.has(el) || el.hasAttribute('data-anchor')) continue;
            seen.add(el);
            var ts = labelTextsOf(el, labels, tcache);
            if (!ts.length) continue;
            found.length = 0;
            for (var q = 0; q < ts.length; q++) textMatching(lab, ts[q], found, list, true);
            hit(el, uniq(found));
          }
        }
      }
      var ph = M.placeholder;
      if (ph.exact.size || ph.re.length) {
        els = root.querySelectorAll('[placeholder]');
        for (k = 0; k < els.length; k++) {
          el = els[k];
          if (el.hasAttribute('data-anchor')) continue;
          found.length = 0;
          matching(ph, norm(el.getAttribute('placeholder')), found, list, 't');
          hit(el, found);
        }
      }
      if (M.testId.size) {
        els = root.querySelectorAll('[' + M.tid + ']');
        for (k = 0; k < els.length; k++) {
          el = els[k];
          if (el.hasAttribute('data-anchor')) continue;
          var ids = M.testId.get(el.getAttribute(M.tid));
          if (ids) hit(el, ids);
        }
      }
      M.css.forEach(function (i) {
        var els = root.querySelectorAll(list[i].v);
        for (var k = 0; k < els.length; k++) if (!els[k].hasAttribute('data-anchor')) (hits[i] || (hits[i] = [])).push(els[k]);
      });
      if (M.anyText) {
        // As Playwright's getByText: an element whose whole text content (its children's,
        // its shadow root's) matches, and none of whose child elements matches too — the
        // smallest element, `<strong>2</strong> items left` the counter whole.
        var tx = M.text, doc = root.nodeType === 9 ? root : root.ownerDocument;
        if (!tcache) tcache = new Map();
        var walker = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
        for (el = walker.nextNode(); el; el = walker.nextNode()) {
          var mine = fullText(el, tcache);
          if (!mine.nws && !tx.re.length && !tx.exact.has('')) continue;
          found.length = 0;
          textMatching(tx, mine, found, list);
          if (!found.length) continue;
          var smallest = [];
          for (var sm = 0; sm < found.length; sm++) {
            if (!childMatches(el, list[found[sm]], tcache)) smallest.push(found[sm]);
          }
          if (!smallest.length) continue;
          found.length = 0;
          found.push.apply(found, smallest);
          // Text inside a control names the control.
          var target = el.closest(INTERACTIVE) || el;
          if (target.hasAttribute('data-anchor')) continue;
          for (var f = 0; f < found.length; f++) {
            var h = hits[found[f]] || (hits[found[f]] = []);
            if (h[h.length - 1] !== target) h.push(target);
          }
        }
      }
    });
    var of = new Map(), by = new Map(), failed = [];
    M.topo.forEach(function (i) {
      var e = list[i];
      if (marked.has(e.a)) return;
      // Only on its anchor's screens (see onScreen).
      if (!onScreen(e)) return;
      var scope = null, outside = false;
      if (e.w !== null && e.w !== undefined) {
        // Within the iframe this frame is read in (a frame of another origin: `outer`).
        outside = !!W.outer && W.outer.indexOf(typeof e.w === 'number' ? list[e.w].a : e.w) >= 0;
        scope = new Set();
        var parent = typeof e.w === 'number' ? by.get(list[e.w].a) : null;
        if (parent) parent.forEach(function (p) { scope.add(p.el); });
        (marked.get(typeof e.w === 'number' ? list[e.w].a : e.w) || []).forEach(function (p) { scope.add(p); });
      }
      var out = [];
      (hits[i] || []).forEach(function (el) {
        var row = null;
        if (scope) {
          for (row = above(el); row && !scope.has(row); row = above(row)) {}
          if (!row && !outside) return;
        }
        var key;
        if (e.key === 'text') {
          // The row: the element itself when it is one, else its `within` anchor's
          // element, else its nearest row.
          if (el.matches(ROW) || ROW_ROLES[roleOf(el)]) row = el;
          else if (row && !(row.matches(ROW) || ROW_ROLES[roleOf(row)])) {
            // The `within` element holds the rows (a list): each element's row is its own,
            // the nearest row below it, else the child of it that holds the element.
            var own = el, near = null;
            for (var p = el; p && p !== row; p = above(p)) {
              if (!near && (p.matches(ROW) || ROW_ROLES[roleOf(p)])) near = p;
              own = p;
            }
            row = near || own;
          } else if (!row) row = el.closest(ROW) || el;
          key = rowText(row);
        } else if (e.key) {
          var holder = el.closest('[' + CSS.escape(e.key.attr) + ']');
          key = holder ? holder.getAttribute(e.key.attr) : '';
        }
        // An element shows in a read under the first anchor that finds it; an action on
        // any anchor that finds it finds it.
        if (!of.has(el)) of.set(el, { a: e.a, k: key });
        out.push({ el: el, k: key });
      });
      if (e.bad) failed.push(e.a + ': ' + e.bad);
      by.set(e.a, out);
    });
    // What changed since the last pass, for the read's incremental gathering.
    // (A whole read gathers everything: it needs no list.)
    var prev = W.matchOf, changed = [], moved = !prev || W.matchWhole;
    if (prev && !W.matchWhole) {
      of.forEach(function (m, el) {
        var o = prev.of.get(el);
        if (!o || o.a !== m.a) { moved = true; changed.push(el); } else if (o.k !== m.k) changed.push(el);
      });
      prev.of.forEach(function (o, el) {
        if (!of.has(el)) { moved = true; changed.push(el); }
      });
    }
    W.matchOf = { of: of, by: by, names: names, failed: failed };
    W.factsFor = names.size + of.size;
    // Kept until a read takes them in (see read).
    W.matchChanged = (W.matchChanged || []).concat(changed);
    W.matchMoved = W.matchMoved || moved;
    W.matchStale = false;
    return W.matchOf;
  }

  // Drops from `facts` what the mutations in `log` may have changed: the facts of every
  // element at or above a changed node (a name from content reads the whole subtree).
  // True when a change may reach further — a label, a legend, an id or what an
  // aria-labelledby names, an attribute every descendant reads, a shadow root — and every
  // fact must be learnt again.
  function staleFacts(log, facts) {
    var refs = W.refIds;
    function far(x) {
      if (x.nodeType !== 1) return false;
      if (x.matches(NAMING) || x.querySelector(NAMING)) return true;
      if (refs.size && x.id && refs.has(x.id)) return true;
      return false;
    }
    for (var i = 0; i < log.length; i++) {
      var m = log[i], n = m.type === 'characterData' ? m.target.parentNode : m.target;
      if (!n || n.nodeType !== 1) return true;
      if (!n.isConnected) continue;
      if (n.closest(NAMING)) return true;
      if (m.type === 'attributes') {
        if (m.attributeName === 'id' || m.attributeName === 'for' || INHERITED[m.attributeName]) return true;
      } else if (m.type === 'childList') {
        var lists = [m.addedNodes, m.removedNodes];
        for (var l = 0; l < 2; l++) for (var k = 0; k < lists[l].length; k++) if (far(lists[l][k])) return true;
      }
      for (var a = n; a; a = above(a)) facts.delete(a);
    }
    return false;
  }

  // The anchor an element carries, or a matcher gives it; null for neither.
  function anchorOf(el) {
    var a = el.getAttribute('data-anchor');
    if (a !== null) return a;
    var mo = W.matchOf;
    var m = mo && mo.of.get(el);
    return m ? m.a : null;
  }

  // The key of an anchored element: its data-anchor-key, or its matcher's key.
  function keyOf(el) {
    var k = el.getAttribute('data-anchor-key');
    if (k !== null) return k;
    var mo = W.matchOf;
    var m = mo && mo.of.get(el);
    return m && m.k !== undefined ? m.k : null;
  }

  // The nearest element at or above `el` with an anchor (its own or a matcher's).
  function anchoredAt(el) {
    var mo = W.matchOf;
    for (var a = el; a; a = a.parentElement) {
      if (a.hasAttribute('data-anchor') || (mo && mo.of.has(a))) return a;
    }
    return null;
  }

  // The elements a matcher gives `anchor` (with `key`: the one(s) whose key is it, exactly,
  // else containing it for text keys), or null when no matcher serves the anchor here.
  function matchedFor(anchor, key) {
    var mo = matched();
    if (!mo) return null;
    var list = mo.by.get(anchor);
    if (!list) return null;
    if (key === null || key === undefined) return list.map(function (m) { return { el: m.el }; });
    var exact = list.filter(function (m) { return m.k === key; });
    if (exact.length) return exact.map(function (m) { return { el: m.el }; });
    var e = W.M.entry.get(anchor);
    if (!e || e.key !== 'text') return [];
    return list.filter(function (m) { return m.k && m.k.indexOf(key) >= 0; })
      .map(function (m) { return { el: m.el }; });
  }

  // The roles a person operates; any other anchored element is an output (a counter, a
  // status line, a heading), whose text is its value.
  var WIDGETS = {};
  ('button link checkbox radio switch tab menuitem menuitemcheckbox menuitemradio option combobox '
    + 'textbox searchbox slider spinbutton listbox treeitem scrollbar gridcell generic')
    .split(' ').forEach(function (r) { WIDGETS[r] = 1; });

  // An output's text: collapsed, at most 200 characters.
  function outputText(el) {
    var s = norm(el.textContent);
    return s.length > 200 ? s.slice(0, 199) + '…' : s;
  }

  // The role a read shows for an anchored element: an element with no role of its own
  // that a matcher found is `text`, and shows its text as its value.
  function shownRole(el, role) {
    return role === 'generic' && !el.hasAttribute('data-anchor') ? 'text' : role;
  }

  // A short path to an element, for a person to find it: up to its last three steps.
  function shortPath(el) {
    var steps = [];
    for (var n = el; n && n.nodeType === 1 && steps.length < 3; n = above(n)) {
      var s = n.tagName.toLowerCase();
      if (n.id) { steps.unshift(s + '#' + n.id); break; }
      var cls = (n.getAttribute('class') || '').trim().split(/\s+/)[0];
      if (cls) s += '.' + cls;
      var p = n.parentElement;
      if (p) {
        var same = 0, at = 0;
        for (var c = p.firstElementChild; c; c = c.nextElementSibling) {
          if (c.tagName === n.tagName) { same++; if (c === n) at = same; }
        }
        if (same > 1) s += ':nth-of-type(' + at + ')';
      }
      steps.unshift(s);
    }
    return steps.join(' > ');
  }

  // What a person needs to tell apart the elements an ambiguous anchor found: the first five.
  function candidates(found) {
    return found.slice(0, 5).map(function (f) {
      var el = f.el, role = roleOf(el);
      var labels = new Map([[el, Array.prototype.slice.call(el.labels || [])]]);
      return { role: role, name: nameOf(el, role, labels), region: regionOf(el, null), path: shortPath(el), key: keyOf(el) };
    });
  }

  // What `waymark suggest` builds matchers from, for the unanchored controls a read listed
  // (by their node ids): tag, id, placeholder, test id, own text, label texts, a short path.
  function describeNodes(ids, tid) {
    var labels = null;
    return ids.map(function (id) {
      var el = (W.nodes && W.nodes.get(id)) || null;
      if (!el || !el.isConnected) return null;
      if (!labels) labels = labelMap(collectRoots());
      // Its whole text, as a text matcher compares it (see fullText).
      var text = norm(textNorm(fullText(el, new Map())));
      return {
        tag: el.tagName.toLowerCase(), id: el.id || null, placeholder: el.getAttribute('placeholder'),
        test_id: el.getAttribute(tid), text: text.length > 80 ? text.slice(0, 80) : text,
        labels: labelTexts(el, labels).filter(Boolean), path: shortPath(el)
      };
    });
  }

  // What `matchers` would find on the page now, by anchor: the node ids of the first three
  // elements, and how many; with `mark` (an attribute's name), each element found as
  // {m: its value of that attribute, v: whether it is shown, n: its name, r: its role}, for
  // the differential test against Playwright. The page's own matchers are put back after.
  function countMatches(m, mark) {
    var saved = { M: W.M, of: W.matchOf, changed: W.matchChanged, moved: W.matchMoved, stale: W.matchStale };
    var out = {}, labels = null;
    try {
      takeMatchers(m);
      var mo = matched();
      m.list.forEach(function (e) {
        var found = mo.by.get(e.a) || [];
        out[e.a] = { count: found.length, nodes: found.slice(0, 3).map(function (f) { return idOf(f.el); }), bad: e.bad || null };
        if (mark) {
          if (!labels) labels = labelMap(collectRoots());
          out[e.a].marks = found.map(function (f) {
            var el = f.el, r = el.getBoundingClientRect(), role = roleOf(el);
            return { m: el.getAttribute(mark), v: visibleOf(el, r.width, r.height, true), n: nameOf(el, role, labels), r: role };
          });
        }
      });
    } finally {
      W.M = saved.M;
      W.matchOf = saved.of;
      W.matchChanged = saved.changed;
      W.matchMoved = saved.moved;
      W.matchStale = saved.stale;
    }
    return out;
  }

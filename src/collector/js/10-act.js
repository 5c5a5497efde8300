// An action's target: found, brought into view, checked.

  function describe(el) {
    var s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    if (el.classList && el.classList.length) s += '.' + Array.prototype.slice.call(el.classList, 0, 2).join('.');
    var a = el.getAttribute && el.getAttribute('data-anchor');
    if (a) s += '[data-anchor=' + a + ']';
    var n = norm(el.textContent).slice(0, 40);
    return n ? s + ' "' + n + '"' : s;
  }

  function findAll(anchor, key) {
    // An anchor a registry matcher finds on this page (none of its elements marked).
    var byMatcher = matchedFor(anchor, key);
    if (byMatcher) return byMatcher;
    var c = W.cache;
    // The last read's scan, when nothing changed since, found every anchored element, the
    // ones a cut left out included: look it up instead of matching a selector against the
    // whole DOM (30 ms on a 50,000-control page, once per lookup).
    if (c && !W.dirty && c.scanned) {
      if (!c.byAnchor) {
        c.byAnchor = new Map();
        c.scanned.forEach(function (sc) {
          for (var i = 0; i < sc.anchored.length; i++) {
            var a = sc.anchors[i], list = c.byAnchor.get(a);
            if (list) list.push(sc.anchored[i]); else c.byAnchor.set(a, [sc.anchored[i]]);
          }
        });
      }
      var hits = [];
      (c.byAnchor.get(anchor) || []).forEach(function (el) {
        if (key === null || key === undefined || el.getAttribute('data-anchor-key') === key) hits.push({ el: el });
      });
      return hits;
    }
    var sel = '[data-anchor="' + CSS.escape(anchor) + '"]';
    if (key !== null && key !== undefined) sel += '[data-anchor-key="' + CSS.escape(key) + '"]';
    var found = [];
    collectRoots().forEach(function (r) {
      var els = r.root.querySelectorAll(sel);
      for (var i = 0; i < els.length; i++) found.push({ el: els[i], root: r });
    });
    return found;
  }

  // Deep hit test: descend through shadow roots and same-origin iframes.
  function hitTest(x, y) {
    var doc = document, hit = null, ox = 0, oy = 0;
    for (var depth = 0; depth < 32; depth++) {
      var h = doc.elementFromPoint(x - ox, y - oy);
      if (!h) return hit;
      while (h.shadowRoot) {
        var inner = h.shadowRoot.elementFromPoint(x - ox, y - oy);
        if (!inner || inner === h) break;
        h = inner;
      }
      hit = h;
      if (h.tagName === 'IFRAME') {
        var d = null;
        try { d = h.contentDocument; } catch (e) { d = null; }
        if (!d) return hit;
        var o = contentOrigin(h);
        ox += o[0];
        oy += o[1];
        doc = d;
        continue;
      }
      return hit;
    }
    return hit;
  }

  var CENTRE = { block: 'center', inline: 'center', behavior: 'instant' };

  // Whether `el`, whose box is `rect`, lies wholly in view: inside every box above it that
  // clips (a scroller, overflow: hidden; along the flat tree, so a slotted element's
  // scroller in its host's shadow tree counts), inside its document's viewport less the
  // scrollbars, and, in a frame, likewise in the frame's document. Centring every target
  // scrolled the page on every action: a frame of the whole page each time on a dense one,
  // and a page jumping about under a person's eyes in a headed run.
  function inView(el, rect) {
    var r = [rect.left, rect.top, rect.right, rect.bottom];
    for (var node = el; node;) {
      var doc = node.ownerDocument, de = doc.documentElement;
      for (var p = flatParent(node); p && p !== de; p = flatParent(p)) {
        var cs = getComputedStyle(p);
        if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
        var b = p.getBoundingClientRect();
        if (r[0] < b.left || r[1] < b.top || r[2] > b.right || r[3] > b.bottom) return false;
      }
      // The root's client box is the viewport (the body's, in quirks mode).
      var vp = doc.compatMode === 'BackCompat' && doc.body ? doc.body : de;
      if (r[0] < 0 || r[1] < 0 || r[2] > vp.clientWidth || r[3] > vp.clientHeight) return false;
      var fe = doc.defaultView && doc.defaultView.frameElement;
      if (!fe) return true;
      var o = contentOrigin(fe);
      r = [r[0] + o[0], r[1] + o[1], r[2] + o[0], r[3] + o[1]];
      node = fe;
    }
    return true;
  }

  // The parent a box is laid out in: a slotted element's slot, a shadow root's host.
  function flatParent(n) {
    return n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null;
  }

  // Where a press on `el` lands: the centre of its box in top-document coordinates (taken
  // now: scrolling may have moved the frames too), and whether what lies there is `el`
  // (or inside it, or a label of it); else what covers it.
  function pressPoint(el) {
    var rect = el.getBoundingClientRect(), off = frameOffset(el);
    var x = rect.left + rect.width / 2 + off[0], y = rect.top + rect.height / 2 + off[1];
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return { ok: false, cover: 'outside the viewport' };
    var hit = hitTest(x, y);
    if (hit && (composedContains(el, hit) || (hit.tagName === 'LABEL' && hit.control === el))) return { ok: true, x: x, y: y };
    return { ok: false, cover: hit ? describe(hit) : 'nothing' };
  }

  // Offset of the element's frame viewport in top-level coordinates.
  function frameOffset(el) {
    var dx = 0, dy = 0;
    var win = el.ownerDocument.defaultView;
    while (win && win.frameElement) {
      var fe = win.frameElement, o = contentOrigin(fe);
      dx += o[0];
      dy += o[1];
      win = fe.ownerDocument.defaultView;
    }
    return [dx, dy];
  }

  // Where a frame's viewport starts in the viewport of the document holding the frame:
  // its box, past its border and padding.
  function contentOrigin(frame) {
    var r = frame.getBoundingClientRect(), cs = getComputedStyle(frame);
    return [r.left + frame.clientLeft + parseFloat(cs.paddingLeft), r.top + frame.clientTop + parseFloat(cs.paddingTop)];
  }

  function composedContains(target, node) {
    for (var n = node; n; n = n.parentNode || n.host) {
      if (n === target) return true;
    }
    return false;
  }

  function armNavigation() {
    window.__wmNav = false;
    if (window.__wmNavArmed) return;
    window.__wmNavArmed = true;
    if (window.navigation && window.navigation.addEventListener) {
      window.navigation.addEventListener('navigate', function (e) {
        if (!e.destination || !e.destination.sameDocument) window.__wmNav = true;
      });
    }
    window.addEventListener('beforeunload', function () { window.__wmNav = true; });
    // Requests the page starts in reaction to an action keep it unsettled until they end,
    // so a save that answers after the quiet window is still waited for.
    window.__wmInflight = 0;
    var done = function () { window.__wmInflight = Math.max(0, window.__wmInflight - 1); };
    if (window.fetch) {
      var origFetch = window.fetch;
      window.fetch = function () {
        window.__wmInflight++;
        var p = origFetch.apply(this, arguments);
        p.then(done, done);
        return p;
      };
    }
    if (window.XMLHttpRequest) {
      var origSend = XMLHttpRequest.prototype.send;
      XMLHttpRequest.prototype.send = function () {
        window.__wmInflight++;
        this.addEventListener('loadend', done, { once: true });
        return origSend.apply(this, arguments);
      };
    }
  }

  // The element an action names: by anchor (and key), by the node id a read gave it, or by
  // a point in top-document coordinates (scrolled into view; the control under it, or
  // whatever element is there).
  function target(a) {
    if (a.node !== undefined && a.node !== null) {
      var el = (W.nodes && W.nodes.get(a.node)) || (W.cache && W.cache.elOf[a.node]);
      if (!el || !el.isConnected) return { info: { status: 'stale', count: 0 } };
      return { el: el };
    }
    if (a.point) {
      // A point names a place on the document the caller last read: on another one it is stale.
      if (a.doc && a.doc !== W.doc) return { info: { status: 'stale', count: 0 } };
      var px = a.point[0], py = a.point[1];
      if (px < scrollX || py < scrollY || px >= scrollX + innerWidth || py >= scrollY + innerHeight) {
        window.scrollTo({ left: px - innerWidth / 2, top: py - innerHeight / 2, behavior: 'instant' });
      }
      var vx = px - scrollX, vy = py - scrollY;
      var hit = vx >= 0 && vy >= 0 && vx < innerWidth && vy < innerHeight ? hitTest(vx, vy) : null;
      if (!hit) return { info: { status: 'not_found', count: 0 } };
      return { el: (hit.closest && hit.closest(INTERACTIVE + ',[data-anchor]')) || hit, point: [vx, vy] };
    }
    var found = findAll(a.anchor, a.key);
    if (found.length === 0) {
      var others = a.key !== null && a.key !== undefined ? findAll(a.anchor, null) : [];
      var info = { status: 'not_found', count: 0, unkeyed: others.length };
      if (others.length) info.keys = others.slice(0, 6).map(function (f) { return keyOf(f.el); });
      var mo = W.matchOf;
      if (mo && mo.failed.length) info.why = mo.failed.join('; ');
      return { info: info };
    }
    if (found.length > 1) {
      var keys = found.slice(0, 6).map(function (f) { return keyOf(f.el); });
      return { info: { status: 'ambiguous', count: found.length, keys: keys, candidates: candidates(found) } };
    }
    return { el: found[0].el };
  }

  function prepare(a) {
    disarm();
    // An action is under way: the animation frames its page asks for from now on are its
    // doing (see settle).
    W.acted = performance.now();
    W.frame = null;
    if (W.unhear) W.unhear();
    var t = target(a);
    if (!t.el) return t.info;
    var el = t.el;
    W.target = el;
    // One element: its own `labels` list is cheap (a whole-page label map is not).
    var labels = new Map([[el, Array.prototype.slice.call(el.labels || [])]]);
    var role = roleOf(el);
    var info = { count: 1, label: nameOf(el, role, labels), role: role };
    var rect = el.getBoundingClientRect();
    if (!visibleOf(el, rect.width, rect.height)) { info.status = 'hidden'; return info; }
    if (a.mode !== 'hover' && disabledOf(el)) { info.status = 'disabled'; return info; }
    if (a.mode === 'fill') {
      if (!editableOf(el)) {
        info.status = 'not_editable';
        info.why = el.readOnly ? 'read-only' : (el.tagName === 'INPUT' ? 'an input of type ' + el.type : 'a ' + role);
        return info;
      }
    }
    // A target wholly in view is acted on where it is; any other is centred first.
    var scrolled = !t.point && !inView(el, rect);
    if (scrolled) el.scrollIntoView(CENTRE);
    // Hover, drag and upload point at their target as a press does (see gesture.rs).
    var pointing = a.mode === 'invoke' || a.mode === 'hover' || a.mode === 'drag' || a.mode === 'upload';
    if (pointing && t.point) {
      // A point is pressed exactly where it was named, on whatever lies there.
      info.x = t.point[0];
      info.y = t.point[1];
    } else if (pointing) {
      var at = pressPoint(el);
      // In view but covered where it is (a sticky header over it): centred, it may not be.
      if (!at.ok && !scrolled) {
        el.scrollIntoView(CENTRE);
        at = pressPoint(el);
      }
      if (!at.ok) {
        info.status = 'obscured';
        info.cover = at.cover;
        return info;
      }
      info.x = at.x;
      info.y = at.y;
      if (a.mode === 'drag') info.draggable = !!el.closest('[draggable="true"],a[href],img');
    } else {
      el.focus({ preventScroll: true });
      if (a.mode === 'fill') {
        if (el.tagName === 'SELECT') {
          info.kind = 'select';
          var want = norm(a.text);
          var opts = Array.prototype.slice.call(el.options);
          var match = opts.filter(function (o) { return norm(o.text) === want; })[0]
            || opts.filter(function (o) { return o.value === a.text; })[0];
          if (!match) {
            info.status = 'no_option';
            info.options = opts.map(function (o) { return norm(o.text); });
            return info;
          }
          el.value = match.value;
          info.chosen = norm(match.text);
          el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        } else if (el.isContentEditable && el.tagName !== 'INPUT' && el.tagName !== 'TEXTAREA') {
          info.kind = 'contenteditable';
          var range = el.ownerDocument.createRange();
          range.selectNodeContents(el);
          var selection = el.ownerDocument.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
          if (a.text === '') el.ownerDocument.execCommand('delete');
        } else {
          var typable = el.tagName === 'TEXTAREA' || TYPABLE[el.type];
          if (a.text === '' || !typable) {
            // Empty text, and types whose value is not typed character by character
            // (number, date, time…), get the value set directly, then an input event.
            var desc = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value');
            desc.set.call(el, el.tagName === 'TEXTAREA' ? a.text : a.text.replace(/[\r\n]/g, ''));
            el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
            info.kind = 'set';
          } else {
            try { el.select(); } catch (e) { el.setSelectionRange(0, el.value.length); }
            info.kind = el.tagName === 'TEXTAREA' ? 'multiline' : 'line';
          }
        }
      }
    }
    armNavigation();
    if (a.mode === 'invoke') {
      armOn(el.ownerDocument, 'click', a.quiet_ms, a.max_ms);
      hearInput(el.ownerDocument, ['pointermove', 'mousemove', 'pointerdown', 'mousedown'], 'click');
    }
    if (a.mode === 'press') {
      armOn(el.ownerDocument, 'keyup', a.quiet_ms, a.max_ms);
      hearInput(el.ownerDocument, ['keydown'], 'keyup');
    }
    info.status = 'ok';
    return info;
  }

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
    if (hit && reaches(hit, el)) return { ok: true, x: x, y: y };
    return { ok: false, cover: hit ? describe(hit) : 'nothing' };
  }

  // Whether a press whose target is `hit` reaches `el`: `hit` is `el` or inside it, or a
  // label of it, or inside the button or link `el` is part of (Playwright's retargeting:
  // a press on a button's padding beside its icon is the button's).
  function reaches(hit, el) {
    if (composedContains(el, hit)) return true;
    if (hit.tagName === 'LABEL' && hit.control === el) return true;
    for (var n = hit; n; n = n.parentNode || n.host) {
      if (n.tagName === 'LABEL' && n.control === el) return true;
    }
    if (!el.matches || el.matches('input, textarea, select') || el.isContentEditable) return false;
    var owner = el.closest('button, [role=button], a, [role=link]');
    return !!owner && composedContains(owner, hit);
  }

  // Stability (Playwright's): the box must be the same in two animation frames in a row
  // before a pointer is aimed at it (a modal popping in, a list sliding open). Waiting two
  // frames costs two frames; it is waited only when something could be moving the box: an
  // animation or transition running on it or an ancestor (frames included), one anywhere
  // in its document that changes layout, or an animation-frame callback of the page
  // pending (a script animating it). Anything else that moves it between the check and
  // the press (a timer's layout shift) is caught when the press arrives (see aimHits).
  var PAINT_ONLY = /^(opacity|transform|translate|rotate|scale|color|background-color|background-position|background-image|filter|backdrop-filter|box-shadow|text-shadow|outline|outline-color|outline-width|outline-offset|border-color|border-(top|right|bottom|left)-color|fill|stroke|stroke-.+|clip-path|visibility|offset|offset-.+|z-index|caret-color|text-decoration-color|accent-color)$/;
  function mayMove(el) {
    for (var node = el; node;) {
      var doc = node.ownerDocument, win = doc.defaultView;
      if (!win || win.__wmFrames === undefined || win.__wmFrames.size > 0) return true;
      if (typeof doc.getAnimations !== 'function') return true;
      var anims = doc.getAnimations();
      if (anims.length) {
        var up = new Set();
        for (var p = node; p; p = flatParent(p)) up.add(p);
        for (var i = 0; i < anims.length; i++) {
          var an = anims[i];
          if (an.playState !== 'running') continue;
          var tgt = an.effect && an.effect.target;
          if (!tgt || up.has(tgt) || movesLayout(an)) return true;
        }
      }
      node = win.frameElement;
    }
    return false;
  }

  function movesLayout(an) {
    if (an.transitionProperty) return !PAINT_ONLY.test(an.transitionProperty);
    var frames;
    try { frames = an.effect.getKeyframes(); } catch (e) { return true; }
    for (var i = 0; i < frames.length; i++) {
      for (var k in frames[i]) {
        if (k === 'offset' || k === 'computedOffset' || k === 'easing' || k === 'composite') continue;
        var prop = k.replace(/[A-Z]/g, function (m) { return '-' + m.toLowerCase(); });
        if (!PAINT_ONLY.test(prop)) return true;
      }
    }
    return false;
  }

  // Resolves with null when `el`'s box is the same in the next two animation frames, else
  // with the two boxes seen. A page that renders no frame (hidden, throttled) is looked
  // at FRAME_MOST_MS apart instead.
  function steadyBox(el) {
    return new Promise(function (resolve) {
      var box = function () {
        var r = el.getBoundingClientRect();
        return [r.left, r.top, r.width, r.height];
      };
      var frame = function (fn) {
        var done = false;
        var once = function () { if (!done) { done = true; fn(); } };
        onFrame(once);
        setTimeout(once, FRAME_MOST_MS);
      };
      frame(function () {
        var first = box();
        frame(function () {
          var second = box();
          var same = first.every(function (v, i) { return v === second[i]; });
          resolve(same ? null : [first, second]);
        });
      });
    });
  }

  // The events of a trusted press that must reach its target, by gesture (Playwright's):
  // checked on the first of them to arrive, and every one of them stopped when that one
  // went elsewhere, so a press that would land beside its target changes nothing.
  var HIT_EVENTS = {
    mouse: ['mousedown', 'mouseup', 'pointerdown', 'pointerup', 'click', 'auxclick', 'dblclick', 'contextmenu'],
    hover: ['mousemove']
  };

  // Listens in `win`, capturing at the window (before any listener of the page's own made
  // after it: watched from before the document's scripts), for the trusted events of a
  // press aimed at a target (see aimHits).
  function watchHits(win) {
    if (!win || win.__wmHits) return;
    win.__wmHits = true;
    var listen = win.__wmListen || win.addEventListener;
    var hear = function (e) { var h = win.__wmHit; if (h) h.hear(e); };
    HIT_EVENTS.mouse.concat(HIT_EVENTS.hover).forEach(function (type) { listen.call(win, type, hear, true); });
  }

  // From now until the settle after the action, the press's events in `el`'s window must
  // reach `el` (see reaches): the first one's target decides, and when it is another
  // element every one is stopped before the page sees it (see pressMissed).
  function aimHits(el, kind) {
    var win = el.ownerDocument.defaultView;
    if (!win) return;
    watchHits(win);
    var types = {};
    HIT_EVENTS[kind].forEach(function (t) { types[t] = 1; });
    var r0 = el.getBoundingClientRect();
    var h = W.pressed = win.__wmHit = {
      win: win, result: undefined, moved: false,
      hear: function (e) {
        if (!e.isTrusted || !types[e.type]) return;
        if (h.result === undefined) {
          var path = e.composedPath ? e.composedPath() : [e.target];
          var hit = path[0] && path[0].nodeType === 1 ? path[0] : e.target;
          if (hit && hit.nodeType === 1 && reaches(hit, el)) h.result = 'done';
          else {
            h.result = hit && hit.nodeType === 1 ? describe(hit) : 'nothing';
            var r1 = el.isConnected ? el.getBoundingClientRect() : null;
            h.moved = !r1 || r1.left !== r0.left || r1.top !== r0.top || r1.width !== r0.width || r1.height !== r0.height;
          }
        }
        if (h.result !== 'done') {
          e.preventDefault();
          e.stopPropagation();
          e.stopImmediatePropagation();
        }
      }
    };
  }

  // What the last aimed press hit, once it is over: null when it reached its target (or
  // none of its events came), else {hit, moved}. Ends the watch.
  function pressMissed() {
    var h = W.pressed;
    if (!h) return null;
    W.pressed = null;
    if (h.win.__wmHit === h) h.win.__wmHit = null;
    return h.result !== undefined && h.result !== 'done' ? { hit: h.result, moved: h.moved } : null;
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
    // The address before the action: only a hash the action moved is waited for (see
    // quietWatch). An app that put its route in the address with replaceState (`/#/`) as
    // it loaded fired no hashchange, and would otherwise wait on every action.
    W.href = location.href;
    W.hashPending = false;
    W.downloadAsked = false;
    if (window.__wmNavArmed) return;
    window.__wmNavArmed = true;
    if (window.navigation && window.navigation.addEventListener) {
      window.navigation.addEventListener('navigate', function (e) {
        // A download (`<a download>`, to a blob, a `data:` address or a file) leaves the
        // document where it is: the runner reports it, and waits for no load.
        if (e.downloadRequest !== null && e.downloadRequest !== undefined) W.downloadAsked = true;
        else if (!e.destination || !e.destination.sameDocument) window.__wmNav = true;
        // A fragment navigation queues a hashchange; pushState and replaceState queue none.
        else if (e.hashChange) W.hashPending = true;
      });
      window.addEventListener('hashchange', function () { W.hashPending = false; }, true);
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
    if (a.focused) {
      // Whatever has the focus now, down through shadow roots and same-origin frames.
      var f = document.activeElement;
      for (var depth = 0; f && depth < 32; depth++) {
        var inner = f.shadowRoot && f.shadowRoot.activeElement;
        if (!inner && f.tagName === 'IFRAME') {
          try { inner = f.contentDocument && f.contentDocument.activeElement; } catch (e) { inner = null; }
        }
        if (!inner) break;
        f = inner;
      }
      return { el: f || document.body || document.documentElement, keep: true };
    }
    var found = findAll(a.anchor, a.key);
    if (a.nth !== null && a.nth !== undefined) {
      // The n-th of the anchor's controls in document order (Playwright's `nth`); past the
      // last, missing, with how many there are.
      found = inDocumentOrder(found);
      if (a.nth >= found.length) return { info: { status: 'not_found', count: found.length, nth: a.nth, unkeyed: 0 } };
      return { el: found[a.nth].el };
    }
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

  // `found` ({el} each) in document order: the order of the composed tree, a shadow tree's
  // elements where its host is, a frame's after the frame's own element.
  function inDocumentOrder(found) {
    var path = function (el) {
      var p = [];
      for (var n = el; n;) {
        var parent = n.parentNode;
        if (!parent) {
          // A shadow root's host, or a frame's element: the path goes on from it.
          var up = n.host || (n.defaultView && n.defaultView.frameElement) || null;
          p.push(-1);
          n = up;
          continue;
        }
        p.push(Array.prototype.indexOf.call(parent.childNodes, n));
        n = parent;
      }
      return p.reverse();
    };
    var keyed = found.map(function (f) { return { f: f, p: path(f.el) }; });
    keyed.sort(function (a, b) {
      for (var i = 0; i < a.p.length && i < b.p.length; i++) {
        if (a.p[i] !== b.p[i]) return a.p[i] - b.p[i];
      }
      return a.p.length - b.p.length;
    });
    return keyed.map(function (k) { return k.f; });
  }

  // prepare(a), with the frames stability asks for waited (see mayMove): its answer, or a
  // promise of it when frames had to be waited (`not_stable` when the box moved in them).
  function attempt(a) {
    a.steady = false;
    var info = prepare(a);
    if (info.status !== 'unsteady') return info;
    var el = W.target;
    return steadyBox(el).then(function (boxes) {
      if (boxes) {
        info.status = 'not_stable';
        info.boxes = boxes;
        return info;
      }
      a.steady = true;
      var again = prepare(a);
      a.steady = false;
      return again;
    });
  }

  function prepare(a) {
    disarm();
    pressMissed();
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
    if (!t.keep && !visibleOf(el, rect.width, rect.height)) { info.status = 'hidden'; return info; }
    if (a.mode !== 'hover' && a.mode !== 'scroll' && disabledOf(el, undefined, undefined, role)) { info.status = 'disabled'; return info; }
    if (a.mode === 'fill') {
      if (!editableOf(el)) {
        info.status = 'not_editable';
        info.why = el.readOnly || ariaReadonly(el) ? 'read-only' : (el.tagName === 'INPUT' ? 'an input of type ' + el.type : 'a ' + role);
        return info;
      }
    }
    // A target wholly in view is acted on where it is; any other is centred first.
    var scrolled = !t.point && !t.keep && !inView(el, rect);
    if (scrolled) el.scrollIntoView(CENTRE);
    // Hover, drag and upload point at their target as a press does (see gesture.rs).
    var pointing = a.mode === 'invoke' || a.mode === 'hover' || a.mode === 'drag' || a.mode === 'upload';
    if (pointing && t.point) {
      // A point is pressed exactly where it was named, on whatever lies there.
      info.x = t.point[0];
      info.y = t.point[1];
    } else if (pointing) {
      // Aimed only at a box seen steady (see mayMove, and `attempt`, which waits the frames).
      if (!a.steady && (a.frames || mayMove(el))) { info.status = 'unsteady'; return info; }
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
    } else if (a.mode === 'scroll') {
      // Scrolled into view above, when it was not wholly in view; nothing else.
      info.scrolled = scrolled;
    } else {
      if (!t.keep) el.focus({ preventScroll: true });
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
    // The press must reach its target when it comes (see aimHits); a drag is checked
    // before it only (as Playwright's: the page may move what is dragged under it).
    if (pointing && !t.point && a.mode !== 'drag') aimHits(el, a.mode === 'hover' ? 'hover' : 'mouse');
    if (a.mode === 'invoke') {
      // The last event of the click: `contextmenu` for a right one, `auxclick` for a
      // middle one, `dblclick` for a double one.
      var last = a.arm || 'click';
      armOn(el.ownerDocument, last, a.quiet_ms, a.max_ms);
      hearInput(el.ownerDocument, ['pointermove', 'mousemove', 'pointerdown', 'mousedown'], last);
    }
    if (a.mode === 'press') {
      armOn(el.ownerDocument, 'keyup', a.quiet_ms, a.max_ms);
      hearInput(el.ownerDocument, ['keydown'], 'keyup');
    }
    info.status = 'ok';
    return info;
  }

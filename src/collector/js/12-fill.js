// Filling a field: who types it, its end, a handoff.

  // Whether anything in a window could tell typing from an editing command the page runs
  // itself (see `fill`): a listener for `beforeinput` or `textInput`, which only typing
  // fires, or for the focus and selection events, which fire a task apart from the typing
  // when it comes over CDP but before it when the page types in the same task (a focus
  // handler that reformats the field in a timer would then act on the typed text). Watched
  // from before the document's own scripts (once per window), by the listener
  // registrations and handler properties it makes; handler attributes are looked for when a
  // field is typed into (see canType).
  var HEARD = { beforeinput: 1, textInput: 1, focus: 1, focusin: 1, select: 1, selectstart: 1, selectionchange: 1 };
  var HEARD_ON = ['onbeforeinput', 'onfocus', 'onselect', 'onselectstart', 'onselectionchange'];
  var HEARD_ATTRS = HEARD_ON.map(function (h) { return '[' + h + ']'; }).join(',');
  function watchListeners(win) {
    if (!win || win.__waymarkListeners !== undefined) return;
    win.__waymarkListeners = false;
    var proto = win.EventTarget && win.EventTarget.prototype;
    var add = proto && proto.addEventListener;
    if (typeof add !== 'function') return;
    // Kept for waymark's own listeners (see watch), which the page does not make.
    win.__wmListen = add;
    proto.addEventListener = function (type) {
      if (HEARD[type]) win.__waymarkListeners = true;
      return add.apply(this, arguments);
    };
    [win.HTMLElement, win.Document, win.Window].forEach(function (c) {
      HEARD_ON.forEach(function (name) {
        var d = c && Object.getOwnPropertyDescriptor(c.prototype, name);
        if (!d || !d.set || !d.configurable) return;
        Object.defineProperty(c.prototype, name, {
          configurable: true, enumerable: d.enumerable, get: d.get,
          set: function (v) { win.__waymarkListeners = true; d.set.call(this, v); }
        });
      });
    });
  }

  // The kinds of field prepare leaves for typing (the others it sets itself).
  var TYPED = { line: 1, multiline: 1, contenteditable: 1 };

  // The page may type into `el` itself: nothing in it could tell (see watchListeners).
  // Unknown (a document loaded before the watch) counts as listening.
  function canType(el) {
    var win = el.ownerDocument.defaultView;
    return !!win && win.__waymarkListeners === false && !el.closest(HEARD_ATTRS);
  }

  // The field's change (unless the fill trip sent it, see `fill`), then the value it holds.
  function finishFill(a, change) {
    var found = a.anchor ? findAll(a.anchor, a.key)
      : (W.target && W.target.isConnected ? [{ el: W.target }] : []);
    if (found.length !== 1) return { status: 'lost', count: found.length };
    var el = found[0].el;
    if (change) el.dispatchEvent(new Event('change', { bubbles: true }));
    var actual = el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' ? el.value
      : el.tagName === 'SELECT' ? norm((el.options[el.selectedIndex] || {}).text || '')
      : norm(el.textContent);
    return { status: 'ok', actual: isSecret(el) ? (actual === a.expected ? a.expected : '[redacted]') : actual };
  }

  // A handoff: while it lasts, every field the person types into is remembered, and reads
  // from then on give its value as `[redacted]`.
  function handoffMark(on) {
    W.handoff = on;
    if (!W.typed) W.typed = new WeakSet();
    if (W.handoffHeard) return;
    W.handoffHeard = true;
    var hear = function (e) {
      if (!W.handoff) return;
      var t = e.composedPath ? e.composedPath()[0] : e.target;
      if (t && t.nodeType === 1) W.typed.add(t);
    };
    document.addEventListener('input', hear, true);
    document.addEventListener('change', hear, true);
    document.addEventListener('keydown', hear, true);
  }

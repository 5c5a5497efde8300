// The state kept on the page's window, and its watchers.

  // Kept on the page's window between evaluations: a token naming this document, element
  // ids, the last read's records, and what changed since (a MutationObserver on every root,
  // input events for values that change without a mutation).
  var W = window.__waymark;
  if (!W) {
    W = window.__waymark = {
      doc: Math.random().toString(36).slice(2),
      epoch: 0,
      dirty: true,
      valuesDirty: false,
      // The roots may have changed in a way no mutation record shows (see rootsHold).
      rootsUnknown: false,
      roots: null,
      // Element ids live on the elements, under this document's own symbol (see idOf).
      idKey: Symbol('waymark id'),
      ids: null,
      nextId: 1,
      watched: new WeakSet(),
      observer: null,
      cache: null,
      // Roles and regions repeat from control to control: records name them by their index
      // in this table, which only grows for the life of the document, so an index means the
      // same string in every read of it (a delta sends only the entries added since its base).
      strs: [],
      strIdx: new Map(),
      // For settle: how many mutation batches the observer has seen.
      mutations: 0,
      // The mutations since the last read, for a read that gathers again only what they
      // could have changed (see affectedBy); null once there were too many to be worth it.
      log: [],
      // The ids controls' names refer to (aria-labelledby), as the names were last read.
      refIds: new Set(),
      // Boxes or visibility may have changed with no mutation since the last read (a
      // scroll, a load, an animation, a popover, a style sheet edited in script): the next
      // read takes every control's box and visibility again (see shifted).
      moved: false,
      // There was input since the last read (a pointer, a key, the focus, a value): it
      // changes the states style rules select on (:hover, :checked, :focus-within…).
      stirred: false,
      // Whether a rule on such a state could move or hide a box (see styleFollowsState),
      // and the style sheets that answer is of (both kept by ruleStops); null until asked
      // again after a sheet was edited in script.
      stateful: null,
      statefulSheets: null,
      // The selectors of the style rules that can hide an element that has a box, as
      // {sel} (see hidingSelectors), and the sheets they are of; the elements that became
      // one of the HIDERS since the last scan (see madeSince).
      hides: null,
      hidesSheets: null,
      // Whether a style rule can give an element generated content (see generatedOn), and
      // the sheets that answer is of.
      generated: null,
      generatedSheets: null,
      hiders: [],
      // The selectors of the style rules that make what they select clip its overflow
      // (see clippingSelectors), and the sheets they are of; the elements whose style
      // attribute came to name overflow since the last scan (see clippersIn).
      clips: null,
      clipsSheets: null,
      clippers: [],
      // The window scrolled: only what is pinned to the viewport moves (see pinnedControls,
      // null until found again after a mutation).
      scrolled: false,
      pinned: null,
      // What the rules of style sheets of another origin hold, by address, as the runner
      // sent it (see sheetFacts, takeSheets); the sheets' text never enters the page.
      // `sheetsAsked`: the addresses already named to the runner; `sheetsUnread`: those to
      // name in the next read's answer.
      sheetFacts: new Map(),
      sheetsAsked: new Set(),
      sheetsUnread: []
    };
    W.observer = new MutationObserver(function (records) {
      W.dirty = true;
      W.pinned = null;
      W.mutations++;
      W.matchStale = true;
      // An action waiting for its target tries again (see prepareWaiting).
      if (W.wakers) W.wakers.forEach(function (wake) { wake(); });
      // Past LOG_MOST records the log is dropped: the next read gathers everything again,
      // and the roots are found again until then (see collectRoots).
      if (W.log && W.log.length + records.length > LOG_MOST) W.log = null;
      else if (W.log) for (var j = 0; j < records.length; j++) W.log.push(records[j]);
    });
    // The address as the page last heard of it: a hash route changed by an action is
    // settled only once its `hashchange` has run (see quietWatch).
    W.href = location.href;
    window.addEventListener('hashchange', function () { W.href = location.href; }, true);
  }

  function watch(root) {
    if (W.watched.has(root)) return;
    W.watched.add(root);
    W.observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    // A value typed or picked changes no attribute: the field its input or change event
    // names is read again (labels, roles, regions and boxes only change with a mutation).
    // What the app sets in answer (a line total, a "same as billing" button's copy) goes
    // through the setters below, which name their field too.
    var mark = function (e) { valueChanged(e.composedPath ? e.composedPath()[0] : e.target); };
    root.addEventListener('input', mark, true);
    root.addEventListener('change', mark, true);
    // A form's reset puts back every field of it, with no event but its own.
    root.addEventListener('reset', function () { valueChanged(null); }, true);
    // What moves or hides boxes with no mutation, and the input that changes the states
    // style rules select on (see shifted). Captured at the root: none of these bubble out
    // of a shadow root, and scroll, load and toggle do not bubble at all.
    var win = (root.ownerDocument || root).defaultView, listen = (win && win.__wmListen) || root.addEventListener;
    Object.keys(SHIFTS).forEach(function (type) { listen.call(root, type, SHIFTS[type], true); });
    watchSetters(win);
    watchFrames(win);
  }

  function boxesMoved() { W.moved = true; }
  function stirred() { W.stirred = true; }
  // The top document's scroll moves only what is pinned to the viewport; any other scroll
  // (an element's, a frame's) moves what it holds.
  function scrolled(e) {
    if (e.target === document && window.top === window) W.scrolled = true;
    else W.moved = true;
  }
  // A transition of a property that only paints (a hover colour) moves nothing.
  function transitioned(e) {
    if (!PAINTS[e.propertyName]) W.moved = true;
  }
  // The events each root is watched for, by what they tell the next read (see shifted):
  // that boxes moved, that the window or an element scrolled, that there was input.
  var SHIFTS = {};
  ['load', 'error', 'toggle', 'beforetoggle', 'animationstart', 'animationend', 'animationcancel',
    'animationiteration'].forEach(function (t) { SHIFTS[t] = boxesMoved; });
  // A frame's load is a new document in it, whose controls no mutation of this one shows:
  // the roots are found again (as after a shadow root attached, see rootsAttached), and the
  // new root's controls gathered. (A frame loading after the page's first read, taken as
  // its DOM was parsed, was missed.)
  SHIFTS.load = function (e) {
    var t = e.target;
    if (t && (t.tagName === 'IFRAME' || t.tagName === 'FRAME')) W.rootsUnknown = W.dirty = W.matchStale = true;
    W.moved = true;
  };
  ['transitionrun', 'transitionend', 'transitioncancel'].forEach(function (t) { SHIFTS[t] = transitioned; });
  SHIFTS.scroll = scrolled;
  ['mouseover', 'mouseout', 'mousedown', 'mouseup', 'click', 'focusin', 'focusout', 'keydown',
    'keyup'].forEach(function (t) { SHIFTS[t] = stirred; });

  // `el`'s value or checked state may have changed: the next read looks at it again
  // (W.valuesDirty holds the fields to look at, or is true for every field). A radio
  // button's change unchecks the others of its group, which no event names; with no
  // field named (a reset, a frame's field), every field is looked at.
  function valueChanged(el) {
    if (W.valuesDirty === true) return;
    if (!el || el.nodeType !== 1 || (el.tagName === 'INPUT' && el.type === 'radio')) {
      W.valuesDirty = true;
      return;
    }
    (W.valuesDirty || (W.valuesDirty = new Set())).add(el);
  }

  // A value or checked state set in script fires no event and mutates nothing: the
  // window's setters for them, and its methods that step or splice a value, say so (once
  // per window; the page's own setter still runs). An options collection's index names no
  // field of its own.
  var SETTERS = [['HTMLInputElement', ['value', 'checked', 'valueAsNumber', 'valueAsDate', 'files']],
    ['HTMLTextAreaElement', ['value']], ['HTMLSelectElement', ['value', 'selectedIndex']],
    ['HTMLOptionElement', ['selected']], ['HTMLOptionsCollection', ['selectedIndex']]];
  var SETTING = [['HTMLInputElement', ['stepUp', 'stepDown', 'setRangeText']],
    ['HTMLTextAreaElement', ['setRangeText']]];
  // What restyles a page in script with no mutation, by what it changes: `sheet` the style
  // sheets, `rule` a declaration (a rule's; an element's own style mutates its attribute),
  // `state` what rules select on (a custom element defined, :defined; a custom state,
  // :state()) or an element's style (a script's animation). Methods, then setters.
  var RESTYLING = [
    ['CSSStyleSheet', 'sheet', ['insertRule', 'deleteRule', 'addRule', 'removeRule', 'replace', 'replaceSync']],
    ['CSSGroupingRule', 'sheet', ['insertRule', 'deleteRule']],
    ['CSSStyleDeclaration', 'rule', ['setProperty', 'removeProperty']],
    ['CustomElementRegistry', 'state', ['define']],
    ['CustomStateSet', 'state', ['add', 'delete', 'clear']],
    ['Element', 'state', ['animate']]];
  var RESTYLED_BY = [['Document', 'sheet', 'adoptedStyleSheets'], ['ShadowRoot', 'sheet', 'adoptedStyleSheets'],
    ['CSSStyleSheet', 'sheet', 'disabled'], ['CSSStyleDeclaration', 'rule', 'cssText']];
  // A declaration set by name (`rule.style.visibility = 'hidden'`) calls no method and no
  // setter that can be watched: the page reading a rule's declarations is watched instead,
  // as a change to the sheets. (One it kept from an earlier read and sets by name later
  // goes unseen until the sheets change.)
  var RULES_WITH_STYLE = ['CSSStyleRule', 'CSSPageRule', 'CSSKeyframeRule', 'CSSFontFaceRule',
    'CSSNestedDeclarations', 'CSSPositionTryRule', 'CSSFunctionDeclarations'];

  // Style changed in script (see watchSetters), a change of `kind` (see RESTYLING) made on
  // `self`: every box is taken again, and after a change to the sheets, whether style
  // follows state and what is pinned are asked again; so in the top document, as for a
  // shadow root.
  function restyled(kind, self) {
    if (kind === 'rule' && !self.parentRule) return;
    var sheets = kind !== 'state';
    [W, topState()].forEach(function (w) {
      if (!w) return;
      w.moved = true;
      if (sheets) w.stateful = w.pinned = w.hides = w.generated = w.clips = null;
    });
  }

  // The top document's state, from a frame: null in the top document itself, and in a
  // frame whose top is of another origin (that top reads nothing of it).
  function topState() {
    if (window.top === window) return null;
    try { return window.top.__waymark || null; } catch (e) { return null; }
  }

  // A shadow root was attached (see watchSetters): this document's next read finds its
  // roots again, and so does the top document's, as for a value (see valuesSet).
  function rootsAttached() {
    W.rootsUnknown = W.dirty = W.matchStale = true;
    var top = topState();
    if (top) top.rootsUnknown = top.dirty = top.matchStale = true;
  }

  // A value was set in script on `el` (an option: on its select; none named: on any
  // field): this document's next read looks at it again, and the top document's at every
  // field, as it reads this one's when it is a frame (the setters of a frame's window are
  // its own collector's when it was installed there first).
  function valuesSet(el) {
    if (el && el.tagName === 'OPTION') el = el.closest('select');
    valueChanged(el);
    var top = topState();
    if (top) top.valuesDirty = true;
  }

  function watchSetters(win) {
    if (!win || win.__waymarkSetters) return;
    win.__waymarkSetters = true;
    // A shadow root attached to an element in place mutates nothing: the roots are found
    // again (see rootsHold).
    var element = win.Element && win.Element.prototype, attach = element && element.attachShadow;
    if (typeof attach === 'function') {
      element.attachShadow = function () { rootsAttached(); return attach.apply(this, arguments); };
    }
    // Style edited in script, a custom element defined (:defined) or a custom state set
    // (:state()) mutate nothing, and may move or hide anything.
    RESTYLING.forEach(function (s) {
      var proto = win[s[0]] && win[s[0]].prototype;
      s[2].forEach(function (name) {
        var f = proto && Object.prototype.hasOwnProperty.call(proto, name) && proto[name];
        if (typeof f === 'function') proto[name] = function () { restyled(s[1], this); return f.apply(this, arguments); };
      });
    });
    RESTYLED_BY.forEach(function (s) {
      var proto = win[s[0]] && win[s[0]].prototype;
      var d = proto && Object.getOwnPropertyDescriptor(proto, s[2]);
      if (!d || !d.set || !d.configurable) return;
      Object.defineProperty(proto, s[2], {
        configurable: true, enumerable: d.enumerable, get: d.get,
        set: function (v) { restyled(s[1], this); d.set.call(this, v); }
      });
    });
    RULES_WITH_STYLE.forEach(function (name) {
      var proto = win[name] && win[name].prototype;
      ['style', 'styleMap'].forEach(function (prop) {
        var d = proto && Object.getOwnPropertyDescriptor(proto, prop);
        if (!d || !d.get || !d.configurable) return;
        // The collector's own reads go past the watch (see styleOf); a prototype that
        // takes no new property is left unwatched.
        if (prop === 'style') {
          try { Object.defineProperty(proto, '__wmStyle', { value: d.get }); } catch (e) { return; }
        }
        Object.defineProperty(proto, prop, {
          configurable: true, enumerable: d.enumerable, set: d.set,
          get: function () { restyled('sheet', this); return d.get.call(this); }
        });
      });
    });
    if (win.addEventListener) {
      win.addEventListener('resize', boxesMoved);
      win.addEventListener('hashchange', stirred);
      win.addEventListener('fullscreenchange', boxesMoved);
    }
    if (win.document && win.document.fonts && win.document.fonts.addEventListener) {
      win.document.fonts.addEventListener('loadingdone', boxesMoved);
    }
    SETTERS.forEach(function (s) {
      var proto = win[s[0]] && win[s[0]].prototype;
      s[1].forEach(function (name) {
        var d = proto && Object.getOwnPropertyDescriptor(proto, name);
        if (!d || !d.set || !d.configurable) return;
        Object.defineProperty(proto, name, {
          configurable: true, enumerable: d.enumerable, get: d.get,
          set: function (v) { valuesSet(this); d.set.call(this, v); }
        });
      });
    });
    SETTING.forEach(function (s) {
      var proto = win[s[0]] && win[s[0]].prototype;
      s[1].forEach(function (name) {
        var f = proto && proto[name];
        if (typeof f !== 'function') return;
        proto[name] = function () { valuesSet(this); return f.apply(this, arguments); };
      });
    });
  }

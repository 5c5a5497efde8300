// Whether a control is shown, or may have moved unseen.

  var VISIBILITY = { visibilityProperty: true };
  // Set by a read for the boxes it takes when nothing on the page can hide an element that
  // has a box (see trustBoxes): its box alone then says it is shown; but for the elements in
  // `unsure` (when not null), those inside the page's own hiders. `visChecks` counts the
  // checks made of controls, for the read's answer.
  var boxSays = false, unsure = null, visChecks = 0;

  // Shown, as Playwright's isVisible() decides: a non-empty box (width and height both
  // above zero: an empty paragraph 970 × 0 px is not shown) and not hidden by CSS
  // (`visibility`, `display: none` on it or above, `content-visibility`); an element
  // with `display: contents` has no box of its own and is shown when a child of it is.
  // The caller read the box. `exact`: asked of the browser even where a read trusts boxes
  // (an element that may sit past the cut, which the scan did not test).
  function visibleOf(el, width, height, exact) {
    if (!(width > 0 && height > 0)) return width === 0 && height === 0 && contentsShown(el);
    if (!exact) {
      if (boxSays && !(unsure && unsure.has(el))) return true;
      visChecks++;
    }
    // A boolean whatever a page's own checkVisibility answers: records hold it as one.
    return el.checkVisibility ? !!el.checkVisibility(VISIBILITY) : true;
  }

  // Whether an element without a box is `display: contents` with a shown child (an
  // element, or a text node with a box), as Playwright's isVisible() counts it.
  function contentsShown(el) {
    if (!el.firstChild || getComputedStyle(el).display !== 'contents') return false;
    for (var c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1) {
        var r = c.getBoundingClientRect();
        if (visibleOf(c, r.width, r.height, true)) return true;
      } else if (c.nodeType === 3) {
        var range = document.createRange();
        range.selectNode(c);
        var b = range.getBoundingClientRect();
        if (b.width > 0 && b.height > 0) return true;
      }
    }
    return false;
  }

  // Sets boxSays and unsure for the boxes a read takes of the roots `scans` are of: whether
  // anything on the page can hide an element that has a box (see visibleOf), and what. One
  // of the HIDERS, in a root's scan or made one since (W.hiders), hides only what it holds
  // (or itself); anything else may hide any control: a style rule
  // setting visibility or content-visibility that selects something (see styleHides), a
  // script's animation of either, and with shadow roots or frames an anchored element the
  // scan left untested past the cut (a shadow tree's may hold a control slotted from
  // before the cut). When all that can hide is the hiders of a page of one root, boxes say
  // what is shown but for the controls they hold: a closed <details> of a help section, or
  // one element a script set visibility on, had every control of the page asked (20 ms of
  // a 10,000-control read). With shadow roots, what a hider holds is its flat tree's
  // (slotted controls too): every control is asked.
  function trustBoxes(roots, scans) {
    clipping(roots, scans);
    unsure = null;
    var found = W.hiders.length > 0 || scans.some(function (sc) { return sc.hiders.length > 0; });
    var any = scans.some(function (sc) { return sc.untested && roots.length > 1; })
      || styleHides(roots) || animatesHiding(roots);
    boxSays = !any && !found;
    if (any || !found || roots.length > 1) return;
    var hiders = scans[0].hiders.concat(W.hiders), anchored = W.M ? '[data-anchor],' + W.M.sel : '[data-anchor]';
    unsure = new Set();
    for (var i = 0; i < hiders.length; i++) {
      unsure.add(hiders[i]);
      var inner = hiders[i].querySelectorAll(anchored);
      for (var j = 0; j < inner.length; j++) unsure.add(inner[j]);
    }
    boxSays = true;
  }

  // What a read's boxes are clipped by (see viewOf): the roots and their scans, set by
  // `clipping` before a read takes boxes, the clips found from them at the first box that
  // asks (`map`), and the positions looked up on the way (`pos`). Null between reads.
  var clipCtx = null;
  function clipping(roots, scans) {
    clipCtx = { roots: roots, scans: scans, map: null, pos: new Map() };
  }

  // The part of a control's box (`rect`, as the browser gave it, in its root's viewport)
  // that the elements clipping it let show, in box coordinates (`origin`, as its bbox):
  // undefined when nothing clips it, empty (no width and no height) when nothing of it
  // shows, rounded outwards to whole pixels. What the runner tells `in_viewport` by, as
  // Playwright's toBeInViewport tells it by an IntersectionObserver's ratio: a row scrolled out of a list that scrolls, a
  // button past a panel's hidden overflow, one below the fold of its frame is in no
  // viewport, whatever its box says. Clipping ancestors are those that hide their overflow
  // (any `overflow` but visible, `contain: paint`), a frame's viewport for its controls,
  // and a modal dialog (whose overflow scrolls), found by their style rules (see
  // clippingSelectors), their style attribute (see scan) or their tag; one clips a control
  // when the control's containing blocks lead through it (a fixed control, or an absolute
  // one whose positioned ancestor is outside it, escapes it).
  function viewOf(el, rect, origin) {
    if (!clipCtx) return undefined;
    var map = clipCtx.map || (clipCtx.map = clipsOf(clipCtx.roots, clipCtx.scans));
    var by = map.size ? map.get(el) : undefined;
    if (!by) return undefined;
    var l = rect.left, t = rect.top, r = rect.right, b = rect.bottom, cut = false;
    for (var i = 0; i < by.length; i++) {
      var c = by[i].rect;
      if (l >= c[0] && t >= c[1] && r <= c[2] && b <= c[3]) continue;
      if (by[i].el && escapes(el, by[i].el)) continue;
      l = Math.max(l, c[0]); t = Math.max(t, c[1]); r = Math.min(r, c[2]); b = Math.min(b, c[3]);
      cut = true;
    }
    if (!cut) return undefined;
    if (r <= l || b <= t) return [Math.round(l + origin[0]), Math.round(t + origin[1]), 0, 0];
    // Rounded outwards: a sliver under a pixel that shows (a ratio above 0) is not made
    // empty, nor one that shows at a viewport's edge moved past it.
    var x = Math.floor(l + origin[0]), y = Math.floor(t + origin[1]);
    return [x, y, Math.ceil(r + origin[0]) - x, Math.ceil(b + origin[1]) - y];
  }

  // Each anchored element's clipping ancestors, as {el, rect: [left, top, right, bottom]
  // of what shows through it, in its root's viewport}: a frame's viewport has no element
  // (nothing escapes it). Found per root: in a shadow root, the clipping ancestors of its
  // own tree (one outside it, around its host, is not looked through).
  function clipsOf(roots, scans) {
    var map = new Map(), sel = clippingSelectors(roots);
    var anchored = W.M ? '[data-anchor],' + W.M.sel : '[data-anchor]';
    function clipAt(el, c) {
      var l = map.get(el);
      if (l) l.push(c); else map.set(el, [c]);
    }
    roots.forEach(function (r, k) {
      var root = r.root, doc = root.nodeType === 9 ? root : root.ownerDocument, win = doc.defaultView;
      var els, i;
      // A frame's controls show through its viewport alone (its scrollbars left out).
      if (root.nodeType === 9 && win && win !== win.top && doc.documentElement) {
        var vp = { el: null, rect: [0, 0, doc.documentElement.clientWidth, doc.documentElement.clientHeight] };
        els = root.querySelectorAll(anchored);
        for (i = 0; i < els.length; i++) clipAt(els[i], vp);
      }
      var sc = scans[k], seen = new Set();
      var candidates = [sc ? sc.clippers : [], sc ? sc.dialogs : [], W.clippers];
      if (sel) {
        try { candidates.push(root.querySelectorAll(sel)); } catch (e) { /* a selector of another root's sheet */ }
      }
      candidates.forEach(function (list) {
        for (var j = 0; j < list.length; j++) {
          var c = list[j];
          if (seen.has(c) || !c.isConnected || (c.getRootNode() !== root)) continue;
          seen.add(c);
          var rect = clipRect(c, doc);
          if (!rect) continue;
          var inner = c.querySelectorAll(anchored), by = { el: c, rect: rect };
          for (var m = 0; m < inner.length; m++) clipAt(inner[m], by);
        }
      });
    });
    return map;
  }

  // What an element lets show of what it holds, as [left, top, right, bottom] in its
  // viewport (its padding box, scrollbars left out; unbounded along an axis it does not
  // clip), or null when it clips nothing: its overflow is visible both ways and it
  // contains no paint, or neither applies to its box: an inline box (an `<a>` holding a
  // control clips nothing, whatever its overflow), a table's row, column or their group.
  // The root element and the body pass their overflow to the viewport (the body unless
  // the root element clips too).
  var CLIPS_NOTHING = /^(none|contents|inline|ruby|ruby-text|table-(row|column|header-group|footer-group|row-group|column-group))$/;
  function clipRect(c, doc) {
    if (c === doc.documentElement) return null;
    var cs = getComputedStyle(c);
    if (CLIPS_NOTHING.test(cs.display)) return null;
    var paint = /paint|strict|content/.test(cs.contain);
    var x = paint || cs.overflowX !== 'visible', y = paint || cs.overflowY !== 'visible';
    if (!x && !y) return null;
    if (c === doc.body && getComputedStyle(doc.documentElement).overflowX === 'visible'
      && getComputedStyle(doc.documentElement).overflowY === 'visible') return null;
    var b = c.getBoundingClientRect(), l = b.left + c.clientLeft, t = b.top + c.clientTop;
    return [x ? l : -Infinity, y ? t : -Infinity, x ? l + c.clientWidth : Infinity, y ? t + c.clientHeight : Infinity];
  }

  // Whether `el`'s containing blocks lead out of `c`, an ancestor of its, before they reach
  // it: through a fixed element, or an absolute one with no positioned element between it
  // and `c` (nor `c` positioned). Transforms, which also contain what is fixed and absolute,
  // are not looked at.
  function escapes(el, c) {
    var want = false, x;
    for (x = el; x && x !== c; x = x.parentElement) {
      var p = positionOf(x);
      if (p === 'fixed') return true;
      if (want && p !== 'static') want = false;
      if (p === 'absolute') want = true;
    }
    return x !== c || (want && positionOf(c) === 'static');
  }
  function positionOf(x) {
    var p = clipCtx.pos.get(x);
    if (p === undefined) { p = getComputedStyle(x).position; clipCtx.pos.set(x, p); }
    return p;
  }

  // The selectors of the style rules of the roots' sheets that make what they select clip
  // its overflow (an `overflow` but visible, `contain` with paint), as one list ('' for
  // none), kept with the sheets they are of (as hidingSelectors keeps its own). A rule
  // whose selector cannot be asked of the page (nested, scoped, across a shadow boundary)
  // is left out, and so is a sheet of another origin not known yet: what they clip is
  // taken as not clipped.
  function clippingSelectors(roots) {
    var sheets = sheetsOf(roots);
    if (W.clips !== null && sameSheets(W.clipsSheets, sheets)) return W.clips;
    W.clipsSheets = sheets;
    sheets.forEach(askUnread);
    var selectors = [];
    sheets.forEach(function (sheet) {
      var found = clipsIn(sheet);
      if (found) selectors.push.apply(selectors, found);
    });
    W.clips = selectors.join(',');
    return W.clips;
  }
  // The selectors of `sheet`'s rules that clip (see clippingSelectors), or null when its
  // rules cannot be read and are not known.
  function clipsIn(sheet) {
    var selectors = [];
    var stop = eachRule(sheet, function (rule) {
      var style = styleOf(rule);
      if (!style || !clips(style)) return;
      var sel = askable(rule);
      if (sel !== null) selectors.push(sel);
    }, 'clips', selectors);
    return stop === STOP ? null : selectors;
  }
  var CLIPS = ['overflow-x', 'overflow-y', 'overflow-inline', 'overflow-block'];
  function clips(style) {
    for (var i = 0; i < CLIPS.length; i++) {
      var v = style.getPropertyValue(CLIPS[i]);
      if (v && v !== 'visible') return true;
    }
    return /paint|strict|content/.test(style.getPropertyValue('contain'));
  }

  // Whether an animation a script started (not a style sheet's animation or transition,
  // whose keyframes styleHides reads) animates visibility or content-visibility.
  function animatesHiding(roots) {
    return roots.some(function (r) {
      var list = r.root.getAnimations ? r.root.getAnimations() : [];
      for (var i = 0; i < list.length; i++) {
        var a = list[i];
        if (a.animationName !== undefined || a.transitionProperty !== undefined) continue;
        var frames = a.effect && a.effect.getKeyframes ? a.effect.getKeyframes() : null;
        if (!frames) return true;
        for (var k = 0; k < frames.length; k++) {
          if ('visibility' in frames[k] || 'contentVisibility' in frames[k]) return true;
        }
      }
      return false;
    });
  }

  // Whether boxes or visibility may have changed since the read `prev` with no mutation:
  // true when any may have (something moved them, see SHIFTS and restyled; or there was
  // input and a style rule on a state that input changes could move or hide a box: a panel
  // shown by :checked, a menu by :hover or :focus-within, a hint by :invalid), what is
  // pinned to the viewport when only the window scrolled (see pinnedControls; its scroll
  // event fires only with the next frame, so its offset is compared too), else false.
  function shifted(prev, roots) {
    if (W.moved) return true;
    if (W.stirred || W.valuesDirty) {
      if (styleFollowsState(roots)) return true;
    }
    if (W.scrolled || !prev.scroll || prev.scroll[0] !== scrollX || prev.scroll[1] !== scrollY) {
      return pinnedControls(roots) || true;
    }
    return false;
  }

  // The elements pinned to the viewport — positioned fixed or sticky by a rule or by its
  // style attribute, or shown in the top layer (a modal dialog, a popover, a full-screen
  // element) — and the anchored controls at or inside them (`holders`, `controls`), found
  // once per mutation. Null when they cannot be known that way: a shadow root or a frame (a
  // rule there may pin its host, or the frame scrolls its own), a sheet that cannot be
  // read, a selector that cannot be run.
  function pinnedControls(roots) {
    if (roots.length !== 1) return null;
    if (W.pinned) return W.pinned;
    var selectors = [], sheets = sheetsOf(roots);
    sheets.forEach(askUnread);
    var unknown = sheets.some(function (sheet) {
      var found = pinnedIn(sheet);
      if (found) selectors.push.apply(selectors, found);
      return !found;
    });
    if (unknown) return null;
    selectors.push('[style*="fixed" i]', '[style*="sticky" i]', ':modal', ':popover-open', ':fullscreen');
    // (A pseudo-element's selector, a fixed ::before, matches nothing and holds no control.)
    var holders;
    try { holders = document.querySelectorAll(selectors.join(',')); } catch (e) { return null; }
    var found = new Set();
    for (var i = 0; i < holders.length; i++) {
      if (anchorOf(holders[i]) !== null) found.add(holders[i]);
      var inner = holders[i].querySelectorAll(W.M ? '[data-anchor],' + W.M.sel : '[data-anchor]');
      for (var j = 0; j < inner.length; j++) if (!W.M || anchorOf(inner[j]) !== null) found.add(inner[j]);
    }
    W.pinned = { holders: holders.length, controls: Array.from(found) };
    return W.pinned;
  }

  // The selectors of `sheet`'s rules that pin what they select to the viewport (see
  // pinnedControls), or null when they cannot be known.
  function pinnedIn(sheet) {
    var selectors = [];
    var stop = eachRule(sheet, function (rule) {
      var style = styleOf(rule), pos = style && style.position;
      if (pos !== 'fixed' && pos !== 'sticky' && pos !== '-webkit-sticky') return;
      // Nested declarations pin what their parent rule selects: not looked for.
      if (typeof rule.selectorText !== 'string') return STOP;
      selectors.push(rule.selectorText);
    }, 'pinned', selectors);
    return stop === STOP ? null : selectors;
  }

  // The states a rule may select on that change with no mutation: by pointer, key, focus
  // and value, by the address's fragment, by what the browser shows on top, and by script
  // through custom states (an attribute-driven state, :disabled say, mutates).
  var STATEFUL = /:(hover|active|focus|checked|indeterminate|default|valid|invalid|user-|in-range|out-of-range|placeholder-shown|blank|target|open|closed|popover-open|modal|playing|paused|fullscreen|picture-in-picture|autofill|-webkit-autofill|state\(|-internal-)/;
  // Properties that only paint: a rule setting nothing else moves and hides no box (the
  // usual :hover colour, :focus outline, :active background).
  var PAINTS = {};
  ('color opacity cursor pointer-events user-select -webkit-user-select touch-action z-index '
    + 'background-color background-image background-position-x background-position-y '
    + 'background-size background-repeat background-attachment background-origin '
    + 'background-clip background-blend-mode border-top-color border-right-color '
    + 'border-bottom-color border-left-color border-block-start-color border-block-end-color '
    + 'border-inline-start-color border-inline-end-color outline-color outline-style '
    + 'outline-width outline-offset text-decoration-line text-decoration-color '
    + 'text-decoration-style text-decoration-thickness text-decoration-skip-ink '
    + 'text-underline-offset text-shadow box-shadow filter backdrop-filter mix-blend-mode '
    + 'fill fill-opacity stroke stroke-opacity caret-color accent-color scrollbar-color '
    + '-webkit-tap-highlight-color column-rule-color text-emphasis-color '
    + '-webkit-text-fill-color -webkit-text-stroke-color transition-property '
    + 'transition-duration transition-timing-function transition-delay transition-behavior'
  ).split(' ').forEach(function (p) { PAINTS[p] = 1; });

  // Whether a style rule of the roots' sheets selects on a STATEFUL state and sets anything
  // that is not paint (nested and grouped rules and imports included).
  function styleFollowsState(roots) {
    return ruleStops(roots, 'stateful', followsState);
  }
  function followsState(rule, onState) {
    var sel = rule.selectorText, style = styleOf(rule);
    var state = onState || (typeof sel === 'string' && STATEFUL.test(sel));
    return state && style && declares(style) ? STOP : state;
  }
  function declares(style) {
    for (var i = 0; i < style.length; i++) if (!PAINTS[style[i]]) return true;
    return false;
  }

  // Whether a style rule of the roots' sheets that sets visibility or content-visibility
  // (`all` sets both) selects an element now: what can hide an element that has a box (see
  // trustBoxes). Most apps' style sheets hold such a rule (a utility class, a tooltip's) that
  // selects nothing on most screens; taking any such rule as hiding had every read on them
  // ask the browser about every control (20 ms of a 10,000-control read). A rule whose
  // selector cannot be asked of the page (see hidingSelectors) may hide anything. The
  // selectors are kept with the sheets they are of (as ruleStops keeps its answers);
  // whether they select anything is asked at every read that takes boxes, as that changes
  // with the page.
  function styleHides(roots) {
    var sel = hidingSelectors(roots);
    if (sel === null) return true;
    if (sel === '') return false;
    return roots.some(function (r) {
      try { return r.root.querySelector(sel) !== null; } catch (e) { return true; }
    });
  }

  // The selectors of the rules of the roots' sheets that set visibility or
  // content-visibility, as one list ('' for none); null when a rule that does cannot be
  // asked of the page by its selector: a keyframe's, a nested or scoped rule's, one whose
  // selector reaches across a shadow boundary (:host, ::slotted, ::part) or into a
  // pseudo-element that can hold elements, one the page cannot query, and a sheet of
  // another origin that sets either (known only as a whole, see sheetFacts). A rule inside
  // @media, @supports, @layer or @container is taken whatever its condition.
  function hidingSelectors(roots) {
    var sheets = sheetsOf(roots);
    if (W.hides !== null && sameSheets(W.hidesSheets, sheets)) return W.hides.sel;
    W.hidesSheets = sheets;
    sheets.forEach(askUnread);
    var selectors = [];
    var unknown = sheets.some(function (sheet) {
      return eachRule(sheet, function (rule) {
        if (hides(rule) !== STOP) return;
        var sel = askable(rule);
        if (sel === null) return STOP;
        selectors.push(sel);
      }, 'hides') === STOP;
    });
    W.hides = { sel: unknown ? null : selectors.join(',') };
    return W.hides.sel;
  }
  // `rule`'s selector when it can be asked of the page in place of the rule (it is whole,
  // only grouped by the rules around it, holds nothing that reaches across a shadow
  // boundary or nests, and parses), else null: what that means is the caller's (the
  // hiding rules' answer is then unknown; a clipping rule is left out).
  function askable(rule) {
    var sel = rule.selectorText;
    if (typeof sel !== 'string' || !plainlyGrouped(rule) || ACROSS.test(sel.replace(INERT_PSEUDO, ''))) return null;
    try { (PROBE || (PROBE = document.createDocumentFragment())).querySelector(sel); } catch (e) { return null; }
    return sel;
  }
  var PROBE = null;
  // What a selector may not hold to be asked of the page in place of its rule, once the
  // pseudo-elements that hold no element are taken out.
  var ACROSS = /:host|::|&/i;
  var INERT_PSEUDO = /::(before|after|marker|placeholder|selection|first-line|first-letter|backdrop|file-selector-button|target-text|spelling-error|grammar-error|-webkit-[a-z-]+|-moz-[a-z-]+)\b/gi;
  // Whether every rule around `rule` only groups (its selector is its own, whole).
  function plainlyGrouped(rule) {
    for (var p = rule.parentRule; p; p = p.parentRule) {
      var kind = p.constructor && p.constructor.name;
      if (kind !== 'CSSMediaRule' && kind !== 'CSSSupportsRule' && kind !== 'CSSLayerBlockRule'
        && kind !== 'CSSContainerRule') return false;
    }
    return true;
  }
  function hides(rule) {
    var style = styleOf(rule);
    if (style && (style.getPropertyValue('visibility') || style.getPropertyValue('content-visibility'))) return STOP;
  }

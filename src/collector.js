// waymark's in-page agent. Evaluated as `(SOURCE)("op", {args})` in one Runtime.evaluate;
// every operation answers with ONE string, so a read of any screen — 10 controls or
// 50,000 — is one round trip. The string is JSON; an answer holding a read ends with the
// read's records after a newline (see `withRecords`). Nothing here walks the DOM over CDP,
// and every lookup map (labels, roots) is built in one pass: `el.labels` per element is
// quadratic in Chromium.
//
// Operations:
//   read    {max, since, region, evidence, whole}
//                                              -> the screen, whole or as a delta against `since`;
//                                                 one region only; with `evidence` (caps), text
//                                                 runs and unanchored controls too; with `whole`,
//                                                 gathered as a first read is (nothing reused)
//   prepare {anchor, key | node | point, mode, quiet_ms, max_ms}
//                                              -> resolve + actionability checks (+ focus for
//                                                 fill/press, + hit point for invoke), and the
//                                                 first quiet window armed for the action's
//                                                 input (see settle)
//   settle  {quiet_ms, max_ms, max, since, evidence}
//                                              -> wait until the DOM is quiet or a navigation
//                                                 started; read in the same trip; with the
//                                                 page's frame after the input (see timeFrame)
//   early   {}                                 -> in a new document, before its scripts: watch
//                                                 the value setters, the listeners and the
//                                                 animation frames (see watchSetters,
//                                                 watchListeners, watchFrames)
//   finish_fill {anchor, key, expected, max, quiet_ms, max_ms, evidence}
//                                              -> change event (unless `fill` sent it), verify
//                                                 the value, settle, read (as settle's)
//   fill    {anchor, key | node | point, text, expected: {line, multiline, words}, quiet_ms, max_ms}
//                                              -> prepare (mode fill), the value the field's
//                                                 kind must end with, and that text typed
//                                                 with an editing command, where the page
//                                                 could not tell that from typing; once the
//                                                 value is in, its change event and the
//                                                 first quiet window
//   elements {ids}                             -> the elements a read named, as objects (not
//                                                 a JSON string: for accessibility queries)
//
//   facts   {texts: {href: text}}              -> what the rules of each style sheet text hold
//                                                 (see sheetFacts), by address: run in a
//                                                 world of its own, never the page's
//
// Any operation may also carry `sheets: {doc, facts: {href: facts | null}}`: what style
// sheets of another origin hold, which the page cannot read (null: not known). They are
// taken in before the operation runs, in the document named `doc` only (see takeSheets).
// A read's answer names the sheets it could not read that nobody was asked for yet, under
// `unread_sheets`.
(function (op, args) {
  'use strict';
  var t0 = performance.now();

  // ------------------------------------------------------------------ text helpers
  // Whitespace collapsed and trimmed. Most names already are: one test, and no new string
  // (a 10,000-control read collapsed every label anew, 1-2 ms of its time).
  var UNNORMAL = /\s\s|[^\S ]|^\s|\s$/;
  function norm(s) {
    if (!s) return '';
    return UNNORMAL.test(s) ? s.replace(/\s+/g, ' ').trim() : s;
  }

  var SKIP_TAGS = { SCRIPT: 1, STYLE: 1, TEMPLATE: 1, NOSCRIPT: 1 };

  // Text alternative of a subtree (the "name from content" step), skipping `skip` (the
  // control a wrapping label labels) and aria-hidden / `hidden` parts unless `referenced`
  // (aria-labelledby targets count even when hidden).
  function textOf(node, referenced, skip) {
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1 || node === skip) return '';
    var el = node;
    if (SKIP_TAGS[el.tagName]) return '';
    if (!referenced && (el.hidden || el.getAttribute('aria-hidden') === 'true')) return '';
    var al = el.getAttribute('aria-label');
    if (al && al.trim() && el !== skip) return ' ' + al + ' ';
    if (el.tagName === 'IMG') return ' ' + (el.getAttribute('alt') || '') + ' ';
    if (el.tagName === 'INPUT' && el !== skip) {
      var t = el.type;
      if (t === 'button' || t === 'submit' || t === 'reset') return ' ' + el.value + ' ';
      if (t === 'image') return ' ' + (el.alt || '') + ' ';
      return '';
    }
    if (el.tagName === 'SELECT' || el.tagName === 'TEXTAREA') return '';
    var out = '';
    var root = el.shadowRoot || el;
    // Text only (the usual button, link or label): its text nodes, in one DOM call.
    if (root === el && !el.firstElementChild) out = el.textContent;
    else for (var c = root.firstChild; c; c = c.nextSibling) out += textOf(c, referenced, skip);
    var display = el.tagName === 'BR' || el.tagName === 'P' || el.tagName === 'DIV' || el.tagName === 'LI';
    return display ? ' ' + out + ' ' : out;
  }

  var TYPABLE = { text: 1, search: 1, email: 1, url: 1, tel: 1, password: 1 };

  var NAME_FROM_CONTENT = {
    button: 1, link: 1, checkbox: 1, radio: 1, menuitem: 1, menuitemcheckbox: 1,
    menuitemradio: 1, option: 1, tab: 1, treeitem: 1, switch: 1, cell: 1, columnheader: 1,
    rowheader: 1, heading: 1, tooltip: 1, gridcell: 1
  };

  // Elements whose value or checked state changes without a mutation.
  var LIVE = { INPUT: 1, TEXTAREA: 1, SELECT: 1 };

  // How a field's value is read again after an input: `v` its value, `s` a secret's
  // (redacted), `c` its checked state, `1` a single select's option (only when its index
  // moved), `m` a multiple select's; none for buttons, whose value is their label.
  function liveKind(el, tag, t, secret) {
    if (tag === 'SELECT') return el.multiple ? 'm' : '1';
    if (tag === 'TEXTAREA') return 'v';
    if (t === 'checkbox' || t === 'radio') return 'c';
    if (t === 'button' || t === 'submit' || t === 'reset' || t === 'image') return null;
    return secret ? 's' : 'v';
  }

  var TEXT_TYPES = {
    text: 1, search: 1, email: 1, url: 1, tel: 1, password: 1, number: 1, date: 1,
    'datetime-local': 1, month: 1, week: 1, time: 1
  };

  // ARIA 1.2's concrete roles: a `role` attribute is a fallback list, and the first of
  // these in it wins (as in Chromium); an unknown word is skipped, not taken as the role.
  var ROLES = {};
  ('alert alertdialog application article banner blockquote button caption cell checkbox code '
    + 'columnheader combobox comment complementary contentinfo definition deletion dialog '
    + 'directory document emphasis feed figure form generic grid gridcell group heading img '
    + 'image insertion link list listbox listitem log main mark marquee math menu menubar '
    + 'menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph '
    + 'presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search '
    + 'searchbox separator slider spinbutton status strong subscript suggestion superscript '
    + 'switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid '
    + 'treeitem').split(' ').forEach(function (r) { ROLES[r] = 1; });

  // `tag`, `type` (an input's) and `attr` (its role attribute) spare a dense read a DOM
  // call each; other callers may leave them out. So in the helpers below.
  function roleOf(el, tag, type, attr) {
    var r = attr === undefined ? el.getAttribute('role') : attr;
    if (r) {
      var words = r.trim().toLowerCase().split(/\s+/);
      for (var i = 0; i < words.length; i++) {
        if (!ROLES[words[i]]) continue;
        // A focusable element is never presentational: its own role stands.
        if ((words[i] === 'none' || words[i] === 'presentation') && el.tabIndex >= 0) break;
        return words[i];
      }
    }
    switch (tag || el.tagName) {
      case 'BUTTON': return 'button';
      case 'A': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'TEXTAREA': return 'textbox';
      case 'SELECT': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
      case 'SUMMARY': return 'button';
      case 'OPTION': return 'option';
      case 'IMG': return el.getAttribute('alt') === '' ? 'presentation' : 'img';
      case 'DIALOG': return 'dialog';
      case 'OUTPUT': return 'status';
      case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
      case 'LI': return 'listitem';
      case 'TD': return 'cell';
      case 'PROGRESS': return 'progressbar';
      case 'METER': return 'meter';
      case 'INPUT':
        type = type || el.type;
        if (TYPABLE[type] && el.list) return 'combobox';
        switch (type) {
          case 'checkbox': return 'checkbox';
          case 'radio': return 'radio';
          case 'button': case 'submit': case 'reset': case 'image': case 'file': return 'button';
          case 'range': return 'slider';
          case 'number': return 'spinbutton';
          case 'search': return 'searchbox';
          case 'hidden': return 'none';
          default: return 'textbox';
        }
      default:
        return el.isContentEditable ? 'textbox' : 'generic';
    }
  }

  // A referenced element that is itself hidden lends all its text to a name; a shown one
  // only its shown parts (accname 2A/2B).
  function hiddenRef(el) {
    if (el.hidden || el.getAttribute('aria-hidden') === 'true') return true;
    return el.checkVisibility ? !el.checkVisibility({ visibilityProperty: true }) : false;
  }

  function rootNode(el) {
    var r = el.getRootNode();
    return r && r.getElementById ? r : el.ownerDocument;
  }

  // Accessible name for the common cases, in the order Chromium applies them:
  // aria-labelledby, aria-label, native (input value / label[for] / wrapping label),
  // content (for roles named from content), alt, title, placeholder.
  function nameOf(el, role, labels, tag, type) {
    var v = el.getAttribute('aria-labelledby');
    if (v) {
      var root = rootNode(el);
      var parts = [];
      v.trim().split(/\s+/).forEach(function (id) {
        W.refIds.add(id);
        var ref = root.getElementById(id);
        if (ref) parts.push(ref === el ? (el.getAttribute('aria-label') || '') : textOf(ref, hiddenRef(ref), null));
      });
      var s = norm(parts.join(' '));
      if (s) return s;
    }
    v = el.getAttribute('aria-label');
    if (v && v.trim()) return norm(v);
    tag = tag || el.tagName;
    if (tag === 'INPUT') {
      var t = type || el.type;
      if (t === 'button' || t === 'submit' || t === 'reset') {
        return norm(el.value) || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
      }
      if (t === 'image') return norm(el.alt || el.value) || 'Submit';
    }
    var labs = labels.get(el);
    if (labs) {
      var ls = norm(labs.map(function (l) { return textOf(l, false, el); }).join(' '));
      if (ls) return ls;
    }
    if (NAME_FROM_CONTENT[role] || tag === 'BUTTON' || tag === 'A') {
      var cs = norm(textOf(el, false, null));
      if (cs) return cs;
    }
    if (tag === 'IMG' || tag === 'AREA') {
      var alt = el.getAttribute('alt');
      if (alt && alt.trim()) return norm(alt);
    }
    v = el.getAttribute('title');
    if (v && v.trim()) return norm(v);
    v = el.getAttribute('placeholder');
    if (v && v.trim()) return norm(v);
    return '';
  }

  function isSecret(el, tag, type) {
    if ((tag || el.tagName) !== 'INPUT') return false;
    if ((type || el.type) === 'password') return true;
    var ac = (el.getAttribute('autocomplete') || '').toLowerCase();
    return ac.indexOf('one-time-code') >= 0 || ac.indexOf('cc-number') >= 0 || ac.indexOf('cc-csc') >= 0
      || ac.indexOf('current-password') >= 0 || ac.indexOf('new-password') >= 0;
  }

  // The elements `:disabled` can match: form controls, and form-associated custom elements.
  var DISABLABLE = { BUTTON: 1, INPUT: 1, SELECT: 1, TEXTAREA: 1, OPTGROUP: 1, OPTION: 1, FIELDSET: 1 };

  // `off`, when given, holds every element of the root at or inside an aria-disabled one
  // (see disabledUnder), which spares a dense read a `closest` per control.
  function disabledOf(el, tag, off) {
    tag = tag || el.tagName;
    if ((DISABLABLE[tag] || tag.indexOf('-') > 0) && el.matches(':disabled')) return true;
    return off ? off.has(el) : el.closest('[aria-disabled="true"]') !== null;
  }

  // The anchored elements that are, or sit inside, one of the elements `marked`
  // aria-disabled (as a scan finds them): what `closest('[aria-disabled="true"]')` finds,
  // for all of them at once.
  function disabledUnder(marked) {
    var off = new Set();
    for (var i = 0; i < marked.length; i++) {
      off.add(marked[i]);
      var inner = marked[i].querySelectorAll('[data-anchor]');
      for (var j = 0; j < inner.length; j++) off.add(inner[j]);
    }
    return off;
  }

  function editableOf(el, tag, type) {
    tag = tag || el.tagName;
    if (tag === 'INPUT') return !!TEXT_TYPES[type || el.type] && !el.readOnly && !el.disabled;
    if (tag === 'TEXTAREA') return !el.readOnly && !el.disabled;
    if (tag === 'SELECT') return !el.disabled;
    return el.isContentEditable;
  }

  function valueOf(el, tag, type, secret) {
    // What a person typed during a handoff is theirs: never read back.
    if (W.typed && W.typed.has(el)) return '[redacted]';
    tag = tag || el.tagName;
    if (tag === 'INPUT') {
      var t = type || el.type;
      if (t === 'checkbox' || t === 'radio' || t === 'button' || t === 'submit' || t === 'reset' || t === 'image') return null;
      if (secret === undefined ? isSecret(el, tag, t) : secret) return el.value ? '[redacted]' : '';
      return el.value;
    }
    if (tag === 'TEXTAREA' || tag === 'OUTPUT') return el.value;
    if (tag === 'SELECT') {
      if (!el.multiple) {
        // One option at most: found by index rather than by asking every option (which
        // cost a 50,000-control read a tenth of its time).
        // The option's text as its own text nodes, which `text` gives collapsed (an option
        // holds no element but a script), at a fifth of the time.
        var o = el.item(el.selectedIndex);
        return o ? norm(o.textContent) : '';
      }
      var sel = [], opts = el.options;
      for (var i = 0; i < opts.length; i++) if (opts[i].selected) sel.push(norm(opts[i].text));
      return sel.join(', ');
    }
    if (el.isContentEditable) return norm(el.textContent);
    return null;
  }

  function checkedOf(el, tag, type) {
    if ((tag || el.tagName) === 'INPUT') {
      type = type || el.type;
      if (type === 'checkbox' || type === 'radio') return el.checked;
    }
    var ac = el.getAttribute('aria-checked');
    if (ac === 'true') return true;
    if (ac === 'false') return false;
    return null;
  }

  var LANDMARKS = 'main,nav,header,footer,aside,form[aria-label],form[aria-labelledby],section[aria-label],[role=region],[role=navigation],[role=main],[role=dialog]';

  function regionOf(el, inherited) {
    var r = el.closest('[data-anchor-region]');
    if (r) return r.getAttribute('data-anchor-region');
    return outerRegion(el, inherited);
  }

  // The region of an element in no `data-anchor-region` of its own tree: the one its tree
  // inherits, else its landmark's name, else `page`.
  function outerRegion(el, inherited) {
    if (inherited) return inherited;
    var lm = el.closest(LANDMARKS);
    if (lm) return norm(lm.getAttribute('aria-label')) || lm.getAttribute('role') || lm.tagName.toLowerCase();
    return 'page';
  }

  var VISIBILITY = { visibilityProperty: true };
  // Set by a read for the boxes it takes when nothing on the page can hide an element that
  // has a box (see canHide): its box alone then says it is shown. `visChecks` counts the
  // checks made of controls, for the read's answer.
  var boxSays = false, visChecks = 0;

  // Shown: a box with a size, and not hidden by CSS (the caller read the box). `exact`:
  // asked of the browser even where a read trusts boxes (an element that may sit past
  // the cut, which the scan did not test).
  function visibleOf(el, width, height, exact) {
    if (width === 0 && height === 0) return false;
    if (!exact) {
      if (boxSays) return true;
      visChecks++;
    }
    // A boolean whatever a page's own checkVisibility answers: records hold it as one.
    return el.checkVisibility ? !!el.checkVisibility(VISIBILITY) : true;
  }

  // ------------------------------------------------------------------ state
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
      // Whether a style rule can hide an element that has a box (see styleHides), and the
      // sheets that answer is of (kept by ruleStops as well); whether an element became one of the HIDERS since the
      // last scan (see hidersIn).
      hides: null,
      hidesSheets: null,
      hiders: false,
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
      // Past LOG_MOST records the log is dropped: the next read gathers everything again,
      // and the roots are found again until then (see collectRoots).
      if (W.log && W.log.length + records.length > LOG_MOST) W.log = null;
      else if (W.log) for (var j = 0; j < records.length; j++) W.log.push(records[j]);
    });
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
      if (sheets) w.stateful = w.pinned = w.hides = null;
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
    W.rootsUnknown = W.dirty = true;
    var top = topState();
    if (top) top.rootsUnknown = top.dirty = true;
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

  // The animation-frame callbacks a window's page has asked for and not yet had, each with
  // when the chain it belongs to began: its request's time, or, when a callback asks for
  // the next frame, the time its own chain began (see pendingFrames). Watched from before
  // the document's own scripts (once per window); the window keeps its own request
  // function for waymark's frames, which are not counted.
  function watchFrames(win) {
    if (!win || win.__wmFrames !== undefined) return;
    var request = win.requestAnimationFrame, cancel = win.cancelAnimationFrame;
    if (typeof request !== 'function' || typeof cancel !== 'function') return;
    var pending = win.__wmFrames = new Map(), chain = null;
    win.__wmRequest = request;
    win.requestAnimationFrame = function (cb) {
      // Not a function: the browser's own error.
      if (typeof cb !== 'function') return request.call(win, cb);
      var began = chain !== null ? chain : performance.now();
      var id = request.call(win, function (t) {
        pending.delete(id);
        var was = chain;
        chain = began;
        try { return cb.call(this, t); } finally { chain = was; }
      });
      pending.set(id, began);
      return id;
    };
    win.cancelAnimationFrame = function (id) {
      pending.delete(id);
      return cancel.call(win, id);
    };
  }

  // How many animation-frame callbacks the pages of `roots` have pending in chains begun
  // at or after `from` (a loop that ran before, a spinner say, is not the action's doing).
  function pendingFrames(roots, from) {
    var n = 0, seen = [];
    roots.forEach(function (r) {
      var win = (r.root.ownerDocument || r.root).defaultView;
      if (!win || seen.indexOf(win) >= 0 || !win.__wmFrames) return;
      seen.push(win);
      win.__wmFrames.forEach(function (began) { if (began >= from) n++; });
    });
    return n;
  }

  // Runs fn in the next animation frame, as waymark's own: not counted among the page's.
  function onFrame(fn) {
    (window.__wmRequest || window.requestAnimationFrame).call(window, fn);
  }

  // Runs fn in a task after the next animation frame has rendered (every document's
  // callbacks of that frame run, and the mutation observers they woke); after 100 ms
  // without one (a hidden or throttled page renders none), all the same.
  function nextFrame(fn) {
    var done = false;
    var once = function () { if (!done) { done = true; soon(fn); } };
    onFrame(once);
    setTimeout(once, FRAME_MOST_MS);
  }
  var FRAME_MOST_MS = 100;

  // The page's own time to answer an action's input: from the first of its input events to
  // reach the page (the pointer's move to the control or its press, the key's press, the
  // typing), before the page's handlers, to the end of the first frame rendered after the
  // last (the click, the key's release, the typing): the handlers' work, and the style,
  // layout and paint of what they changed, hover and focus included, in the page's clock.
  // Nothing that sends the input can answer with the screen sooner: a read after it waits
  // behind that frame. Reported with the action's read as `frame_ms`; null until the frame
  // has rendered (a hidden page renders none).
  function timeFrame(from) {
    var f = W.frame = { at: from === undefined || from === null ? performance.now() : from, ms: null };
    onFrame(function () { soon(function () { f.ms = performance.now() - f.at; }); });
  }

  // Listens in `doc`, until the next action, for its input: the first trusted event of
  // `starts` marks when it reached the page, and the first trusted `last` starts the frame
  // that ends it (see timeFrame), in place of any the action timed before.
  function hearInput(doc, starts, last) {
    var from = null;
    var start = function (e) { if (e.isTrusted && from === null) from = performance.now(); };
    var end = function (e) {
      if (!e.isTrusted) return;
      unhear();
      timeFrame(from);
    };
    var unhear = W.unhear = function () {
      starts.forEach(function (t) { doc.removeEventListener(t, start, true); });
      doc.removeEventListener(last, end, true);
      if (W.unhear === unhear) W.unhear = null;
    };
    starts.forEach(function (t) { doc.addEventListener(t, start, true); });
    doc.addEventListener(last, end, true);
  }
  function frameMs() {
    return W.frame && W.frame.ms !== null ? Math.round(W.frame.ms * 10) / 10 : null;
  }

  // The kinds of field prepare leaves for typing (the others it sets itself).
  var TYPED = { line: 1, multiline: 1, contenteditable: 1 };

  // The page may type into `el` itself: nothing in it could tell (see watchListeners).
  // Unknown (a document loaded before the watch) counts as listening.
  function canType(el) {
    var win = el.ownerDocument.defaultView;
    return !!win && win.__waymarkListeners === false && !el.closest(HEARD_ATTRS);
  }

  // An element's id: a property under the document's own symbol, which no page script
  // names by accident. A WeakMap of 50,000 elements cost a read 30-60 ms to fill, and every
  // garbage collection after it its ephemerons; it is kept only for elements the page made
  // non-extensible.
  function idOf(el) {
    var id = el[W.idKey];
    if (id) return id;
    if (W.ids && (id = W.ids.get(el))) return id;
    id = W.nextId++;
    if (Object.isExtensible(el)) el[W.idKey] = id;
    else (W.ids || (W.ids = new WeakMap())).set(el, id);
    return id;
  }

  // The id an element was given, or undefined.
  function idIn(el) {
    return el[W.idKey] || (W.ids ? W.ids.get(el) : undefined);
  }

  // ------------------------------------------------------------------ roots
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
    var roots = [];
    function visit(root, origin, region) {
      roots.push({ root: root, origin: origin, region: region });
      watch(root);
      // A tree walker: two DOM calls per element, where indexing a querySelectorAll('*')
      // list cost a 10,000-control page twice the time. Only frames have a
      // `contentDocument`, and testing for it makes no DOM call on other elements.
      var walker = (root.nodeType === 9 ? root : root.ownerDocument).createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
      for (var el = walker.nextNode(); el; el = walker.nextNode()) {
        if (el.shadowRoot) visit(el.shadowRoot, origin, regionOf(el, region));
        if (el.contentDocument !== undefined && el.tagName === 'IFRAME') {
          var doc = null;
          try { doc = el.contentDocument; } catch (e) { doc = null; }
          if (doc && doc.documentElement) {
            var base = origin || [0, 0], o = contentOrigin(el);
            visit(doc, [
              base[0] + o[0] + (origin ? 0 : scrollX),
              base[1] + o[1] + (origin ? 0 : scrollY)
            ], regionOf(el, region));
          }
        }
      }
    }
    visit(document, null, null);
    W.roots = roots;
    return roots;
  }

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

  // Where a root's viewport sits in box coordinates: a frame's origin, or the top
  // document's scroll offset. Read once per root: `scrollX` per control cost as much as
  // its box (2-3 µs; a quarter of a 10,000-control read).
  function originOf(r) {
    return r.origin || [scrollX, scrollY];
  }

  function labelMap(roots) {
    return labelsOf(roots.map(function (r) { return r.root.querySelectorAll('label'); }));
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

  // What a whole read looks for in a root, found in one selector scan (a scan each for the
  // controls, the labels and the dialogs cost a 10,000-control page twice as much): the
  // anchored elements with their tag, anchor and role attribute (read here once, for the
  // record), the labels and the dialogs, each in document order.
  // The scan also counts the elements that can hide one with a box, besides a style rule
  // (see canHide): a style attribute naming visibility, a closed details element and
  // hidden=until-found (their content has content-visibility: hidden), SVG's visibility
  // attribute. Folded into the one scan they cost a 10,000-control read ~2 ms; the
  // visibility checks they spare cost it ~12. Anchored elements past the first `budget`
  // (past the read's cut) are not tested: what they hide is their own content, past the
  // cut as well, and what a shadow tree slots into them (see canHide).
  // The scan also finds each anchored element's region (the nearest `data-anchor-region`
  // at or around it, null for none in its tree), from the regions it meets on the way, in
  // place of a `closest` per control (a sixth of a 10,000-control read, and of a 50,000-
  // control one cut at 5,000, whose dropped controls are counted by region); and the
  // elements marked aria-disabled within the cut (see disabledUnder), in place of a
  // selector scan of their own.
  var HIDERS = '[style*="visibility" i],details:not([open]),[hidden="until-found" i],[visibility]';
  var HIDER_ATTRS = { style: 1, open: 1, hidden: 1, visibility: 1 };
  var MARKED = '[aria-disabled="true"]';
  var TESTED = HIDERS + ',' + MARKED;
  var SCANNED = '[data-anchor],label,dialog[open],[role=dialog],[role=alertdialog],[data-anchor-region],' + TESTED;
  function scan(root, budget) {
    var found = root.querySelectorAll(SCANNED);
    var s = { anchored: [], tags: [], anchors: [], roles: [], regions: [], labels: [], dialogs: [], marks: [],
      hiders: 0, untested: false };
    // The regions around the element at hand, innermost last, and their names.
    var around = [], names = [];
    if (budget === undefined) budget = Infinity;
    for (var i = 0; i < found.length; i++) {
      var el = found[i], tag = el.tagName, role = el.getAttribute('role');
      var anchor = el.getAttribute('data-anchor'), region = el.getAttribute('data-anchor-region');
      if (anchor === null || s.anchored.length < budget) {
        if (el.matches(TESTED)) {
          if (el.matches(HIDERS)) s.hiders++;
          if (el.getAttribute('aria-disabled') === 'true') s.marks.push(el);
        }
      } else {
        s.untested = true;
      }
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
      if (tag === 'LABEL') s.labels.push(el);
      if (tag === 'DIALOG' ? el.hasAttribute('open') : role === 'dialog' || role === 'alertdialog') s.dialogs.push(el);
    }
    return s;
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

  // ------------------------------------------------------------------ partial reads
  // Past this many mutation records since a read, the next gathers everything again.
  var LOG_MOST = 500;
  // Attributes of an element that its descendants' records read (region, disabled state,
  // role, editability, name parts): a change to one gathers every control inside again.
  var INHERITED = { 'data-anchor-region': 1, 'aria-label': 1, 'aria-labelledby': 1, role: 1,
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
    function up(n) {
      for (var a = n.closest('[data-anchor]'); a; a = a.parentElement && a.parentElement.closest('[data-anchor]')) hit.add(a);
    }
    function down(n) {
      if (n.hasAttribute('data-anchor')) hit.add(n);
      var inner = n.querySelectorAll('[data-anchor]');
      for (var i = 0; i < inner.length; i++) hit.add(inner[i]);
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

  // The attributes `scan` reads (the hiders' aside: see hidersIn).
  var SCAN_ATTRS = { 'data-anchor': 1, 'data-anchor-region': 1, role: 1, open: 1, 'aria-disabled': 1 };

  // Whether a mutation in `log` may have made an element one of the HIDERS: an attribute
  // they are told by set on one that now is. (An element added is found by a new scan: see
  // scanHolds.) One that stopped being one is still counted until the next scan.
  function hidersIn(log) {
    for (var i = 0; i < log.length; i++) {
      var m = log[i];
      if (m.type === 'attributes' && HIDER_ATTRS[m.attributeName] && m.target.matches(HIDERS)) return true;
    }
    return false;
  }

  // Whether anything on the page can hide an element that has a box (see visibleOf): one of
  // the HIDERS in a root's scan, or made one since (W.hiders), a style rule setting
  // visibility or content-visibility (see styleHides), or a script's animation of either.
  // With shadow roots or frames, an anchored element the scan left untested past the cut
  // may be one (a shadow tree's may hold a control slotted from before the cut).
  function canHide(roots, scans) {
    return W.hiders || scans.some(function (sc) { return sc.hiders > 0 || (sc.untested && roots.length > 1); })
      || styleHides(roots) || animatesHiding(roots);
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

  // Whether a scan taken before the mutations in `log` still finds what a new one would: no
  // element it could find was added or removed (a label included, which names others), and
  // none had an attribute it reads changed. Text changes never matter.
  function scanHolds(log) {
    function unscanned(x) {
      return x.nodeType !== 1 || !(x.matches(SCANNED) || x.querySelector(SCANNED));
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
    if (b[0] === o[0] && b[1] === o[1] && b[2] === o[2] && b[3] === o[3] && shown === old.visible) return old;
    var rec = copied(old);
    rec.bbox = b;
    rec.visible = shown;
    return rec;
  }

  // A record's copy, of the same shape (see record).
  function copied(r) {
    return { anchor: r.anchor, key: r.key, label: r.label, role: r.role, disabled: r.disabled,
      editable: r.editable, value: r.value, secret: r.secret, checked: r.checked, region: r.region,
      visible: r.visible, bbox: r.bbox };
  }

  // ------------------------------------------------------------------ read
  // One control's record. Every record has the same fields in the same order, a field at
  // its usual value included (no key: undefined; shown: true): records of one shape give
  // the code that reads them (wire, moved, refreshed) one hidden class to meet, where a
  // field set only when unusual made a shape for each combination, and each of those
  // reads a lookup (4-8 ms of a 10,000-control whole read's 90-110 in the page: medians
  // and lower quartiles of 80 reads each, A/B interleaved in one browser). The focus is
  // reported once for the whole read instead of per control, so moving it changes no
  // record.
  // `tag`, `type` and `anchor` as the caller read them (anchor may be left out); `off` as
  // disabledUnder gives it (or null). Every DOM call here is paid once per control of a
  // dense read: each is made once.
  function record(el, tag, type, role, region, labels, origin, off, anchor) {
    var rect = el.getBoundingClientRect();
    var x = rect.left, y = rect.top, w = rect.width, h = rect.height;
    var key = el.getAttribute('data-anchor-key');
    var label = nameOf(el, role, labels, tag, type);
    var secret = isSecret(el, tag, type);
    var value = valueOf(el, tag, type, secret);
    var checked = checkedOf(el, tag, type);
    return {
      anchor: anchor === undefined ? el.getAttribute('data-anchor') : anchor,
      key: key === null ? undefined : key,
      label: label,
      role: role,
      disabled: disabledOf(el, tag, off),
      editable: editableOf(el, tag, type),
      value: value === null ? undefined : value,
      secret: secret,
      checked: checked === null ? undefined : checked,
      region: region,
      visible: visibleOf(el, w, h),
      bbox: [Math.round(x + origin[0]), Math.round(y + origin[1]), Math.round(w), Math.round(h)]
    };
  }

  function strId(s) {
    var i = W.strIdx.get(s);
    if (i === undefined) { i = W.strs.length; W.strs.push(s); W.strIdx.set(s, i); }
    return i;
  }

  // A record as it travels: its fields ended by SEP (DEL), packed into one string with the
  // read's other records (see collector/packed.rs), so a dense read carries no key names,
  // no brackets and no quotes for CDP to escape (the answer crosses it as a JSON string).
  //   anchor SEP label SEP role# SEP region# SEP x SEP y SEP width SEP height SEP flags SEP value SEP key
  // role# and region# index the document's string table; flags: 1 disabled, 2 editable,
  // 4 secret, 8 not visible, 16 checked, 32 unchecked, 64 has a value, 128 has a key (else
  // the field is empty), 256 escaped: a string held a SEP, so in this record every ESC in
  // a string starts an escape (ESC 0 for ESC, ESC 1 for SEP). The fields are joined as an
  // array: concatenating them made a rope of twenty strings per record, which cost a
  // 50,000-control read three times the time and its garbage.
  var SEP = '\x7f';
  function escapeField(s) { return s.replace(/\x1b/g, '\x1b0').replace(/\x7f/g, '\x1b1'); }
  function wire(rec) {
    var flags = (rec.disabled ? 1 : 0) | (rec.editable ? 2 : 0) | (rec.secret ? 4 : 0)
      | (rec.visible ? 0 : 8) | (rec.checked === true ? 16 : rec.checked === false ? 32 : 0)
      | (rec.value !== undefined ? 64 : 0) | (rec.key !== undefined ? 128 : 0);
    var b = rec.bbox, anchor = rec.anchor, label = rec.label;
    var value = rec.value === undefined ? '' : rec.value, key = rec.key === undefined ? '' : rec.key;
    if (anchor.indexOf(SEP) >= 0 || label.indexOf(SEP) >= 0 || value.indexOf(SEP) >= 0 || key.indexOf(SEP) >= 0) {
      anchor = escapeField(anchor); label = escapeField(label);
      value = escapeField(value); key = escapeField(key);
      flags |= 256;
    }
    return [anchor, label, strId(rec.role), strId(rec.region), b[0], b[1], b[2], b[3], flags, value, key].join(SEP);
  }

  // A read as it is answered: its JSON, a newline, then its records (a full read's all, a
  // delta's changed ones) packed. Outside the JSON, the records are neither escaped here
  // (JSON.stringify scanned a 50,000-control read's 3 MB for 6-10 ms) nor unescaped by the
  // runner; JSON.stringify never writes a raw newline, so the first one ends the JSON.
  function withRecords(json, parts) {
    return json + '\n' + parts.join(SEP);
  }

  // An answer holding `read` (withRecords's form, or 'null') under "read": `json` is the
  // answer's JSON without its closing brace; the records go after the whole of it.
  function holding(json, read) {
    var nl = read.indexOf('\n');
    if (nl < 0) return json + ',"read":' + read + '}';
    return json + ',"read":' + read.slice(0, nl) + '}' + read.slice(nl);
  }

  // Ids as runs, [first, count, first, count…]: a read's ids are mostly consecutive.
  function runs(ids) {
    var out = [];
    for (var i = 0; i < ids.length; i++) {
      var n = out.length;
      if (n && out[n - 2] + out[n - 1] === ids[i]) out[n - 1]++;
      else out.push(ids[i], 1);
    }
    return out;
  }

  // What a read gathers beyond the anchored controls when evidence is asked for: the
  // controls the page offers without an anchor (capped at `caps.nodes`, all counted) and the
  // visible text runs, one per text node with words, with their boxes (capped at
  // `caps.text`; the walk stops at the cap, so beyond it nothing is measured or counted).
  var INTERACTIVE = 'a[href],button,input:not([type=hidden]),select,textarea,summary,' +
    '[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],' +
    '[role=menuitem],[role=option],[role=combobox],[role=textbox],[role=searchbox],' +
    '[role=slider],[role=spinbutton],[contenteditable=""],[contenteditable=true],' +
    '[tabindex]:not([tabindex="-1"])';
  var NO_TEXT = { SCRIPT: 1, STYLE: 1, TEMPLATE: 1, NOSCRIPT: 1, TITLE: 1, HEAD: 1 };

  function gatherEvidence(roots, caps) {
    var ev = { text_runs: [], text_runs_capped: false, unanchored: [], unanchored_total: 0 };
    W.nodes = new Map();
    var labels = null;
    roots.forEach(function (r) {
      var origin = originOf(r), ox = origin[0], oy = origin[1];
      var els = r.root.querySelectorAll(INTERACTIVE);
      for (var i = 0; i < els.length; i++) {
        var el = els[i];
        // Most are anchored themselves: one attribute test spares them the walk up.
        if (el.hasAttribute('data-anchor') || el.closest('[data-anchor]')) continue;
        ev.unanchored_total++;
        if (ev.unanchored.length >= caps.nodes) continue;
        if (!labels) labels = labelMap(roots);
        var role = roleOf(el);
        var rect = el.getBoundingClientRect();
        var n = { node: idOf(el), role: role, label: nameOf(el, role, labels), region: regionOf(el, r.region) };
        if (disabledOf(el)) n.disabled = true;
        if (!visibleOf(el, rect.width, rect.height)) n.visible = false;
        n.bbox = [Math.round(rect.left + ox), Math.round(rect.top + oy), Math.round(rect.width), Math.round(rect.height)];
        ev.unanchored.push(n);
        W.nodes.set(n.node, el);
      }
      if (ev.text_runs_capped) return;
      var doc = r.root.nodeType === 9 ? r.root : r.root.ownerDocument;
      var walker = doc.createTreeWalker(r.root, NodeFilter.SHOW_TEXT);
      var range = doc.createRange();
      for (var t = walker.nextNode(); t; t = walker.nextNode()) {
        var parent = t.parentElement;
        if (!parent || NO_TEXT[parent.tagName]) continue;
        var words = norm(t.data);
        if (!words) continue;
        range.selectNodeContents(t);
        var b = range.getBoundingClientRect();
        if (b.width === 0 && b.height === 0) continue;
        if (ev.text_runs.length >= caps.text) { ev.text_runs_capped = true; return; }
        ev.text_runs.push({ text: words, bbox: [Math.round(b.left + ox), Math.round(b.top + oy), Math.round(b.width), Math.round(b.height)] });
      }
    });
    return ev;
  }

  // The part of a read's answer besides the records: where the page is and what it holds.
  function headOf(token, total, droppedByRegion, droppedByRole, dialog) {
    var active = deepActive();
    var focusEl = active && active.closest ? active.closest('[data-anchor]') : null;
    var focusId = focusEl ? (idIn(focusEl) || null) : null;
    var nav = performance.getEntriesByType('navigation')[0];
    return {
      token: token,
      url: location.href,
      title: document.title,
      status: nav && nav.responseStatus ? nav.responseStatus : null,
      dialog: dialog,
      focus: focusId,
      total: total,
      dropped_by_region: droppedByRegion,
      dropped_by_role: droppedByRole,
      viewport: [innerWidth, innerHeight],
      scroll: [scrollX, scrollY]
    };
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
      if (holders[i].hasAttribute('data-anchor')) found.add(holders[i]);
      var inner = holders[i].querySelectorAll('[data-anchor]');
      for (var j = 0; j < inner.length; j++) found.add(inner[j]);
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

  // Whether a style rule of the roots' sheets sets visibility or content-visibility, a
  // keyframe's included (`all` sets both): what can hide an element that has a box (see
  // canHide). Asked again after a whole read too.
  function styleHides(roots) {
    return ruleStops(roots, 'hides', hides);
  }
  function hides(rule) {
    var style = styleOf(rule);
    if (style && (style.getPropertyValue('visibility') || style.getPropertyValue('content-visibility'))) return STOP;
  }

  // Whether `visit` stops at a rule of the roots' sheets (see eachRule; a sheet whose rules
  // cannot be read, another origin's, stops it too), kept in W[key] with the sheets it is
  // of in W[key + 'Sheets']: asked again only when the sheets are others (a style element's
  // text changed, a sheet added) or the answer was dropped (null: a sheet edited in script,
  // see restyled), since a large sheet takes milliseconds to walk.
  function ruleStops(roots, key, visit) {
    var sheets = sheetsOf(roots), known = W[key + 'Sheets'];
    if (W[key] !== null && known && known.length === sheets.length
      && sheets.every(function (sh, i) { return sh === known[i]; })) return W[key];
    W[key + 'Sheets'] = sheets;
    // Every sheet of another origin not known yet is asked for now, all at once (the walk
    // below stops at the first it cannot answer for); so before pinnedControls' walk.
    sheets.forEach(askUnread);
    W[key] = sheets.some(function (sheet) { return eachRule(sheet, visit, key) === STOP; });
    return W[key];
  }

  // Asks for `sheet` when its rules cannot be read and it is not known, else for the
  // sheets it imports that are so.
  function askUnread(sheet) {
    var rules;
    try { rules = sheet.cssRules; } catch (e) {
      if (sheet.href && !W.sheetFacts.has(sheet.href)) askSheet(sheet.href);
      return;
    }
    for (var i = 0; rules && i < rules.length && rules[i].type === 3; i++) {
      if (rules[i].styleSheet) askUnread(rules[i].styleSheet);
    }
  }

  // A rule's declarations, read past the watch on the page's reads of them (see
  // watchSetters), so the collector's own reads do not count as the page's.
  function styleOf(rule) {
    var own = rule.__wmStyle;
    return own ? own.call(rule) : rule.style;
  }

  // The style sheets of the roots, their own and adopted, in order.
  function sheetsOf(roots) {
    var sheets = [];
    roots.forEach(function (r) {
      var own = r.root.styleSheets, adopted = r.root.adoptedStyleSheets;
      if (own) for (var i = 0; i < own.length; i++) sheets.push(own[i]);
      if (adopted) for (var j = 0; j < adopted.length; j++) sheets.push(adopted[j]);
    });
    return sheets;
  }

  // Calls `visit(rule, around)` for every rule of `sheet`, grouped and nested rules and
  // imported sheets included, `around` being what it returned for the rule around that one
  // (undefined at the top). Answers STOP when a visit did, or when a sheet's rules cannot
  // be read (another origin's) and what they hold is not known. What is known of such a
  // sheet (see takeSheets) answers for it: `key` names the question `visit` asks
  // ('stateful', 'hides', or 'pinned', whose selectors go into `pinned`).
  var STOP = {};
  function eachRule(sheet, visit, key, pinned) {
    function inRule(rule, around) {
      var here = visit(rule, around);
      if (here === STOP || (rule.styleSheet && inSheet(rule.styleSheet) === STOP)) return STOP;
      var kids = rule.cssRules;
      if (kids) for (var k = 0; k < kids.length; k++) if (inRule(kids[k], here) === STOP) return STOP;
    }
    function inSheet(sh) {
      var rules;
      try { rules = sh.cssRules; } catch (e) { return unread(sh); }
      if (!rules) return STOP;
      for (var k = 0; k < rules.length; k++) if (inRule(rules[k], undefined) === STOP) return STOP;
    }
    function unread(sh) {
      return sh.href ? known(sh.href, {}) : STOP;
    }
    // What is known of the sheet at `href` and the sheets it imports (`seen`: those
    // answered for already, an import cycle's included).
    function known(href, seen) {
      if (seen[href]) return undefined;
      seen[href] = true;
      // Not known yet: asked for by the walk's caller (see askUnread) or, for an import,
      // by takeSheets.
      var facts = W.sheetFacts.get(href);
      if (!facts) return STOP;
      for (var i = 0; i < facts.imports.length; i++) if (known(facts.imports[i], seen) === STOP) return STOP;
      if (key === 'pinned') {
        pinned.push.apply(pinned, facts.pinned);
        return undefined;
      }
      return facts[key] ? STOP : undefined;
    }
    return inSheet(sheet);
  }

  // Names the sheet at `href` to the runner in the next read's answer, once per document.
  function askSheet(href) {
    if (W.sheetsAsked.has(href)) return;
    W.sheetsAsked.add(href);
    W.sheetsUnread.push(href);
  }

  // The imports of a sheet's text, as addresses (relative ones resolved against the
  // sheet's own), and the text without them; null when one cannot be read or resolved.
  var IMPORT = /@import\s*(?:url\(\s*(['"]?)([^'")]*)\1\s*\)|(['"])([^'"]*)\3)[^;]*;?/gi;
  function imported(text, href) {
    var imports = [], bad = false;
    var rest = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(IMPORT, function (all, q1, u1, q2, u2) {
      try { imports.push(new URL(u1 !== undefined ? u1 : u2, href).href); } catch (e) { bad = true; }
      return '';
    });
    return bad || /@import/i.test(rest) ? null : { imports: imports, rest: rest };
  }

  // What the rules of a style sheet's `text` (from `href`) hold for the questions eachRule
  // asks, read from a sheet made of it: {stateful, hides, pinned, imports}, or null when
  // that cannot be known. The sheets it imports (which a sheet made in script does not
  // load) are named, and it is known once they all are (see eachRule). Run by the `facts`
  // operation in a world of the runner's own beside the page's, so no page script sees the
  // text, which the browser keeps from the page.
  function sheetFacts(text, href) {
    var parts = typeof text === 'string' ? imported(text, href) : null;
    if (!parts) return null;
    try {
      var sh = new CSSStyleSheet();
      sh.replaceSync(parts.rest);
      var pinned = pinnedIn(sh);
      if (!pinned) return null;
      return {
        stateful: eachRule(sh, followsState) === STOP,
        hides: eachRule(sh, hides) === STOP,
        pinned: pinned,
        imports: parts.imports
      };
    } catch (e) {
      return null;
    }
  }

  // Takes in what style sheets of another origin hold (see sheetFacts), asks for the
  // sheets they import, and has the answers kept from the sheets as they were asked again.
  // What does not have the shape sheetFacts gives leaves its sheet unknown, as it was.
  function takeSheets(sheets) {
    if (!sheets || sheets.doc !== W.doc || !sheets.facts) return;
    var strings = function (xs) {
      return Array.isArray(xs) && xs.every(function (x) { return typeof x === 'string'; });
    };
    Object.keys(sheets.facts).forEach(function (href) {
      var f = sheets.facts[href];
      if (!f || typeof f.stateful !== 'boolean' || typeof f.hides !== 'boolean'
        || !strings(f.pinned) || !strings(f.imports)) return;
      W.sheetFacts.set(href, { stateful: f.stateful, hides: f.hides, pinned: f.pinned, imports: f.imports });
      f.imports.forEach(askSheet);
    });
    W.stateful = W.hides = W.pinned = null;
  }

  // A read: every anchored control's record in document order (up to `max`; beyond it only
  // counted, by region and role). With `since` naming the read the caller holds, and when
  // nothing was cut, only what changed is sent. When nothing happened since the last read
  // that could change a record — no mutation, no value changed, nothing moved or restyled
  // (see shifted) — its records are reused as they are (the focus is reported apart; a
  // rule's style the page kept from an earlier read and sets by name later is seen at the
  // next mutation, see RULES_WITH_STYLE). With `region`, only that region's controls, whole, and
  // nothing kept for the next read (see `readRegion`). With `caps`, the evidence too. With
  // `whole`, as the document's first read (for a bench's cold figure), kept as any read is.
  function read(max, since, region, caps, whole) {
    if (region !== null && region !== undefined) return readRegion(max, region, caps);
    if (whole) {
      // As the document's first read: every root found and every control gathered again,
      // and what the style sheets hold asked again.
      W.rootsUnknown = true;
      W.hides = null;
      since = null;
    }
    visChecks = 0;
    var roots = collectRoots();
    var prev = W.cache;
    // Whether the last read's records stand (see shifted): with a change to the window's
    // scroll alone, they stand but for the controls it names.
    var shift = prev && !W.dirty && !whole && prev.max === max ? shifted(prev, roots) : true;
    var reuse = shift !== true;
    // Records, their wire form and their elements, by id: arrays, as ids are small integers
    // (filling three Maps cost a 50,000-control read some 30 ms).
    var ids = [], wired = [], recs = [], elOf = [], total = 0, live = [];
    // The role and region of each control past the cut, by id: what the counts of the
    // dropped are made of, kept for the next read as the records are.
    var pastRole = [], pastRegion = [];
    var droppedByRegion = {}, droppedByRole = {};
    var labels = null, dialog;
    var valuesDirty = W.valuesDirty;
    // With records reused, the ids whose record a value change rewrote (in document order).
    var rewritten = [];
    // How many records were built whole, and how many had their box and visibility taken
    // again (the rest were reused as they were).
    var fresh = 0, measured = 0;
    if (reuse) {
      ids = prev.ids;
      total = prev.total;
      droppedByRegion = prev.droppedByRegion;
      droppedByRole = prev.droppedByRole;
      wired = prev.wired;
      recs = prev.recs;
      elOf = prev.elOf;
      live = prev.live;
      // A dialog opens and closes with a mutation: until one, the last answer stands.
      dialog = prev.dialog;
      if (valuesDirty) {
        // Only fields hold a value or checked state that changes without a mutation (an
        // output, a content-editable or aria-checked change mutates the DOM, which makes
        // the whole read dirty). Records are rewritten in place and their ids listed for
        // the delta: copying the held read's maps to compare them afterwards cost a
        // 50,000-control fill two 50,000-entry copies and a comparison of every record.
        // Only the fields an event or a setter named are read (see valueChanged): reading
        // every field's value cost a 10,000-control invoke 4-5 ms.
        live.forEach(function (f) {
          var el = f.el;
          if (valuesDirty !== true && !valuesDirty.has(el)) return;
          var rec = recs[f.id], value = null, checked = null;
          // What a person typed during a handoff is never read back (see valueOf).
          var typed = W.typed && W.typed.has(el);
          switch (typed ? 'typed' : f.kind) {
            case 'typed': value = valueOf(el); checked = checkedOf(el); break;
            case 'v': value = el.value; break;
            case 's': value = el.value ? '[redacted]' : ''; break;
            case 'c': checked = el.checked; break;
            case '1':
              // A single select's text changes with its index (or with a mutation).
              if (el.selectedIndex === f.index) return;
              f.index = el.selectedIndex;
              value = valueOf(el);
              break;
            default: value = valueOf(el); checked = checkedOf(el);
          }
          if (holds(rec, value, checked)) return;
          setLive(rec, value, checked);
          wired[f.id] = wire(rec);
          rewritten.push(f.id);
        });
      }
      if (shift) {
        // Only the window scrolled: the controls pinned to the viewport take their box and
        // visibility again (those past the cut have none to take), and so do those with no
        // box, which a box query places at the viewport's corner.
        boxSays = !canHide(roots, prev.scanned);
        var again = new Set(), movedIds = new Set(rewritten), top = originOf(roots[0]);
        shift.controls.forEach(function (el) {
          var id = idIn(el);
          if (id !== undefined && recs[id] && elOf[id] === el) again.add(id);
        });
        ids.forEach(function (id) {
          var b = recs[id].bbox;
          if (b[2] === 0 && b[3] === 0) again.add(id);
        });
        again.forEach(function (id) {
          var rec = recs[id], el = elOf[id];
          measured++;
          var now = moved(el, rec, top);
          if (now === rec) return;
          recs[id] = now;
          wired[id] = wire(now);
          movedIds.add(id);
        });
        if (movedIds.size > rewritten.length) rewritten = ids.filter(function (id) { return movedIds.has(id); });
      }
    } else {
      // After mutations (and no whole read asked, with the same cut), only the controls
      // they could have changed are gathered again; every other keeps its record, with its
      // box and visibility taken again (see affectedBy). A field's value may also have
      // changed without a mutation when there was input: it is read again.
      var hit = prev && !whole && prev.max === max && W.log ? affectedBy(W.log) : null;
      if (!hit) W.refIds = new Set();
      // The last scan stands when the roots are the same and no mutation could have added,
      // removed or renamed what it found (see scanHolds).
      var scans = hit && prev.roots === roots && scanHolds(W.log) ? prev.scanned
        : scanAll(roots, max);
      // Scanned again, the hiders are counted afresh; else what the mutations made one adds.
      W.hiders = scans === (prev && prev.scanned) ? W.hiders || hidersIn(W.log) : false;
      boxSays = !canHide(roots, scans);
      // A root found again with another region than it had (its host moved, or an
      // attribute its region reads changed above it), or found anew, is gathered whole.
      var wasRegion = hit && prev.roots !== roots ? new Map(prev.roots.map(function (r) { return [r.root, r.region]; })) : null;
      roots.forEach(function (r, k) {
        var sc = scans[k], els = sc.anchored, origin = originOf(r), off = null;
        var kept = hit && (!wasRegion || (wasRegion.has(r.root) && wasRegion.get(r.root) === r.region));
        for (var i = 0; i < els.length; i++) {
          var el = els[i];
          total++;
          var tag = sc.tags[i], type = tag === 'INPUT' ? el.type : undefined;
          var known = kept && !hit.has(el) ? idIn(el) : undefined;
          var old = known === undefined ? undefined : prev.recs[known];
          var role, region;
          if (old) {
            role = old.role;
            region = old.region;
          } else if (known !== undefined && prev.pastRole[known] !== undefined) {
            role = prev.pastRole[known];
            region = prev.pastRegion[known];
          } else {
            role = roleOf(el, tag, type, sc.roles[i]);
            region = sc.regions[i] !== null ? sc.regions[i] : outerRegion(el, r.region);
          }
          if (ids.length >= max) {
            bump(droppedByRegion, region);
            bump(droppedByRole, role);
            var past = known !== undefined ? known : idOf(el);
            pastRole[past] = role;
            pastRegion[past] = region;
            continue;
          }
          var id = idOf(el), rec;
          ids.push(id);
          if (old) {
            measured++;
            rec = moved(el, old, origin);
            if (valuesDirty && LIVE[tag] && (valuesDirty === true || valuesDirty.has(el))) {
              rec = refreshed(el, tag, type, rec, old);
            }
            wired[id] = rec === old ? prev.wired[id] : wire(rec);
          } else {
            if (!labels) labels = labelsOf(scans.map(function (sc) { return sc.labels; }));
            if (!off) off = disabledUnder(sc.marks);
            rec = record(el, tag, type, role, region, labels, origin, off, sc.anchors[i]);
            wired[id] = wire(rec);
            fresh++;
          }
          recs[id] = rec;
          elOf[id] = el;
          var kind = LIVE[tag] && liveKind(el, tag, type, rec.secret === true);
          if (kind) live.push({ id: id, el: el, kind: kind, index: el.selectedIndex });
        }
      });
      dialog = modalOf(scans.map(function (sc) { return sc.dialogs; }));
    }
    // Evidence is gathered again after anything that could move a box (a mutation, or what
    // shifted finds); otherwise the last is reused. No value that changes without a
    // mutation is in it: a field's value is in no text run and no name (see textOf), and an
    // input button's, which is its label, is its attribute. (A fill on a 10,000-control
    // page gathered it again, ~40 ms, for nothing.)
    var ev = null, capsKey = caps ? JSON.stringify(caps) : null;
    if (caps) {
      // After the window scrolled, it stands when nothing is pinned to the viewport and no
      // control in it lacks a box (a box query places such a one at the viewport's corner).
      var stands = reuse && prev.ev && prev.caps === capsKey && (!shift || (shift.holders === 0
        && !prev.ev.unanchored.some(function (n) { return n.bbox[2] === 0 && n.bbox[3] === 0; })));
      ev = stands ? prev.ev : gatherEvidence(roots, caps);
    }
    W.dirty = false;
    W.valuesDirty = false;
    W.moved = false;
    W.stirred = false;
    W.scrolled = false;
    W.log = [];
    W.rootsAt = 0;
    W.epoch++;
    var token = W.doc + ':' + W.epoch;
    W.cache = { token: token, max: max, ids: ids, wired: wired, recs: recs, elOf: elOf, total: total,
      droppedByRegion: droppedByRegion, droppedByRole: droppedByRole, ev: ev, caps: capsKey,
      scroll: [scrollX, scrollY],
      live: live, dialog: dialog, nstrs: W.strs.length, roots: roots,
      pastRole: reuse ? prev.pastRole : pastRole, pastRegion: reuse ? prev.pastRegion : pastRegion,
      scanned: reuse ? prev.scanned : scans,
      byAnchor: reuse || (prev && scans === prev.scanned) ? prev.byAnchor : null };

    var head = headOf(token, total, droppedByRegion, droppedByRole, dialog);
    if (W.sheetsUnread.length) {
      head.unread_sheets = W.sheetsUnread;
      W.sheetsUnread = [];
    }
    head.gathered = fresh;
    head.measured = measured;
    head.vis_checks = visChecks;
    boxSays = false;
    if (ev) head.evidence = ev;
    var parts = [];
    // A cut read sends a delta as well: the controls that came under the cut since are
    // changed records the runner never saw (added), those pushed past it leave the order
    // (removed), as comparing two full reads would say.
    if (since && prev && since === prev.token) {
      head.kind = 'delta';
      head.base = since;
      var sameOrder = prev.ids === ids || (prev.ids.length === ids.length && prev.ids.every(function (v, i) { return v === ids[i]; }));
      head.order = sameOrder ? null : runs(ids);
      head.strings_from = prev.nstrs;
      head.strings = W.strs.slice(prev.nstrs);
      var changedIds = [];
      if (reuse) {
        // Records reused outright cannot have changed; those a value change rewrote are
        // listed.
        changedIds = rewritten;
      } else {
        ids.forEach(function (id) {
          if (prev.wired[id] !== wired[id]) changedIds.push(id);
        });
      }
      changedIds.forEach(function (id) { parts.push(wired[id]); });
      head.changed_ids = changedIds;
      head.collector_ms = performance.now() - t0;
      return withRecords(JSON.stringify(head), parts);
    }
    head.kind = 'full';
    head.ids = runs(ids);
    head.strings_from = 0;
    head.strings = W.strs;
    ids.forEach(function (id) { parts.push(wired[id]); });
    head.collector_ms = performance.now() - t0;
    return withRecords(JSON.stringify(head), parts);
  }

  // One region's controls, whole (up to `max`): a full read that leaves the page's cache
  // and dirty marks as they were, so the caller's held read stays the base of the next
  // delta. Its token is empty: nothing may be sent against it. When the region has no
  // control, the regions the screen does have come back, counted.
  function readRegion(max, wanted, caps) {
    var roots = collectRoots();
    var scans = roots.map(function (r) { return scan(r.root); });
    var labels = labelsOf(scans.map(function (sc) { return sc.labels; }));
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
        var role = roleOf(el, tag, type, sc.roles[i]);
        if (ids.length >= max) {
          bump(droppedByRegion, region);
          bump(droppedByRole, role);
          continue;
        }
        ids.push(idOf(el));
        parts.push(wire(record(el, tag, type, role, region, labels, origin, null, sc.anchors[i])));
      }
    });
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
          var els = r.root.querySelectorAll('[data-anchor]');
          for (var i = 0; i < els.length; i++) {
            var n = idIn(els[i]);
            if (n) found.set(n, els[i]);
          }
        });
      }
      return found.get(id) || null;
    });
  }

  // ------------------------------------------------------------------ actions
  function describe(el) {
    var s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    var a = el.getAttribute && el.getAttribute('data-anchor');
    if (a) s += '[data-anchor=' + a + ']';
    var n = norm(el.textContent).slice(0, 40);
    return n ? s + ' "' + n + '"' : s;
  }

  function findAll(anchor, key) {
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
      var others = a.key !== null && a.key !== undefined ? findAll(a.anchor, null).length : 0;
      return { info: { status: 'not_found', count: 0, unkeyed: others } };
    }
    if (found.length > 1) {
      var keys = found.slice(0, 6).map(function (f) { return f.el.getAttribute('data-anchor-key'); });
      return { info: { status: 'ambiguous', count: found.length, keys: keys } };
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
    if (disabledOf(el)) { info.status = 'disabled'; return info; }
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
    if (a.mode === 'invoke' && t.point) {
      // A point is pressed exactly where it was named, on whatever lies there.
      info.x = t.point[0];
      info.y = t.point[1];
    } else if (a.mode === 'invoke') {
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

  // Resolves when the page is quiet, when a cross-document navigation has started, or
  // after max_ms of continuous change. Quiet means: a whole quiet_ms window passed with no
  // mutation and no request the action started in flight, and stayed so once every task
  // the page had ready to run had run (see quietWatch). Wall-clock gaps alone would call a
  // page quiet that a loaded machine had kept from running its 10 ms interval; and timer
  // order does not settle it either: Chromium may run our timer before an overdue page
  // timer that fell due earlier (on a loaded machine, a 10 ms interval was seen to tick
  // after a window of ours that fell due after it, which then called the page quiet).
  //
  // The first window is armed by the action itself, when its input reaches the page (see
  // armOn and `fill`): it then runs while the browser renders the frame the input caused,
  // which on a dense page is tens of milliseconds the settle script would otherwise wait
  // behind before arming its own. It still counts from after the page's handlers of the
  // input ran, so a timer they set due within quiet_ms falls due before it ends.
  //
  // A page also answers in the frames it renders: in the animation-frame callbacks it asked
  // for (a menu opened "next frame", a transition started in the frame after), and in the
  // resize and intersection observers that layout wakes. So quiet also means that a frame
  // has rendered since the last change, and that the page has no animation-frame callback
  // pending in a chain the action began, waiting up to FRAMES_MOST frames in a row for them
  // (an animation loop the action started, changing nothing in the DOM, ends the wait).
  function settle(quietMs, maxMs) {
    collectRoots();
    var armed = W.armed;
    disarm();
    return armed ? armed.done : quietWatch(quietMs, maxMs, W.acted).done;
  }
  var FRAMES_MOST = 3;

  // A watch for quiet (see settle), counting the page's animation frames asked for from
  // `from` on (default: now). `remark` takes the mutations so far as the baseline and
  // starts the window again from now: a window counts from its baseline, so time the
  // input's own task took (a page handler that ran long, then set a timer) is not quiet.
  function quietWatch(quietMs, maxMs, from) {
    var w = {}, start = performance.now(), mark, since;
    // `framed`: a frame has rendered since the baseline; `frames`: frames waited for since.
    var framed, frames;
    if (from === undefined || from > start) from = start;
    function baseline(now) {
      mark = W.mutations;
      since = now;
      framed = false;
      frames = 0;
      // Most often the frame the change caused renders within the window.
      onFrame(function () { if (since === now) framed = true; });
    }
    baseline(start);
    w.remark = function () { baseline(performance.now()); };
    w.done = new Promise(function (resolve) {
      // `confirmed`: called back by `after`, behind every task that was ready to run.
      function check(confirmed) {
        if (window.__wmNav) return resolve('navigating');
        var now = performance.now();
        if (W.mutations === mark && !(window.__wmInflight > 0)) {
          var left = since + quietMs - now;
          if (left > 0) return setTimeout(check, left);
          if (!framed || (frames < FRAMES_MOST && pendingFrames(W.roots || [{ root: document }], from) > 0)) {
            var at = since;
            return nextFrame(function () {
              if (since === at) { framed = true; frames++; }
              check();
            });
          }
          if (confirmed === true) return resolve('quiet');
          // Chromium may run our timer before an overdue page timer that fell due earlier
          // (see settle): the verdict waits for every task ready to run.
          return after(function () { check(true); }, quietMs);
        }
        if (now - start >= maxMs) return resolve('busy');
        baseline(now);
        setTimeout(check, quietMs);
      }
      if (window.__wmNav) return resolve('navigating');
      setTimeout(check, quietMs);
    });
    return w;
  }

  // Runs fn once every task the page has ready to run has run: a background task waits
  // behind all of higher priority, an overdue page timer among them. A page that never
  // lets the main thread idle (a message loop) starves such a task: when it has not run
  // within ms, fn goes behind the tasks ready then, at the page's own priority.
  function after(fn, ms) {
    if (!(window.scheduler && scheduler.postTask)) return setTimeout(fn, 0);
    var done = false;
    var once = function () { if (!done) { done = true; fn(); } };
    scheduler.postTask(once, { priority: 'background' });
    setTimeout(function () { if (!done) scheduler.postTask(once, { priority: 'user-visible' }); }, ms);
  }

  // Runs fn in a task of its own, as soon as may be.
  function soon(fn) {
    if (window.scheduler && scheduler.postTask) scheduler.postTask(fn, { priority: 'user-blocking' });
    else setTimeout(fn, 0);
  }

  // Arms the first quiet window of an action when its input reaches the page: the first
  // `type` event in `doc` (a click for invoke, a key's release for press). Armed by a
  // capturing listener, before the page's own handlers; its baseline is taken again once
  // the event has reached the document on its way back, so what those handlers changed in
  // answer is the action's doing, not more change to wait out, and a timer they set due
  // within quiet_ms falls due before the window ends. A handler that stops the event
  // leaves that to the task after the input's. No such event (the action missed, or its
  // target went away under the press) leaves settle to arm its own.
  function armOn(doc, type, quietMs, maxMs) {
    disarm();
    if (!doc || quietMs === undefined || quietMs === null) return;
    var back = false;
    // Only the browser's own input: a click the page's script sends is not the action.
    var first = function (e) {
      if (!e.isTrusted) return;
      doc.removeEventListener(type, first, true);
      if (W.armed) return;
      var w = W.armed = quietWatch(quietMs, maxMs, W.acted);
      soon(function () { if (!back) w.remark(); });
    };
    var last = function (e) {
      if (!e.isTrusted) return;
      doc.removeEventListener(type, last, false);
      back = true;
      if (W.armed) W.armed.remark();
    };
    doc.addEventListener(type, first, true);
    doc.addEventListener(type, last, false);
    W.disarm = function () {
      doc.removeEventListener(type, first, true);
      doc.removeEventListener(type, last, false);
    };
  }

  // Forgets the armed window and the listeners that would arm one.
  function disarm() {
    if (W.disarm) W.disarm();
    W.disarm = null;
    W.armed = null;
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

  function stringify(v) { return JSON.stringify(v); }

  takeSheets(args && args.sheets);

  switch (op) {
    case 'read':
      return read(args.max, args.since, args.region, args.evidence, args.whole === true);
    case 'prepare':
      return stringify(prepare(args));
    case 'elements':
      return elementsOf(args.ids);
    case 'early':
      // Run in a new document before its own scripts (see collector::early).
      watchSetters(window);
      watchListeners(window);
      watchFrames(window);
      return '"ok"';
    case 'handoff':
      handoffMark(args.on);
      return '"ok"';
    case 'facts': {
      var facts = {};
      Object.keys(args.texts).forEach(function (href) { facts[href] = sheetFacts(args.texts[href], href); });
      return stringify(facts);
    }
    case 'settle':
      return settle(args.quiet_ms, args.max_ms).then(function (state) {
        var waited = performance.now() - t0;
        t0 = performance.now();
        var r = state === 'navigating' ? 'null' : read(args.max, args.since, null, args.evidence);
        return holding('{"state":' + JSON.stringify(state) + ',"waited_ms":' + waited + ',"frame_ms":' + frameMs(), r);
      });
    case 'finish_fill': {
      var fin = finishFill(args, !(W.armed && W.armed.changed));
      return settle(args.quiet_ms, args.max_ms).then(function (state) {
        fin.waited_ms = performance.now() - t0;
        t0 = performance.now();
        fin.state = state;
        fin.frame_ms = frameMs();
        var r = state === 'navigating' ? 'null' : read(args.max, args.since, null, args.evidence);
        var f = JSON.stringify(fin);
        return holding(f.slice(0, -1), r);
      });
    }
    case 'fill': {
      // prepare and the typing in one trip (see `fill_in` in tools/act.rs): what prepare
      // found, the value the field must end with, and who types it: `done` (typed here),
      // `runner` (left to CDP's Input.insertText) or `none` (prepare set the value, or
      // there is nothing to type).
      var info = prepare(args);
      var ex = args.expected, kind = info.kind;
      var text = kind === 'multiline' ? ex.multiline : kind === 'contenteditable' ? ex.words
        : kind === 'select' ? (info.chosen || '') : ex.line;
      var answer = function (typing) {
        // The value is in (typed here, or set by prepare): the field's change, and the
        // first quiet window armed in this task (see settle), with its baseline taken
        // after the mutation observers the input and change woke.
        var el = W.target;
        if (typing !== 'runner' && info.status === 'ok' && el && el.isConnected) {
          // prepare set the value itself: its answer is timed from here.
          if (typing === 'none') timeFrame();
          el.dispatchEvent(new Event('change', { bubbles: true }));
          var w = W.armed = quietWatch(args.quiet_ms, args.max_ms, W.acted);
          w.changed = true;
          Promise.resolve().then(w.remark);
        }
        return stringify({ prepared: info, expected: text, typing: typing });
      };
      if (info.status !== 'ok' || !TYPED[kind] || text === '') return answer('none');
      // After the microtasks prepare's focus and selection queued (the page's mutation
      // observers, say), as a separate insertText would come after them; still one task,
      // so no navigation falls between the check and the typing.
      return Promise.resolve().then(function () {
        var el = W.target;
        // The editing command CDP's Input.insertText runs: the same trusted `input`, the
        // same undo step, the same selection after. A page that could tell the two apart
        // (see watchListeners: an editor, a mask that refuses keys, a field reformatted on
        // focus), and a document that cannot run the command, leave the typing to the runner.
        var typed = false;
        if (el && el.isConnected && canType(el)) {
          timeFrame();
          typed = el.ownerDocument.execCommand('insertText', false, text);
        }
        // The runner types: the frame is timed again from the first trusted `input` it
        // causes (see hearInput).
        if (!typed && el && el.isConnected) hearInput(el.ownerDocument, [], 'input');
        return answer(typed ? 'done' : 'runner');
      });
    }
    default:
      throw new Error('waymark collector: unknown operation ' + op);
  }
})

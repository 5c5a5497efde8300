// A control's accessible name, role and states.

  // Whitespace collapsed and trimmed. Most names already are: one test, and no new string
  // (a 10,000-control read collapsed every label anew, 1-2 ms of its time).
  // Icon-font glyphs (Unicode's Private Use Area: U+E000–U+F8FF, and planes 15 and 16,
  // whose high surrogates are U+DB80–U+DBFF) are left out too: a button drawn as "\uE001
  // Login" is named "Login", compared and shown so.
  var UNNORMAL = /\s\s|[^\S ]|^\s|\s$|[\uE000-\uF8FF\uDB80-\uDBFF]/;
  var PUA = /[\uE000-\uF8FF]|[\uDB80-\uDBFF][\uDC00-\uDFFF]/g;
  function norm(s) {
    if (!s) return '';
    return UNNORMAL.test(s) ? s.replace(PUA, '').replace(/\s+/g, ' ').trim() : s;
  }

  // Whether `el` carries the `hidden` attribute, as an HTML element (on SVG it hides
  // nothing). The attribute, as Chromium's names go by it, not the element's own `hidden`
  // property, which a component's class may answer otherwise (its `get hidden()`): that
  // named the component's content "" where Chromium names it by its text. So HTMLElement's
  // getter, as the page had it when the collector came, called on the element (as fast as
  // the property; hasAttribute took 1 ms more per 10,000 calls, timed alone); an element
  // of another window's HTMLElement (a frame's), or of none, is asked for the attribute.
  var HTML_NS = 'http://www.w3.org/1999/xhtml';
  var HTML_ELEMENT = HTMLElement;
  var HIDDEN = (Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'hidden') || {}).get;
  function hiddenAttr(el) {
    if (HIDDEN && el instanceof HTML_ELEMENT) return !!HIDDEN.call(el);
    return el.hasAttribute('hidden') && el.namespaceURI === HTML_NS;
  }

  var SKIP_TAGS = { SCRIPT: 1, STYLE: 1, TEMPLATE: 1, NOSCRIPT: 1 };

  // Text alternative of a subtree (the "name from content" step), skipping `skip` (the
  // control a wrapping label labels) and hidden parts unless `referenced` (a hidden
  // aria-labelledby target lends all its text). Only the subtree's own elements are styled
  // (display: none, visibility, blocks): a control with text alone, the usual button or
  // link, costs one DOM call.
  function textOf(node, referenced, skip) {
    return partOf(node, referenced, skip, null);
  }

  // `cs`: the computed style of `node` when it is an element below the top of the walk.
  function partOf(node, referenced, skip, cs) {
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1 || node === skip) return '';
    var el = node, tag = el.tagName;
    if (SKIP_TAGS[tag]) return '';
    var all = referenced || includeHidden;
    if (!all && (hiddenAttr(el) || el.getAttribute('aria-hidden') === 'true')) return '';
    if (cs && !all && cs.display === 'none') return '';
    // A visibility: hidden element's own text is out, but a visible child of it is in.
    var unseen = !!cs && !all && cs.visibility !== 'visible';
    var al = el.getAttribute('aria-label');
    if (al && al.trim()) return unseen ? '' : ' ' + al + ' ';
    if (tag === 'IMG') return unseen ? '' : ' ' + (el.getAttribute('alt') || '') + ' ';
    if (LIVE[tag] || cs) {
      var embedded = embeddedOf(el, tag, skip);
      if (embedded !== null) return unseen ? '' : ' ' + embedded + ' ';
    }
    // Inside a name from content, a descendant whose role takes no name from content (a
    // menu item's submenu, a tree item's group, a toolbar) lends none of it (accname 1.2,
    // as Chromium and Playwright apply it): a menu item stays "Enabled" with its submenu open.
    if (cs && fromContent && !referenced && !CONTENT_ROLES[roleOf(el, tag)]) return '';
    var out = '';
    var gen = !unseen && generatedOn();
    if (gen) out = pseudoText(el, '::before');
    var kids = tag === 'SLOT' ? el.assignedNodes({ flatten: true }) : null;
    var root = el.shadowRoot || el;
    // Text only (the usual button, link or label): its text nodes, in one DOM call.
    if (!kids && root === el && !el.firstElementChild) out += unseen ? '' : el.textContent;
    else if (kids) for (var k = 0; k < kids.length; k++) out += childText(kids[k], referenced, skip, unseen);
    else for (var c = root.firstChild; c; c = c.nextSibling) out += childText(c, referenced, skip, unseen);
    if (gen) out += pseudoText(el, '::after');
    var display = cs ? (cs.display !== 'inline' && cs.display !== 'contents') || tag === 'BR'
      : tag === 'BR' || tag === 'P' || tag === 'DIV' || tag === 'LI';
    return display ? ' ' + out + ' ' : out;
  }

  function childText(c, referenced, skip, unseen) {
    if (c.nodeType === 3) return unseen ? '' : c.data;
    if (c.nodeType !== 1) return '';
    return partOf(c, referenced, skip, getComputedStyle(c));
  }

  var RANGES = { slider: 1, spinbutton: 1, scrollbar: 1, progressbar: 1, meter: 1 };

  // What an embedded control lends a name around it (accname 2C): a field its value, a
  // list its chosen option, a range its value; null for an element that is none of these.
  // The control being named lends nothing of itself, and a secret nothing at all.
  function embeddedOf(el, tag, skip) {
    if (el === skip) return '';
    if (tag === 'INPUT') {
      var t = el.type;
      if (t === 'button' || t === 'submit' || t === 'reset') return el.value;
      if (t === 'image') return el.alt || '';
      if (t === 'checkbox' || t === 'radio' || t === 'file' || t === 'hidden') return '';
      if (isSecret(el, tag, t) || (W.typed && W.typed.has(el))) return '';
      return el.value;
    }
    if (tag === 'SELECT') {
      var sel = [], opts = el.options;
      for (var i = 0; i < opts.length; i++) if (opts[i].selected) sel.push(opts[i].text);
      return sel.join(' ');
    }
    if (tag === 'TEXTAREA') return W.typed && W.typed.has(el) ? '' : el.value;
    var role = el.getAttribute('role');
    if (role && RANGES[role]) {
      return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || '';
    }
    return null;
  }

  // Whether the page's style sheets can give an element generated content that a name
  // shows (a rule on ::before or ::after that sets `content`), as the last read found (see
  // read); asking each element's pseudo-elements for their style would cost a dense read
  // dearly. Before any read, assumed so.
  function generatedOn() {
    return W.generated !== false;
  }
  // A rule whose content is strings that hold nothing but icon-font glyphs, or nothing at
  // all (a clearfix's `content: ""`, an icon font's `content: "\f00d"`), puts nothing in a
  // name (see norm and pseudoText): not counted. Most apps' sheets hold only such rules on
  // pseudo-elements, and counting them had every name from content ask for two
  // pseudo-elements' style (42 ms of a 169 ms read of the 10,000-control page with such
  // rules on its buttons and links).
  function generates(rule) {
    var sel = rule.selectorText, style = styleOf(rule);
    if (typeof sel !== 'string' || !/:(before|after)/i.test(sel) || !style) return;
    var content = style.getPropertyValue('content');
    if (content && namesWith(content)) return STOP;
  }
  // Whether a pseudo-element's `content` as a rule declares it can put text in a name:
  // anything but strings empty of all but icon-font glyphs (a value that is not strings
  // alone, `var()` say, may compute to a string).
  function namesWith(content) {
    var m = CONTENT.exec(content);
    if (!m) return !/^\s*(none|normal)\s*$/i.test(content);
    var shows = false;
    (m[1] + (m[2] || '')).replace(QUOTED, function (all, x) {
      if (x.replace(PUA, '') !== '') shows = true;
      return '';
    });
    return shows;
  }

  // The text a pseudo-element's `content` puts in a name: its strings, or its alternative
  // text when it has one (`content: "x" / "alt"`, which Chromium speaks set apart).
  var QUOTED = /"((?:[^"\\]|\\.)*)"/g;
  var CONTENT = /^\s*((?:"(?:[^"\\]|\\.)*"\s*)+)(?:\/\s*((?:"(?:[^"\\]|\\.)*"\s*)*))?$/;
  function pseudoText(el, which) {
    var v = getComputedStyle(el, which).content;
    if (!v || v === 'none' || v === 'normal') return '';
    var m = CONTENT.exec(v);
    if (!m) return '';
    var strings = function (s) {
      var out = '';
      s.replace(QUOTED, function (all, x) { out += x.replace(/\\(.)/g, '$1'); return ''; });
      return out;
    };
    return m[2] !== undefined ? ' ' + strings(m[2]) + ' ' : strings(m[1]);
  }

  var TYPABLE = { text: 1, search: 1, email: 1, url: 1, tel: 1, password: 1 };

  // Set while an element hidden from accessibility is named for a matcher that asks for
  // hidden elements (`hidden: true`): its hidden parts count, as in Playwright's
  // getByRole with includeHidden.
  var includeHidden = false;
  function hiddenNameOf(el, role, labels) {
    includeHidden = true;
    try { return nameOf(el, role, labels); } finally { includeHidden = false; }
  }

  // Set while a name is taken from an element's own content (not a label's, nor what an
  // aria-labelledby names, whose whole text counts).
  var fromContent = false;
  // The roles a descendant may have and still lend its content to a name from content.
  var CONTENT_ROLES = {};
  ('button cell checkbox columnheader gridcell heading link menuitem menuitemcheckbox '
    + 'menuitemradio option radio row rowheader switch tab tooltip treeitem caption code '
    + 'contentinfo definition deletion emphasis insertion list listitem mark none paragraph '
    + 'presentation region rowgroup strong subscript superscript table term time generic')
    .split(' ').forEach(function (r) { CONTENT_ROLES[r] = 1; });

  var NAME_FROM_CONTENT = {
    button: 1, link: 1, checkbox: 1, radio: 1, menuitem: 1, menuitemcheckbox: 1,
    menuitemradio: 1, option: 1, tab: 1, treeitem: 1, switch: 1, cell: 1, columnheader: 1,
    rowheader: 1, row: 1, heading: 1, tooltip: 1, gridcell: 1
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
      case 'TR': return 'row';
      case 'TH': return 'columnheader';
      case 'TABLE': return 'table';
      case 'UL': case 'OL': case 'MENU': return 'list';
      case 'NAV': return 'navigation';
      case 'MAIN': return 'main';
      case 'ARTICLE': return 'article';
      case 'ASIDE': return 'complementary';
      case 'FIELDSET': case 'DETAILS': return 'group';
      case 'P': return 'paragraph';
      case 'SECTION': case 'FORM':
        // Named, a section is a region and a form a form; unnamed, neither is a landmark.
        if (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')) return (tag || el.tagName) === 'FORM' ? 'form' : 'region';
        return 'generic';
      case 'HEADER': case 'FOOTER':
        if (el.closest('article,aside,main,nav,section')) return 'generic';
        return (tag || el.tagName) === 'HEADER' ? 'banner' : 'contentinfo';
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
    if (hiddenAttr(el) || el.getAttribute('aria-hidden') === 'true') return true;
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
    // The misspelling Chromium accepts too, when the right one is absent.
    var v = el.getAttribute('aria-labelledby') || el.getAttribute('aria-labeledby');
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
      if (t === 'image') return norm(el.alt || el.value || el.title) || 'Submit';
    }
    var labs = labels.get(el);
    if (labs) {
      // An empty label lends its title, as in Chromium.
      var ls = norm(labs.map(function (l) { return textOf(l, false, el) || l.title; }).join(' '));
      if (ls) return ls;
    }
    if (NAME_FROM_CONTENT[role] || tag === 'BUTTON' || tag === 'A') {
      fromContent = true;
      var cs;
      try { cs = norm(textOf(el, false, null)); } finally { fromContent = false; }
      if (cs) return cs;
    }
    if (tag === 'IMG' || tag === 'AREA') {
      var alt = el.getAttribute('alt');
      if (alt && alt.trim()) return norm(alt);
    }
    var caption = CAPTIONS[tag] && captionOf(el, CAPTIONS[tag]);
    if (caption) return caption;
    v = el.getAttribute('title');
    if (v && v.trim()) return norm(v);
    v = el.getAttribute('placeholder') || el.getAttribute('aria-placeholder');
    if (v && v.trim()) return norm(v);
    return '';
  }

  // Elements named by a child of theirs (HTML-AAM): a fieldset by its legend, a figure by
  // its caption, a table by its caption.
  var CAPTIONS = { FIELDSET: 'LEGEND', FIGURE: 'FIGCAPTION', TABLE: 'CAPTION' };
  function captionOf(el, tag) {
    for (var c = el.firstElementChild; c; c = c.nextElementSibling) {
      if (c.tagName === tag) return norm(textOf(c, false, null));
    }
    return '';
  }

  function isSecret(el, tag, type) {
    if ((tag || el.tagName) !== 'INPUT') return false;
    if ((type || el.type) === 'password') return true;
    var ac = (el.getAttribute('autocomplete') || '').toLowerCase();
    return ac.indexOf('one-time-code') >= 0 || ac.indexOf('cc-number') >= 0 || ac.indexOf('cc-csc') >= 0
      || ac.indexOf('current-password') >= 0 || ac.indexOf('new-password') >= 0;
  }

  // How many secret fields holding a value the page shows now, in any of its roots: a
  // screenshot of it would show what no read ever does (see the runner's screenshots).
  function secretsShown() {
    var n = 0;
    collectRoots().forEach(function (r) {
      var inputs = tagged(r.root, 'input');
      for (var i = 0; i < inputs.length; i++) {
        var el = inputs[i];
        if (el.value && isSecret(el, 'INPUT') && el.getClientRects().length) n++;
      }
    });
    return n;
  }

  // The elements `:disabled` can match: form controls, and form-associated custom elements.
  var DISABLABLE = { BUTTON: 1, INPUT: 1, SELECT: 1, TEXTAREA: 1, OPTGROUP: 1, OPTION: 1, FIELDSET: 1 };

  // Whether `el` is disabled, as Playwright's isDisabled() tells it: a form control the
  // browser disables (its attribute, a disabled fieldset but for its first legend, a
  // disabled optgroup), or one of the roles `aria-disabled` applies to (ARIA_DISABLED;
  // `role`, or the element's own) whose nearest `aria-disabled` says true, in any case (a
  // `false` nearer than a `true` enables). `off`, when given, holds every element of the
  // root that is so (see disabledUnder), which spares a dense read a walk up per control;
  // without it (or with false), each walks up.
  function disabledOf(el, tag, off, role) {
    tag = tag || el.tagName;
    if ((DISABLABLE[tag] || tag.indexOf('-') > 0) && el.matches(':disabled')) return true;
    if (!ARIA_DISABLED[role === undefined ? roleOf(el, tag) : role]) return false;
    return off ? off.has(el) : ariaOff(el);
  }
  // The roles aria-disabled applies to (WAI-ARIA 1.2, as Playwright lists them).
  var ARIA_DISABLED = {};
  ('application button composite gridcell group input link menuitem scrollbar separator tab ' +
    'checkbox columnheader combobox grid listbox menu menubar menuitemcheckbox menuitemradio ' +
    'option radio radiogroup row rowheader searchbox select slider spinbutton switch tablist ' +
    'textbox toolbar tree treegrid treeitem').split(' ').forEach(function (r) { ARIA_DISABLED[r] = 1; });

  // Whether the nearest `aria-disabled` at or around `el` that says true or false (in any
  // case) says true; a shadow root's host is around what the root holds.
  function ariaOff(el) {
    for (var x = el; x; x = x.parentElement || (x.parentNode && x.parentNode.host) || null) {
      var a = x.getAttribute('aria-disabled');
      if (a === null) continue;
      a = a.toLowerCase();
      if (a === 'true') return true;
      if (a === 'false') return false;
    }
    return false;
  }

  // The anchored elements that are, or sit inside, one of the elements `marked`
  // aria-disabled (as a scan finds them) and that no nearer `aria-disabled="false"`
  // enables: what ariaOff says, for all of them at once (a walk up only for those inside
  // a marked one).
  function disabledUnder(marked) {
    var off = new Set();
    for (var i = 0; i < marked.length; i++) {
      off.add(marked[i]);
      var inner = marked[i].querySelectorAll(W.M ? '[data-anchor],' + W.M.sel : '[data-anchor]');
      for (var j = 0; j < inner.length; j++) if (!off.has(inner[j]) && ariaOff(inner[j])) off.add(inner[j]);
    }
    return off;
  }

  // Whether typing goes into `el` (the caller tells whether it is disabled): a text field
  // or text area not read-only, a select, or content-editable and not marked
  // `aria-readonly` where its role takes it (as Playwright's isEditable() reads it).
  function editableOf(el, tag, type) {
    tag = tag || el.tagName;
    if (tag === 'INPUT') return !!TEXT_TYPES[type || el.type] && !el.readOnly && !el.disabled;
    if (tag === 'TEXTAREA') return !el.readOnly && !el.disabled;
    if (tag === 'SELECT') return !el.disabled;
    return el.isContentEditable && !ariaReadonly(el);
  }
  function ariaReadonly(el) {
    var a = el.getAttribute('aria-readonly');
    return a !== null && a.toLowerCase() === 'true' && !!READONLY_ROLES[roleOf(el)];
  }
  // The roles aria-readonly applies to.
  var READONLY_ROLES = { checkbox: 1, combobox: 1, grid: 1, gridcell: 1, listbox: 1, radiogroup: 1,
    slider: 1, spinbutton: 1, textbox: 1, columnheader: 1, rowheader: 1, searchbox: 1, switch: 1, treegrid: 1 };

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

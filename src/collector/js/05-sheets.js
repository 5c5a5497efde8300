// The rules of the page's style sheets.

  // Whether `visit` stops at a rule of the roots' sheets (see eachRule; a sheet whose rules
  // cannot be read, another origin's, stops it too), kept in W[key] with the sheets it is
  // of in W[key + 'Sheets']: asked again only when the sheets are others (a style element's
  // text changed, a sheet added) or the answer was dropped (null: a sheet edited in script,
  // see restyled), since a large sheet takes milliseconds to walk.
  function ruleStops(roots, key, visit) {
    var sheets = sheetsOf(roots);
    if (W[key] !== null && sameSheets(W[key + 'Sheets'], sheets)) return W[key];
    W[key + 'Sheets'] = sheets;
    // Every sheet of another origin not known yet is asked for now, all at once (the walk
    // below stops at the first it cannot answer for); so before pinnedControls' walk.
    sheets.forEach(askUnread);
    W[key] = sheets.some(function (sheet) { return eachRule(sheet, visit, key) === STOP; });
    return W[key];
  }

  // Whether `known`, the sheets an answer kept was worked out from, are `sheets`, the
  // roots' sheets now, one for one.
  function sameSheets(known, sheets) {
    return !!known && known.length === sheets.length && sheets.every(function (sh, i) { return sh === known[i]; });
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
  // ('stateful', 'hides', or 'pinned' or 'clips', whose selectors go into `pinned`).
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
      if (key === 'pinned' || key === 'clips') {
        pinned.push.apply(pinned, facts[key]);
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
  // that cannot be known (and `clips`, see clippingSelectors). The sheets it imports (which a sheet made in script does not
  // load) are named, and it is known once they all are (see eachRule). Run by the `facts`
  // operation in a world of the runner's own beside the page's, so no page script sees the
  // text, which the browser keeps from the page.
  function sheetFacts(text, href) {
    var parts = typeof text === 'string' ? imported(text, href) : null;
    if (!parts) return null;
    try {
      var sh = new CSSStyleSheet();
      sh.replaceSync(parts.rest);
      var pinned = pinnedIn(sh), clipped = clipsIn(sh);
      if (!pinned || !clipped) return null;
      return {
        stateful: eachRule(sh, followsState) === STOP,
        hides: eachRule(sh, hides) === STOP,
        pinned: pinned,
        clips: clipped,
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
        || !strings(f.pinned) || !strings(f.clips) || !strings(f.imports)) return;
      W.sheetFacts.set(href, { stateful: f.stateful, hides: f.hides, pinned: f.pinned, clips: f.clips, imports: f.imports });
      f.imports.forEach(askSheet);
    });
    W.stateful = W.hides = W.pinned = W.generated = W.clips = null;
  }

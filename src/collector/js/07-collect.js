// A read: each control's record, packed, and the answer.

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
    var key = keyOf(el);
    var names = W.matchOf && W.matchOf.names, label = names ? names.get(el) : undefined;
    if (label === undefined) label = nameOf(el, role, labels, tag, type);
    var secret = isSecret(el, tag, type);
    var value = valueOf(el, tag, type, secret);
    // An output (a counter, a status line, a heading) shows its text as its value.
    if (value === null && !WIDGETS[role]) value = outputText(el);
    var checked = checkedOf(el, tag, type);
    var disabled = disabledOf(el, tag, off, role);
    return {
      anchor: anchor === undefined ? anchorOf(el) : anchor,
      key: key === null ? undefined : key,
      label: label,
      role: role,
      disabled: disabled,
      // What is disabled takes no typing, as Playwright's isEditable() says.
      editable: !disabled && editableOf(el, tag, type),
      value: value === null ? undefined : value,
      secret: secret,
      checked: checked === null ? undefined : checked,
      region: region,
      visible: visibleOf(el, w, h),
      bbox: [Math.round(x + origin[0]), Math.round(y + origin[1]), Math.round(w), Math.round(h)],
      view: viewOf(el, rect, origin)
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
  // the field is empty), 256 escaped: a string held a SEP or a character past ASCII, so
  // in this record every ESC in a string starts an escape (ESC 0 for ESC, ESC 1 for SEP,
  // ESC u and four hex digits for a UTF-16 unit past ASCII, see narrow); 512 clipped: four more
  // fields follow the key, the part of the box that shows (see viewOf). The fields are joined as an
  // array: concatenating them made a rope of twenty strings per record, which cost a
  // 50,000-control read three times the time and its garbage. A full read's answer packs
  // most records without a string of their own (see pack).
  var SEP = '\x7f';
  function escapeField(s) {
    s = s.replace(/\x1b/g, '\x1b0').replace(/\x7f/g, '\x1b1');
    return WIDE.test(s) ? narrow(s, '\x1bu', Infinity) : s;
  }

  // One character past ASCII anywhere in an answer makes Chromium send all of it at about
  // twice the cost. Past Latin-1 (a name's curly apostrophe, an arrow, a title's dash), V8
  // holds the whole string two bytes a character (a 10,000-control read's way back: 24 ms
  // against 14.5, for one apostrophe in one name); and a one-byte string holding a Latin-1
  // letter (an é, a ×, a £) goes as slowly (590 KB: 24 ms against 10, for one é; the
  // protocol sends only an ASCII string as it is). So such characters go escaped, and the
  // answer stays ASCII: in a record, as ESC u and four hex digits per UTF-16 unit (flag
  // 256); in JSON, as \u and four. The test costs a read of 10,000 controls nothing that
  // shows (`bench/compare/ab.mjs`), and the escaped string is built a character at a
  // time: a replace or a slice of a two-byte string stays two-byte.
  // Escaping a character takes six bytes where UTF-8 takes two or three, and building the
  // field again a character at a time costs the page some 0.3 µs a character escaped: past
  // about one such character a record, on average (a page whose names are in Japanese,
  // say: four a record cost its 10,000-control read 12 ms more in the page, for 6 ms less
  // on the way back), an answer escaped costs more than one two-byte, and the operation
  // stops escaping there (what it escaped stays so; the runner reads both alike).
  var WIDE = /[\u0080-\uffff]/;
  var HEX = '0123456789abcdef';
  var WIDE_PER_RECORD = 1, wideRecords = 0, wideUnits = 0, wideOff = false;
  // `s` with its characters past ASCII escaped (`esc` and four hex digits a UTF-16 unit),
  // as an ASCII string; null past `most` of them.
  function narrow(s, esc, most) {
    var codes = [], out = '', units = 0;
    for (var i = 0; i < s.length; i++) {
      if (codes.length >= 4096) {
        out += String.fromCharCode.apply(null, codes);
        codes = [];
      }
      var c = s.charCodeAt(i);
      if (c < 0x80) {
        codes.push(c);
        continue;
      }
      // A surrogate goes with its pair, or, alone, as U+FFFD (as Chromium sends it).
      var pair = c >= 0xd800 && c < 0xdc00 && i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (pair >= 0xdc00 && pair < 0xe000) {
        unit(codes, esc, c);
        c = pair;
        i++;
      } else if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
      unit(codes, esc, c);
      wideUnits++;
      if (++units > most) return null;
    }
    return out + String.fromCharCode.apply(null, codes);
  }
  function unit(codes, esc, c) {
    for (var e = 0; e < esc.length; e++) codes.push(esc.charCodeAt(e));
    for (var k = 12; k >= 0; k -= 4) codes.push(HEX.charCodeAt((c >> k) & 15));
  }
  // `json` (JSON.stringify's) with its characters past ASCII written as JSON escapes,
  // unless they are more than one in sixteen (a page's text runs in Japanese).
  function narrowJson(json) {
    if (wideOff || !WIDE.test(json)) return json;
    var narrowed = narrow(json, '\\u', json.length >> 4);
    return narrowed === null ? json : narrowed;
  }

  // `rec`'s fields pushed onto `out` in the order above, with its strings as given
  // (`escaped`: as escapeField made them, flag 256).
  function fields(out, rec, anchor, label, value, key, escaped) {
    var b = rec.bbox;
    var flags = (rec.disabled ? 1 : 0) | (rec.editable ? 2 : 0) | (rec.secret ? 4 : 0)
      | (rec.visible ? 0 : 8) | (rec.checked === true ? 16 : rec.checked === false ? 32 : 0)
      | (rec.value !== undefined ? 64 : 0) | (rec.key !== undefined ? 128 : 0)
      | (escaped ? 256 : 0) | (rec.view !== undefined ? 512 : 0);
    out.push(anchor, label, strId(rec.role), strId(rec.region), b[0], b[1], b[2], b[3], flags, value, key);
    if (rec.view !== undefined) out.push(rec.view[0], rec.view[1], rec.view[2], rec.view[3]);
  }

  // A record packed into one string (see SEP); the answer of a delta and each record the
  // runner may be sent again in one (see read) are made of these.
  function wire(rec, wide) {
    var anchor = rec.anchor, label = rec.label;
    var value = rec.value === undefined ? '' : rec.value, key = rec.key === undefined ? '' : rec.key;
    var escaped = wide || anchor.indexOf(SEP) >= 0 || label.indexOf(SEP) >= 0 || value.indexOf(SEP) >= 0 || key.indexOf(SEP) >= 0;
    if (escaped) {
      anchor = escapeField(anchor); label = escapeField(label);
      value = escapeField(value); key = escapeField(key);
    }
    var parts = [];
    fields(parts, rec, anchor, label, value, key, escaped);
    var wired = parts.join(SEP);
    if (wide) return wired;
    // One test of the whole record, which nearly every one passes.
    wideRecords++;
    if (wideOff || !WIDE.test(wired)) return wired;
    wired = wire(rec, true);
    if (wideUnits > 64 + WIDE_PER_RECORD * wideRecords) wideOff = true;
    return wired;
  }

  // What in a record's string field may make wire escape it: a SEP, or a character past
  // ASCII (wire decides which it escapes).
  var UNPLAIN = /[\x7f-\uffff]/;

  // `rec`'s fields pushed onto `out`, the parts of an answer joined by SEP, as wire would
  // join them: a full read's answer is made so, without a string of each record and an
  // array to join it from (those cost a 10,000-control whole read 4-6 ms in the page of
  // its 65-70, and as much on its way out: `bench/compare/ab.mjs`, 2026-12-07), nor one
  // kept in the read for the next (see read). A record whose strings hold what wire may
  // escape goes as wire packs it.
  function pack(rec, out) {
    var anchor = rec.anchor, label = rec.label;
    var value = rec.value === undefined ? '' : rec.value, key = rec.key === undefined ? '' : rec.key;
    if (UNPLAIN.test(anchor) || UNPLAIN.test(label) || (value && UNPLAIN.test(value)) || (key && UNPLAIN.test(key))) {
      out.push(wire(rec));
      return;
    }
    wideRecords++;
    fields(out, rec, anchor, label, value, key, false);
  }

  // A read as it is answered: its JSON, a newline, then its records (a full read's all, a
  // delta's changed ones) packed. Outside the JSON, the records are neither escaped here
  // (JSON.stringify scanned a 50,000-control read's 3 MB for 6-10 ms) nor unescaped by the
  // runner; JSON.stringify never writes a raw newline, so the first one ends the JSON.
  function withRecords(json, parts) {
    return narrowJson(json) + '\n' + parts.join(SEP);
  }

  // An answer holding `read` (withRecords's form, or 'null') under "read": `json` is the
  // answer's JSON without its closing brace; the records go after the whole of it.
  function holding(json, read) {
    json = narrowJson(json);
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
        if (el.hasAttribute('data-anchor') || anchoredAt(el)) continue;
        ev.unanchored_total++;
        if (ev.unanchored.length >= caps.nodes) continue;
        if (!labels) labels = labelMap(roots);
        var role = roleOf(el);
        var rect = el.getBoundingClientRect();
        var n = { node: idOf(el), role: role, label: nameOf(el, role, labels), region: regionOf(el, r.region) };
        if (disabledOf(el, undefined, undefined, role)) n.disabled = true;
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
  // `parts`: how many parts of the records went ahead of the answer (see read), the
  // answer's first key when there are any, for the runner to see before it parses.
  function headOf(token, total, droppedByRegion, droppedByRole, dialog, parts) {
    var active = deepActive();
    var focusEl = active && active.closest ? anchoredAt(active) : null;
    var focusId = focusEl ? (idIn(focusEl) || null) : null;
    var nav = performance.getEntriesByType('navigation')[0];
    return {
      parts: parts || undefined,
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

  // A read: every anchored control's record in document order (up to `max`; beyond it only
  // counted, by region and role). With `since` naming the read the caller holds, and when
  // nothing was cut, only what changed is sent. When nothing happened since the last read
  // that could change a record — no mutation, no value changed, nothing moved or restyled
  // (see shifted) — its records are reused as they are (the focus is reported apart; a
  // rule's style the page kept from an earlier read and sets by name later is seen at the
  // next mutation, see RULES_WITH_STYLE). With `region`, only that region's controls, whole, and
  // nothing kept for the next read (see `readRegion`). With `caps`, the evidence too. With
  // `whole`, as the document's first read (for a bench's cold figure), kept as any read is.
  function read(max, since, region, caps, whole, chunk) {
    // Whether to escape what is past ASCII is weighed per read (see narrow).
    wideRecords = wideUnits = 0;
    wideOff = false;
    if (region !== null && region !== undefined) return readRegion(max, region, caps);
    if (whole) {
      // As the document's first read: every root found and every control gathered again,
      // and what the style sheets hold asked again.
      W.rootsUnknown = true;
      W.hides = W.generated = W.clips = null;
      since = null;
    }
    visChecks = 0;
    if (whole) { W.matchStale = true; W.facts = null; }
    var roots = collectRoots();
    W.matchWhole = whole;
    matched();
    W.matchWhole = false;
    W.generated = ruleStops(roots, 'generated', generates);
    var prev = W.cache;
    // Whether the last read's records stand (see shifted): with a change to the window's
    // scroll alone, they stand but for the controls it names.
    var shift = prev && !W.dirty && !whole && prev.max === max ? shifted(prev, roots) : true;
    var reuse = shift !== true;
    // Records, their wire form and their elements, by id: arrays, as ids are small integers
    // (filling three Maps cost a 50,000-control read some 30 ms). A record gathered whole
    // has no wire form until a delta sends it (see pack); one reused keeps the one it had.
    var ids = [], wired = [], recs = [], elOf = [], total = 0, live = [];
    // The role and region of each control past the cut, by id: what the counts of the
    // dropped are made of, kept for the next read as the records are.
    var pastRole = [], pastRegion = [];
    var droppedByRegion = {}, droppedByRole = {};
    var labels = null, dialog;
    var valuesDirty = W.valuesDirty;
    // Whether this read answers with the records the last one named changed (a delta), or
    // with all of them: the records' part of the answer (see pack), made in the order of
    // `ids`.
    var delta = !!(since && prev && since === prev.token), parts = [], changedIds = [];
    // A whole answer of many records goes in parts as it is made, `chunk` records each,
    // through the function the runner gave the document (see sendPart): each on its way
    // while the page makes the next. The answer holds the last part and how many went
    // ahead; the runner joins them (see src/tools/parts.rs).
    // The read's token, taken before any part goes: a read that fails after it sent some
    // has used its token up, and the next read's parts are never taken for its.
    W.epoch++;
    var token = W.doc + ':' + W.epoch;
    var sendPart = chunk > 0 && !delta && !W.priming ? W.sendPart : null;
    var partHead = sendPart ? 'c:' + token + ':' : null, sent = 0, packedTo = 0, sending = 0;

    // With records reused, the ids whose record a value change rewrote (in document order).
    var rewritten = [];
    // How many records were built whole, and how many had their box and visibility taken
    // again (the rest were reused as they were).
    var fresh = 0, measured = 0, gathered = [];
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
        trustBoxes(roots, prev.scanned);
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
      // Elements a matcher gave, took or changed an anchor or key since are gathered again.
      if (hit && W.matchChanged) W.matchChanged.forEach(function (el) { hit.add(el); });
      // The last scan stands when the roots are the same and no mutation could have added,
      // removed or renamed what it found (see scanHolds).
      var scans = hit && prev.roots === roots && scanHolds(W.log) && !W.matchMoved ? prev.scanned
        : scanAll(roots, max);
      // Scanned again, the hiders are found afresh; else what the mutations made one adds.
      // Past a hundred hiders, the document's element stands for them all (it holds every
      // control); each clipper clips by its own box, and all are kept.
      var rescanned = scans !== (prev && prev.scanned);
      W.hiders = rescanned ? [] : madeSince(W.hiders, W.log, HIDER_ATTRS, HIDERS);
      if (W.hiders.length > 100) W.hiders = [document.documentElement];
      W.clippers = rescanned ? [] : madeSince(W.clippers, W.log, CLIPPER_ATTRS, CLIPPERS);
      trustBoxes(roots, scans);
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
            role = shownRole(el, roleOf(el, tag, type, sc.roles[i]));
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
            // A shadow root under an aria-disabled host: its own marks cannot say so, and
            // each of its controls walks up (see disabledOf).
            if (off === null) off = r.root.nodeType === 11 && ariaOff(r.root.host) ? false : disabledUnder(sc.marks);
            rec = record(el, tag, type, role, region, labels, origin, off, sc.anchors[i]);
            gathered.push(id);
            fresh++;
          }
          recs[id] = rec;
          elOf[id] = el;
          // A part's records are packed once it holds them all, in a loop of their own
          // (packed each as it was made, here, they cost a 10,000-control read 3 ms more
          // in the page), and inline (a function nested in `read` for it measured 9 ms
          // more, 20 reads each).
          if (sendPart && ids.length - packedTo === chunk) {
            for (; packedTo < ids.length; packedTo++) {
              var sw = wired[ids[packedTo]];
              if (sw === undefined) pack(recs[ids[packedTo]], parts);
              else parts.push(sw);
            }
            var ahead = partHead + parts.join(SEP), sendAt = performance.now();
            sendPart(ahead);
            sending += performance.now() - sendAt;
            parts = [];
            sent++;
          }
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
    W.matchChanged = null;
    W.matchMoved = false;
    W.valuesDirty = false;
    W.moved = false;
    W.stirred = false;
    W.scrolled = false;
    W.log = [];
    W.rootsAt = 0;
    // The records' part of the answer, before the cache counts the strings the runner will
    // hold: packing a record may add its role or region to them (see strId). A cut read
    // sends a delta as well: the controls that came under the cut since are changed records
    // the runner never saw (added), those pushed past it leave the order (removed), as
    // comparing two full reads would say.
    if (delta) {
      if (reuse) {
        // Records reused outright cannot have changed; those a value change rewrote are
        // listed.
        changedIds = rewritten;
      } else {
        // A record gathered again is told from the last read's by their wire forms, that
        // one wired now if the last read packed it (see pack). A record moved or refreshed
        // is a copy that differs from the one it was made of (see moved); one kept is the
        // same record, with the same wire form or none.
        gathered.forEach(function (id) {
          wired[id] = wire(recs[id]);
          if (prev.wired[id] === undefined && prev.recs[id]) prev.wired[id] = wire(prev.recs[id]);
        });
        ids.forEach(function (id) {
          if (prev.wired[id] !== wired[id]) changedIds.push(id);
        });
      }
      changedIds.forEach(function (id) { parts.push(wired[id]); });
    } else {
      // The document's first read, taken while it loads (see prime), wires its records for
      // the read the page sends once loaded, which then only joins what it kept: packed
      // there instead, a 10,000-control page's first read took 3.0-3.5 ms in the page
      // against 0.5-0.8 (`waymark bench`, four runs each).
      if (W.priming) gathered.forEach(function (id) { wired[id] = wire(recs[id]); });
      // (What went ahead in parts is not packed again.)
      for (var p = packedTo; p < ids.length; p++) {
        var w = wired[ids[p]];
        if (w === undefined) pack(recs[ids[p]], parts);
        else parts.push(w);
      }
    }
    W.cache = { token: token, max: max, ids: ids, wired: wired, recs: recs, elOf: elOf, total: total,
      droppedByRegion: droppedByRegion, droppedByRole: droppedByRole, ev: ev, caps: capsKey,
      scroll: [scrollX, scrollY],
      live: live, dialog: dialog, nstrs: W.strs.length, roots: roots,
      pastRole: reuse ? prev.pastRole : pastRole, pastRegion: reuse ? prev.pastRegion : pastRegion,
      scanned: reuse ? prev.scanned : scans,
      byAnchor: reuse || (prev && scans === prev.scanned) ? prev.byAnchor : null };

    var head = headOf(token, total, droppedByRegion, droppedByRole, dialog, sent);
    if (W.far && W.far.length) head.frames = farFrames(roots);
    if (W.sheetsUnread.length && !W.priming) {
      head.unread_sheets = W.sheetsUnread;
      W.sheetsUnread = [];
    }
    head.gathered = fresh;
    head.measured = measured;
    head.vis_checks = visChecks;
    boxSays = false;
    unsure = null;
    clipCtx = null;
    if (ev) head.evidence = ev;
    if (delta) {
      head.kind = 'delta';
      head.base = since;
      var sameOrder = prev.ids === ids || (prev.ids.length === ids.length && prev.ids.every(function (v, i) { return v === ids[i]; }));
      head.order = sameOrder ? null : runs(ids);
      head.strings_from = prev.nstrs;
      head.strings = W.strs.slice(prev.nstrs);
      head.changed_ids = changedIds;
      head.collector_ms = performance.now() - t0;
      return withRecords(JSON.stringify(head), parts);
    }
    head.kind = 'full';
    // The page's time is the collector's own: a part's way out of the page (V8 handing the
    // string to the protocol) is the answer's way back, which an answer sent whole pays
    // after this clock stops.
    head.ids = runs(ids);
    head.strings_from = 0;
    head.strings = W.strs;
    head.collector_ms = performance.now() - t0 - sending;
    return withRecords(JSON.stringify(head), parts);
  }

  // The document's first read, taken by the page itself as soon as its DOM is parsed, with
  // the runner's arguments (`first`: max, evidence), and kept as any read is: while the
  // rest of the page loads (style sheets, images, scripts), not after the load, where it
  // waited behind the page's first frame. The runner's first read then finds the records
  // made and sends them, gathering again only what changed since (see read). On a
  // 10,000-control page that read went from ~300 ms after the load to 65-100 (issue 53).
  // Top documents only (a frame is read as a root of its top document), once, and only
  // when no read came first; what it finds of unreadable sheets is left for the next read
  // to name (see W.priming).
  //
  // With `first.push`, the name of a function the runner gave the document's window (a CDP
  // binding, see Tab::allow_pushes), the page also sends the runner that first read itself
  // once the load is over, in place of the runner asking for it: a question asked after the
  // load waited behind the page's first frame (its paint: 100-160 ms of a 10,000-control
  // page), which the page's answer, given in the load's own task, does not. It says at
  // DOMContentLoaded that an answer will come (`a:` and the document), before the load the
  // runner waits for; then, at `pageshow` (which Chromium fires right after every `load`
  // listener ran), the read as any read is answered (`r:`, the document, `:`, the answer),
  // or `n:` and the document when it could not be taken (the runner then asks). The
  // function is taken off the window before the page's scripts run: no script of the page
  // can call it, but for what W.sendPart sends (a read's parts only, see partSender).
  function prime(first) {
    if (window.top !== window || document.readyState !== 'loading') return;
    var push = takePush(first.push);
    if (push) W.sendPart = partSender(push);
    window.addEventListener('DOMContentLoaded', function () {
      // A document that went on in a new renderer process may get the function after this
      // script ran (as the tab's state is given to the new process).
      if (!push && (push = takePush(first.push))) W.sendPart = partSender(push);
      if (W.cache) return;
      W.priming = true;
      t0 = performance.now();
      try {
        read(first.max, null, null, first.evidence || null, false);
      } catch (e) {
        // The runner's own read says what is wrong.
        W.cache = null;
        W.dirty = true;
        return;
      } finally {
        W.priming = false;
      }
      if (!push) return;
      var doc = W.doc;
      push('a:' + doc);
      // For the runner to ask, should it see the load before what was pushed (see
      // first_read.rs in src/tools/).
      W.announced = doc;
      window.addEventListener('pageshow', function (e) {
        if (e.persisted) return;
        var answer = null;
        // The read's time is its own, not the document's since this script ran.
        t0 = performance.now();
        try {
          answer = read(first.max, null, null, first.evidence || null, false);
        } catch (err) {
          answer = null;
        }
        push(answer === null ? 'n:' + doc : 'r:' + doc + ':' + answer);
        // Sent: a runner that asks from now on (after a move to another fragment of this
        // document, which loads nothing) is told of nothing still to come.
        W.announced = null;
      }, { once: true });
    }, { once: true });
  }

  // What a read sends the parts of its records with (see read): `push`, for a part only
  // (`c:` and the rest). On W, where the page's scripts can reach it: one could send a
  // part of its own making, as it could change the records W keeps; never a first read.
  function partSender(push) {
    return function (s) {
      if (s.charCodeAt(0) === 99 && s.charCodeAt(1) === 58) push(s);
    };
  }

  // The runner's function to push with, named `name`, taken off the window; null when the
  // window has none.
  function takePush(name) {
    var f = name ? window[name] : null;
    if (typeof f !== 'function') return null;
    try { delete window[name]; } catch (e) { /* it stays, unnamed by the page */ }
    return f;
  }

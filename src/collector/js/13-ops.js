// The dispatch to the operation, and the function's end.

  function stringify(v) { return JSON.stringify(v); }

  // The operation: the function the page keeps (see 00-head.js), called once per operation.
  // What a read leaves set for other functions to read starts afresh with each operation,
  // whatever the one before it left, ended or thrown: what its boxes said (visibleOf, which
  // prepare and wait ask too), its clipping, and its escaping: whether its answer stopped
  // escaping, and what it counted toward that (narrowJson, which a settle's answer asks
  // even when it holds no read). The rest a function sets it sets again before it reads it
  // (visChecks), or restores in a `finally` (the name flags).
  return function (op, args) {
    t0 = performance.now();
    boxSays = false;
    unsure = null;
    clipCtx = null;
    wideRecords = wideUnits = 0;
    wideOff = false;

    takeSheets(args && args.sheets);

    // The registry's matchers, named by their version: a document that lacks this version
    // asks for them (the runner sends them with the same operation again), once.
    if (args && args.matchers) {
      takeMatchers(args.matchers);
      W.screens = args.matchers.screens || null;
    }
    // Matchers apply by screen (see onScreen): a new address may be another screen.
    if (W.screens && W.screens.length && W.matchHref !== location.href) {
      W.matchStale = true;
      W.matchHref = location.href;
    }
    else if (args && args.mv !== undefined && (!W.M || W.M.v !== args.mv)) return 'waymark:matchers';

    // A frame read for its top document is one region of it, named by its iframe, and within
    // the anchors its iframe (and the frames around it) carry, for a matcher's `within:`.
    if (args && args.inherit !== undefined && W.inherit !== args.inherit) {
      W.inherit = args.inherit;
      W.rootsUnknown = true;
    }
    if (args && args.outer !== undefined && String(W.outer) !== String(args.outer)) {
      W.outer = args.outer;
      W.matchStale = true;
    }

    switch (op) {
      case 'frames':
        return stringify(farFrames(collectRoots()));
      case 'read':
        return read(args.max, args.since, args.region, args.evidence, args.whole === true, args.chunk);
      case 'prepare': {
        var prepared = prepareWaiting(args);
        return isPromise(prepared) ? prepared.then(stringify) : stringify(prepared);
      }
      case 'wait':
        return waitFor(args.condition, args.wait_ms);
      case 'change':
        return nextChange(args.quiet_ms, args.wait_ms);
      case 'elements':
        return elementsOf(args.ids);
      case 'describe':
        return stringify(describeNodes(args.ids, args.tid));
      case 'count':
        return stringify(countMatches(args.candidates, args.mark));
      case 'early':
        // Run in a new document before its own scripts (see collector::early).
        watchSetters(window);
        watchListeners(window);
        watchFrames(window);
        watchHits(window);
        if (args.prime) prime(args.prime);
        return '"ok"';
      case 'secrets':
        return stringify(secretsShown());
      case 'acted':
        // An input is coming that is no press of a control (a pointer moved): what the page
        // does from now on is its doing (see settle).
        disarm();
        pressMissed();
        W.acted = performance.now();
        W.frame = null;
        armNavigation();
        return '"ok"';
      case 'scroll': {
        // The page scrolled by {x, y} at once, as a wheel or the keys scroll it; its scroll
        // events follow (see settle).
        disarm();
        pressMissed();
        W.acted = performance.now();
        W.frame = null;
        armNavigation();
        var se = document.scrollingElement || document.documentElement;
        se.scrollBy({ left: args.x || 0, top: args.y || 0, behavior: 'instant' });
        return stringify({ x: scrollX, y: scrollY });
      }
      case 'handoff':
        handoffMark(args.on);
        return '"ok"';
      case 'facts': {
        var facts = {};
        Object.keys(args.texts).forEach(function (href) { facts[href] = sheetFacts(args.texts[href], href); });
        return stringify(facts);
      }
      case 'settle': {
        // A press that did not reach its target was stopped before the page saw it: nothing
        // to wait for (the runner aims again, see `act_inner`).
        var missed = pressMissed();
        if (missed) {
          disarm();
          return stringify({ state: 'missed', hit: missed.hit, moved: missed.moved, read: null });
        }
        var asked = t0;
        return settle(args.quiet_ms, args.max_ms).then(function (state) {
          var waited = performance.now() - asked;
          t0 = performance.now();
          var r = state === 'navigating' ? 'null' : read(args.max, args.since, null, args.evidence);
          var download = W.downloadAsked === true;
          W.downloadAsked = false;
          return holding('{"state":' + JSON.stringify(state) + ',"waited_ms":' + waited + ',"frame_ms":' + frameMs()
            + ',"download":' + download + settleTiming(asked), r);
        });
      }
      case 'shared': {
        // Pairs of anchors whose matchers find one same element here (see `check`).
        var mo = matched(), pairs = [], who = new Map(), seen = {};
        if (mo) {
          mo.by.forEach(function (list, a) {
            list.forEach(function (m) {
              var l = who.get(m.el);
              if (!l) who.set(m.el, [a]); else if (l.indexOf(a) < 0) l.push(a);
            });
          });
          who.forEach(function (as) {
            for (var i = 0; i < as.length; i++) for (var j = i + 1; j < as.length; j++) {
              var k = as[i] + '\n' + as[j];
              if (!seen[k]) { seen[k] = 1; pairs.push([as[i], as[j]]); }
            }
          });
        }
        return stringify(pairs);
      }
      case 'pressed':
        // Whether the press aimed last reached its target (see aimHits), and the watch ended.
        return stringify(pressMissed());
      case 'finish_fill': {
        var fin = finishFill(args, !(W.armed && W.armed.changed));
        var asked = t0;
        return settle(args.quiet_ms, args.max_ms).then(function (state) {
          fin.waited_ms = performance.now() - asked;
          t0 = performance.now();
          fin.state = state;
          fin.frame_ms = frameMs();
          var r = state === 'navigating' ? 'null' : read(args.max, args.since, null, args.evidence);
          var f = JSON.stringify(fin);
          f = f.slice(0, -1) + settleTiming(asked) + '}';
          return holding(f.slice(0, -1), r);
        });
      }
      case 'fill': {
        // prepare and the typing in one trip (see `fill_in` in tools/act.rs): what prepare
        // found, the value the field must end with, and who types it: `done` (typed here),
        // `runner` (left to CDP's Input.insertText) or `none` (prepare set the value, or
        // there is nothing to type).
        var typeIn = function (info) {
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
        };
        var found = prepareWaiting(args);
        return isPromise(found) ? found.then(typeIn) : typeIn(found);
      }
      default:
        throw new Error('waymark collector: unknown operation ' + op);
    }
  };
})()

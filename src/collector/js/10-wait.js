// An action's target waited for: prepared again after each change of the page, up to a bound.

  // What a target may grow out of while the page works: not there yet (a list still
  // fetching), hidden, disabled, moving (a modal popping in), covered (a backdrop fading
  // out). Anything else (several matches, a field that takes no text, a node a read named
  // that is gone) no wait cures.
  var CURABLE = { not_found: 1, hidden: 1, disabled: 1, obscured: 1, not_stable: 1 };

  // Changes no mutation shows (an animation, a transition, a scroll) are looked at this often.
  var WAIT_POLL_MS = 100;

  // Whether prepare's answer `info` for `a` is worth waiting out: a curable status, a
  // missing anchor only when the runner says waiting could find it (`wait_missing`: one the
  // registry knows, or any with no registry), and never a point (it names a place on the
  // read the caller took, not a control).
  function waitable(a, info) {
    if (!(a.wait_ms > 0) || !CURABLE[info.status] || a.point) return false;
    return info.status !== 'not_found' || a.wait_missing === true || info.unkeyed > 0;
  }

  // attempt(a) (prepare, with the frames stability asks for), and while its answer is
  // worth waiting out (see waitable), again: at once after a box that moved (the frames
  // were the wait), else after each batch of the page's mutations (its own
  // MutationObserver, see W.wakers) and every WAIT_POLL_MS for what changes with none,
  // until `a.wait_ms` have passed. A target already there and still answers at once, with
  // no promise and no cost. An answer that was tried again carries `waited` (ms), and
  // `gave_up` with the last status seen when time ran out.
  function prepareWaiting(a) {
    var first = attempt(a);
    if (!isPromise(first) && !waitable(a, first)) return first;
    var start = performance.now(), tries = 0;
    collectRoots();
    return new Promise(function (resolve) {
      var finish = function (info, gaveUp) {
        if (tries > 0 || gaveUp) info.waited = Math.round((performance.now() - start) * 10) / 10;
        if (gaveUp) info.gave_up = true;
        resolve(info);
      };
      var next = function () {
        tries++;
        var r = attempt(a);
        if (isPromise(r)) r.then(handle); else handle(r);
      };
      var handle = function (info) {
        if (!waitable(a, info)) return finish(info, false);
        var left = a.wait_ms - (performance.now() - start);
        if (left <= 0) return finish(info, true);
        if (info.status === 'not_stable') return next();
        wakeOnce(next, left);
      };
      if (isPromise(first)) first.then(handle); else handle(first);
    });
  }

  // Runs fn once, in a task of its own, after the page's next batch of mutations, or after
  // WAIT_POLL_MS (at most `ms`) for what changes with none.
  function wakeOnce(fn, ms) {
    var done = false, timer = null;
    var wake = function () {
      if (done) return;
      done = true;
      W.wakers.delete(wake);
      clearTimeout(timer);
      soon(fn);
    };
    if (!W.wakers) W.wakers = new Set();
    W.wakers.add(wake);
    timer = setTimeout(wake, Math.min(WAIT_POLL_MS, ms));
  }

  // Resolves with {value, timedOut} once `check()` answers {done: true, value}, tried again
  // after each batch of the page's mutations (its own MutationObserver, see W.wakers) and
  // every WAIT_POLL_MS for what changes with none; after `ms`, with the last check's value.
  function waitUntil(check, ms) {
    return new Promise(function (resolve) {
      var done = false, queued = false, poll = null, timer = null;
      var finish = function (value, timedOut) {
        if (done) return;
        done = true;
        W.wakers.delete(wake);
        clearTimeout(poll);
        clearTimeout(timer);
        resolve({ value: value, timedOut: timedOut });
      };
      var retry = function () {
        queued = false;
        if (done) return;
        var r = check();
        if (r.done) return finish(r.value, false);
        clearTimeout(poll);
        poll = setTimeout(wake, WAIT_POLL_MS);
      };
      // Coalesced: one try per task however many batches woke it.
      var wake = function () {
        if (queued || done) return;
        queued = true;
        soon(retry);
      };
      if (!W.wakers) W.wakers = new Set();
      W.wakers.add(wake);
      poll = setTimeout(wake, WAIT_POLL_MS);
      timer = setTimeout(function () { finish(check().value, true); }, ms);
    });
  }

  // Whether `v` is a promise (a waited answer) rather than the answer itself.
  function isPromise(v) {
    return !!v && typeof v.then === 'function';
  }

  // Whether condition `c` ({anchor, key, text, route, gone, enabled}) holds now, and what
  // was seen, in words, one part a condition (for the message of a wait that ran out, which
  // shows each part cut). An anchor holds when one
  // of its elements is visible (and enabled, or disabled, when `enabled` says); text when
  // the page's text has it; a route when the address's path is it (with its query and
  // fragment, when the route names them). `gone` asks for the anchor, or the text, to be
  // absent instead.
  function conditionHolds(c) {
    var ok = true, seen = [];
    if (c.anchor) {
      var named = '`' + c.anchor + (c.key !== null && c.key !== undefined ? '[' + c.key + ']' : '') + '`';
      var found = findAll(c.anchor, c.key), shown = null;
      if (c.nth !== null && c.nth !== undefined) {
        var all = inDocumentOrder(found);
        named += ' (nth ' + c.nth + ' of ' + all.length + ')';
        found = c.nth < all.length ? [all[c.nth]] : [];
      }
      for (var i = 0; i < found.length && !shown; i++) {
        var el = found[i].el, r = el.getBoundingClientRect();
        if (visibleOf(el, r.width, r.height)) shown = el;
      }
      var off = shown ? disabledOf(shown) : false;
      if (c.gone) ok = !shown;
      else ok = !!shown && (c.enabled === null || c.enabled === undefined || c.enabled === !off);
      seen.push(named + (found.length === 0 ? ' absent' : !shown ? ' present but hidden'
        : off ? ' disabled' : ' shown and enabled'));
    }
    if (c.text !== null && c.text !== undefined) {
      var has = norm(document.body ? document.body.innerText : '').indexOf(norm(c.text)) >= 0;
      ok = ok && (c.gone && !c.anchor ? !has : has);
      seen.push('text "' + norm(c.text) + '" ' + (has ? 'on the page' : 'not on the page'));
    }
    if (c.route !== null && c.route !== undefined) {
      var at = location.pathname + (/[?#]/.test(c.route) ? location.search : '') + (c.route.indexOf('#') >= 0 ? location.hash : '');
      ok = ok && at === c.route;
      seen.push('route ' + location.pathname + location.search + location.hash);
    }
    return { ok: ok, seen: seen };
  }

  // Resolves with {holds, waited_ms, seen, loaded} once condition `c` holds (see
  // conditionHolds), tried again after each batch of the page's mutations and every
  // WAIT_POLL_MS (a route pushed with no change to the DOM), or with holds false after `ms`.
  // A route holds once its document has loaded, as Playwright's waitForURL waits for the
  // `load` by default: a document a redirect is still loading held at once, and was read
  // half parsed. Its load waited for, the answer says so (`loaded`): the document sent its
  // first read at that load (see `prime`), and the runner takes it.
  function waitFor(c, ms) {
    collectRoots();
    var start = performance.now();
    var answer = function (h, loaded) {
      return stringify({ holds: h.ok, waited_ms: Math.round((performance.now() - start) * 10) / 10, seen: h.seen,
        loaded: loaded === true });
    };
    var loading = function () {
      return c.route !== null && c.route !== undefined && document.readyState !== 'complete';
    };
    // `h` (holding) once the document has loaded: at its `pageshow`, which follows every
    // `load` listener (the first read's among them); as not holding at the deadline.
    var onceLoaded = function (h) {
      return new Promise(function (resolve) {
        var shown = function () {
          clearTimeout(timer);
          resolve(answer(h, true));
        };
        var timer = setTimeout(function () {
          window.removeEventListener('pageshow', shown);
          resolve(answer({ ok: false, seen: h.seen.map(function (part) {
            return part.indexOf('route ') === 0 ? part + ' (still loading)' : part;
          }) }));
        }, Math.max(0, ms - (performance.now() - start)));
        window.addEventListener('pageshow', shown, { once: true });
      });
    };
    var first = conditionHolds(c);
    if (first.ok && loading()) return onceLoaded(first);
    if (first.ok || !(ms > 0)) return answer(first);
    return waitUntil(function () {
      var h = conditionHolds(c);
      return { done: h.ok, value: h };
    }, ms).then(function (r) {
      return r.value.ok && loading() ? onceLoaded(r.value) : answer(r.value);
    });
  }

  // Resolves with "changed" once the page has changed (a batch of mutations, a value
  // typed, an address pushed) and then been quiet for `quiet` ms, or with "timeout" after
  // `ms`: what `eventually` waits for between two tries of its closure.
  function nextChange(quiet, ms) {
    collectRoots();
    var mark = W.mutations, href = location.href, start = performance.now();
    return new Promise(function (resolve) {
      var done = false, poll = null;
      var finish = function (why) {
        if (done) return;
        done = true;
        W.wakers.delete(wake);
        clearTimeout(poll);
        resolve(why);
      };
      var wake = function () {
        if (done) return;
        if (performance.now() - start >= ms) return finish('timeout');
        if (W.mutations === mark && location.href === href) {
          clearTimeout(poll);
          poll = setTimeout(wake, WAIT_POLL_MS);
          return;
        }
        // Changed: resolve once it has been quiet a whole window (or the time is up).
        var left = ms - (performance.now() - start);
        quietWatch(quiet, Math.max(0, left), performance.now()).done.then(function () { finish('changed'); });
      };
      if (!W.wakers) W.wakers = new Set();
      W.wakers.add(wake);
      setTimeout(function () { finish('timeout'); }, ms);
      // A mutation since the last read (the closure's own, say) is a change the closure has
      // not seen yet: the page's last change may have come just after it read.
      if (W.dirty) mark = -1;
      wake();
    });
  }

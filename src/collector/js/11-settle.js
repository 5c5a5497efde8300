// Settling: quiet windows, animation frames, frame_ms.

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
    (window.__wmRequest || REAL.requestAnimationFrame).call(window, fn);
  }

  // The browser's own timers and clock of `win` (bound to it), kept on it for good (not
  // writable, not configurable) for the collector's later runs and for the clock's script,
  // which defines the same when it runs first in a document (see tools/clock.js).
  function realTimers(win) {
    var p = win.performance;
    var real = Object.freeze({
      setTimeout: win.setTimeout.bind(win), clearTimeout: win.clearTimeout.bind(win),
      requestAnimationFrame: win.requestAnimationFrame.bind(win),
      now: p.now.bind(p), Date: win.Date, MessageChannel: win.MessageChannel
    });
    try { Object.defineProperty(win, '__wmReal', { value: real }); } catch (e) { return win.__wmReal || real; }
    return real;
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
    var w = W.settling = armed || quietWatch(quietMs, maxMs, W.acted);
    return w.done;
  }

  // Where the last settle's time went from `from` on (when the runner asked for the
  // settle, its input sent: the page's handlers that ran while it was being sent are the
  // input's time), for the step's timing: `page_ms`, to the page's last change; `quiet_ms`,
  // from that change to the verdict (the quiet window, the frames and tasks waited behind).
  function settleTiming(from) {
    var w = W.settling;
    if (!w || w.endAt === undefined) return ',"page_ms":null,"quiet_ms":null';
    var a = Math.min(Math.max(w.startAt, from), w.endAt), b = Math.min(Math.max(w.sinceAt, a), w.endAt);
    return ',"page_ms":' + Math.round((b - a) * 10) / 10 + ',"quiet_ms":' + Math.round((w.endAt - b) * 10) / 10;
  }
  var FRAMES_MOST = 3;

  // Whether a hashchange the page has not run yet is coming for the address as it is now.
  function hashComing() {
    if (location.href === W.href || location.href.split('#')[0] !== W.href.split('#')[0]) return false;
    if (window.__wmNavArmed && window.navigation && window.navigation.addEventListener) return W.hashPending === true;
    return true;
  }
  var HASH_MOST_MS = 500;

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
    w.done = new Promise(function (resolved) {
      var resolve = function (state) {
        w.startAt = start;
        w.sinceAt = since;
        w.endAt = performance.now();
        resolved(state);
      };
      // `confirmed`: called back by `after`, behind every task that was ready to run.
      function check(confirmed) {
        if (window.__wmNav) return resolve('navigating');
        var now = performance.now();
        // A hash route the action moved to, whose hashchange has not run yet: the app
        // renders the route then. Waited only when one is coming: a fragment navigation
        // the action started (the Navigation API tells; without it, a hash that changed
        // since the action began), bounded all the same.
        if (hashComing() && now - start < HASH_MOST_MS) {
          // Counted, for a test to tell a wait for a hashchange from none.
          if (!w.hashWaited) W.hashWaits = (W.hashWaits || 0) + 1;
          w.hashWaited = true;
          return setTimeout(check, 5);
        }
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

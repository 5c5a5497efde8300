// The journey's clock in a page (see tools/clock.rs): fake `Date`, `setTimeout`,
// `setInterval`, `requestAnimationFrame` (and their clears) and `performance.now`, in a
// window and its frames. Evaluated as `(SOURCE)(window, op, state, ms, frames)`:
//   op     'install' | 'set' | 'advance'
//   state  {offset, ticks, running, real_at}: the clock as the runner keeps it — `ticks`
//          (ms since install; timers and performance.now run on them), `offset` (Date.now()
//          is offset + ticks), `running` (ticks follow real time from `real_at`, the real
//          epoch ms when the runner took them) or paused (they stand still)
//   ms     for 'advance': how far to move, firing every timer due on the way, in order
//   frames also in the window's same-origin frames, their frames too
// Answers a promise of the clock's Date.now() in `win`.
(function (win, op, state, ms, frames) {
  'use strict';

  // The browser's own timers, kept on the window for good by whichever of the collector
  // and this script ran first in the document (the collector's `realTimers` keeps the
  // same shape): the fake clock never replaces what waymark's own waits run on.
  function realOf(w) {
    if (w.__wmReal) return w.__wmReal;
    var p = w.performance;
    var real = Object.freeze({
      setTimeout: w.setTimeout.bind(w), clearTimeout: w.clearTimeout.bind(w),
      requestAnimationFrame: w.requestAnimationFrame.bind(w),
      now: p.now.bind(p), Date: w.Date, MessageChannel: w.MessageChannel
    });
    try { Object.defineProperty(w, '__wmReal', { value: real }); } catch (e) { return w.__wmReal || real; }
    return real;
  }

  // The most timers one advance fires: an interval of 0 ms would otherwise never end it.
  var FIRES_MOST = 100000;

  function install(w) {
    if (w.__wmClock) return w.__wmClock;
    var R = realOf(w), RealDate = R.Date;
    var c = { offset: 0, base: 0, realBase: R.now(), running: false, timers: new Map(), next: 1, pending: null, perf: R.now() };
    function ticks() { return c.running ? c.base + (R.now() - c.realBase) : c.base; }
    function nowMs() { return Math.floor(c.offset + ticks()); }
    c.ticks = ticks;
    c.now = nowMs;

    function FakeDate() {
      // `Date()` called as a function is a string of now.
      if (!new.target) return new RealDate(nowMs()).toString();
      var args = arguments.length === 0 ? [nowMs()] : Array.prototype.slice.call(arguments);
      return Reflect.construct(RealDate, args, new.target);
    }
    FakeDate.prototype = RealDate.prototype;
    FakeDate.now = function now() { return nowMs(); };
    FakeDate.parse = RealDate.parse;
    FakeDate.UTC = RealDate.UTC;
    Object.defineProperty(FakeDate, 'name', { value: 'Date' });
    FakeDate.toString = function toString() { return 'function Date() { [native code] }'; };

    // Timers: {id, fn, args, at (ticks), every (ms, an interval's), frame}.
    function add(fn, delay, args, every, frame) {
      var id = c.next++;
      delay = Math.max(0, Number(delay) || 0);
      var t = ticks();
      var at = frame ? Math.floor(t / 16) * 16 + 16 : t + delay;
      c.timers.set(id, { id: id, fn: fn, args: args, at: at, every: every ? Math.max(1, delay) : 0, frame: frame });
      schedule();
      return id;
    }
    function clear(id) {
      if (c.timers.delete(Number(id))) schedule();
    }
    // The next timer due at or before `until` (the earliest, the first set among equals).
    function due(until) {
      var next = null;
      c.timers.forEach(function (t) {
        if (t.at <= until && (next === null || t.at < next.at || (t.at === next.at && t.id < next.id))) next = t;
      });
      return next;
    }
    function fire(t) {
      if (t.every) t.at += t.every; else c.timers.delete(t.id);
      try {
        if (typeof t.fn === 'function') t.fn.apply(w, t.frame ? [c.perf + t.at] : t.args);
        else (0, w.eval)(String(t.fn));
      } catch (e) {
        // Reported as the browser reports a timer's error: in a task of its own.
        R.setTimeout(function () { throw e; }, 0);
      }
    }
    // While running: a real timer for the next fake one due.
    function schedule() {
      if (c.pending !== null) { R.clearTimeout(c.pending); c.pending = null; }
      if (!c.running || c.timers.size === 0) return;
      var first = Infinity;
      c.timers.forEach(function (t) { if (t.at < first) first = t.at; });
      c.pending = R.setTimeout(function () {
        c.pending = null;
        var until = ticks(), n = 0, t;
        while ((t = due(until)) !== null && n++ < FIRES_MOST) fire(t);
        schedule();
      }, Math.max(0, first - ticks()));
    }
    c.schedule = schedule;
    // A task's turn for the page between two timers an advance fires: its promise
    // callbacks run, as they would between two real timers.
    function turn() {
      return new Promise(function (done) {
        var ch = new R.MessageChannel();
        ch.port1.onmessage = function () { done(); };
        ch.port2.postMessage(0);
      });
    }
    // Moves the clock `by` ms on, firing each timer due on the way, in order, the clock
    // standing at each one's time as it runs.
    c.advance = function (by) {
      var running = c.running;
      c.base = ticks();
      c.running = false;
      if (c.pending !== null) { R.clearTimeout(c.pending); c.pending = null; }
      var until = c.base + Math.max(0, by), n = 0;
      function step() {
        var t = due(until);
        if (t === null || n++ >= FIRES_MOST) {
          c.base = until;
          c.realBase = R.now();
          c.running = running;
          schedule();
          return Promise.resolve();
        }
        c.base = Math.max(c.base, t.at);
        fire(t);
        return turn().then(step);
      }
      return step();
    };

    w.Date = FakeDate;
    w.setTimeout = function setTimeout(fn, delay) { return add(fn, delay, Array.prototype.slice.call(arguments, 2), false, false); };
    w.setInterval = function setInterval(fn, delay) { return add(fn, delay, Array.prototype.slice.call(arguments, 2), true, false); };
    w.clearTimeout = function clearTimeout(id) { clear(id); };
    w.clearInterval = function clearInterval(id) { clear(id); };
    w.requestAnimationFrame = function requestAnimationFrame(fn) { return add(fn, 0, [], false, true); };
    w.cancelAnimationFrame = function cancelAnimationFrame(id) { clear(id); };
    try {
      Object.defineProperty(w.performance, 'now', { value: function now() { return c.perf + ticks(); }, configurable: true, writable: true });
    } catch (e) { /* a performance that will not change */ }
    Object.defineProperty(w, '__wmClock', { value: c });
    return c;
  }

  // Sets the clock of `w` to `state`: where it stands (ticks, moved on by the real time
  // since the runner took them when it runs), what Date says, running or paused. Due
  // timers fire only as a running clock reaches them.
  function set(w, c, s) {
    var R = realOf(w);
    var lag = s.running ? Math.max(0, R.Date.now() - s.real_at) : 0;
    c.offset = s.offset;
    c.base = s.ticks + lag;
    c.realBase = R.now();
    c.running = s.running;
    c.schedule();
  }

  function windows(w) {
    var all = [w];
    if (!frames) return all;
    for (var i = 0; i < w.frames.length; i++) {
      try {
        if (w.frames[i].document) all = all.concat(windows(w.frames[i]));
      } catch (e) { /* another origin's frame: its own documents get the clock as they load */ }
    }
    return all;
  }

  var done = windows(win).map(function (w) {
    var c = w.__wmClock || install(w);
    if (op === 'advance') {
      return c.advance(ms).then(function () {
        c.offset = state.offset;
      });
    }
    set(w, c, state);
    return Promise.resolve();
  });
  return Promise.all(done).then(function () { return String(win.__wmClock.now()); });
})

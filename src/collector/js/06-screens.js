// The registry's screens: an anchor's matcher applies only on the screens its anchor is
// declared on (`screens:`), as `anchors.yaml` promises it there.

  // Whether matcher entry `e` applies on the screen the page shows now: the first of the
  // registry's screens (a hash route's first, then in file order, as the runner picks
  // them) whose route the address is on, when its anchor is declared there. On an address
  // no declared screen is on, every matcher applies: nothing is promised there.
  function onScreen(e) {
    var S = W.screens;
    if (!e.scr || !S || !S.length) return true;
    var here = screenHere(S);
    return here === null || e.scr.indexOf(here) >= 0;
  }

  // The index (in the runner's list) of the screen the address is on, or null; each
  // route is a pattern of the path ({p}) and, for a hash route, of the fragment ({h}).
  function screenHere(S) {
    if (S.at === location.href) return S.here;
    var path = location.pathname, hash = location.hash, frag = hash.replace(/^#!?/, '');
    S.here = null;
    for (var i = 0; i < S.length; i++) {
      var s = S[i];
      if (!s.prx) {
        s.prx = new RegExp(s.p);
        s.hrx = s.h ? new RegExp(s.h) : null;
      }
      if (!s.prx.test(path)) continue;
      if (s.hrx && (!hash || !s.hrx.test(frag))) continue;
      S.here = s.i;
      break;
    }
    S.at = location.href;
    return S.here;
  }

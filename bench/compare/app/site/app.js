// What every page of the fixture app shares: the header, the signed-in user, and the
// tickets (kept in sessionStorage, so each browser context starts with the seeded ones).
var SEED = [
  ['T-101', 'Printer jams on the second floor', 'High', 'Open'],
  ['T-102', 'VPN drops every hour', 'High', 'Open'],
  ['T-103', 'New laptop for Ada', 'Normal', 'Open'],
  ['T-104', 'Printer out of toner', 'Low', 'Open'],
  ['T-105', 'Password reset for Tom', 'Normal', 'Closed'],
  ['T-106', 'Projector in room 4 flickers', 'Normal', 'Open'],
  ['T-107', 'Mailbox full', 'Low', 'Open'],
  ['T-108', 'Access to the finance share', 'High', 'Open'],
  ['T-109', 'Monitor arm is loose', 'Low', 'Closed'],
  ['T-110', 'Calendar invites arrive twice', 'Normal', 'Open'],
  ['T-111', 'Badge reader at the back door', 'High', 'Open'],
  ['T-112', 'Keyboard missing keys', 'Low', 'Open']
];
function tickets() {
  var t = sessionStorage.getItem('tickets');
  return t ? JSON.parse(t) : SEED.map(function (r) { return { id: r[0], title: r[1], priority: r[2], status: r[3] }; });
}
function saveTickets(list) { sessionStorage.setItem('tickets', JSON.stringify(list)); }
// The tickets as a server would send them: a moment later.
function fetchTickets() {
  return new Promise(function (ok) { setTimeout(function () { ok(tickets()); }, 120); });
}
function drawHeader(current) {
  var pages = [['index.html', 'Home'], ['tickets.html', 'Tickets'], ['new.html', 'New ticket'],
    ['reports.html', 'Reports'], ['settings.html', 'Settings']];
  var h = document.createElement('header');
  var nav = document.createElement('nav');
  nav.setAttribute('aria-label', 'Main');
  pages.forEach(function (p) {
    var a = document.createElement('a');
    a.href = '/' + p[0];
    a.textContent = p[1];
    if (p[0] === current) a.setAttribute('aria-current', 'page');
    nav.appendChild(a);
  });
  h.appendChild(nav);
  var who = document.createElement('span');
  var user = sessionStorage.getItem('user');
  if (user) who.textContent = 'Signed in as ' + user;
  else { var s = document.createElement('a'); s.href = '/signin.html'; s.textContent = 'Sign in'; who.appendChild(s); }
  h.appendChild(who);
  document.body.insertBefore(h, document.body.firstChild);
}

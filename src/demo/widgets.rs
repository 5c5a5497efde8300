//! The widgets test bench: one screen of edge cases (a modal, disabled, read-only, hidden
//! and covered controls, a secret, a busy page, a JS alert, every way of naming a control,
//! an open shadow root and a same-origin frame). An anchor on two controls is not here: a
//! registry that promised one would break `waymark check`; `tests/fixtures/audit/twins.html`
//! holds that case.

use axum::extract::State;
use axum::response::Response;

use super::chrome::{MODAL_JS, Nav, bare_page, html, page};
use super::state::AppState;

/// A trash-can icon as a data: URL, so the image button needs nothing from the network.
const DELETE_ICON: &str = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' \
width='16' height='16' viewBox='0 0 16 16'%3E%3Cpath d='M3 4h10M6 4V2h4v2M4 4l1 10h6l1-10' \
fill='none' stroke='%23b91c1c' stroke-width='1.5'/%3E%3C/svg%3E";

const DIALOGS: &str = r#"<section class="card" data-anchor-region="dialogs" aria-labelledby="dialogs-title">
<h2 id="dialogs-title">Dialogs</h2>
<p class="actions"><button type="button" data-anchor="widgets.open-dialog" data-opens="rename-backdrop" aria-haspopup="dialog">Open dialog</button>
<span role="status" id="rename-result">No name chosen yet.</span></p>
<div class="backdrop" id="rename-backdrop" hidden>
<div class="dialog" role="dialog" aria-modal="true" aria-labelledby="rename-title">
<h2 id="rename-title">Rename item</h2>
<div class="field"><label for="rename-name">Name</label><input type="text" id="rename-name" data-anchor="widgets.dialog-name"></div>
<div class="actions"><button type="button" data-closes data-anchor="widgets.dialog-close">Close</button><button type="button" class="primary" data-closes id="rename-ok" data-anchor="widgets.dialog-ok">OK</button></div>
</div>
</div>
</section>
"#;

const STATES: &str = r#"<section class="card" data-anchor-region="states" aria-labelledby="states-title">
<h2 id="states-title">States</h2>
<div class="row">
<div class="field"><button type="button" data-anchor="widgets.disabled" disabled>Archive</button></div>
<div class="field"><label for="w-readonly">Reference</label><input type="text" id="w-readonly" readonly value="REF-0001" data-anchor="widgets.readonly"></div>
<div class="field"><button type="button" data-anchor="widgets.hidden" style="display:none">Hidden action</button></div>
<div class="field" style="position:relative">
<button type="button" id="covered" data-anchor="widgets.covered">Covered action</button>
<div id="overlay" style="position:absolute;inset:-6px;background:#fde68a;border:1px solid #d97706;border-radius:6px;display:flex;align-items:center;justify-content:center;font-size:12px">Overlay</div>
</div>
<div class="field"><button type="button" id="counter" data-anchor="widgets.counter">Clicked 0 times</button></div>
</div>
<div class="row">
<div class="field"><label for="w-secret">API secret</label><input type="password" id="w-secret" value="hunter2" autocomplete="off" data-anchor="widgets.secret"></div>
<div class="field"><label for="w-key">Key target</label><input type="text" id="w-key" data-anchor="widgets.key-target"><span role="status" id="w-key-status">No key pressed yet.</span></div>
<div class="field"><button type="button" id="busy" data-anchor="widgets.busy">Start busy work</button><span id="busy-output" class="muted">Idle.</span></div>
</div>
<p class="actions">
<button type="button" data-anchor="widgets.alert" onclick="alert('Heads up')">Show alert</button>
<button type="button" id="plain" onclick="this.textContent='Plain pressed'">Plain button</button>
<button type="button" data-anchor="widgets.upload" onclick="document.getElementById('w-file').click()">Attach a file</button>
<input type="file" id="w-file" hidden>
<a href="/slow?ms=20000" data-anchor="widgets.slow-link">Slow page</a>
<a href="/claims" data-anchor="widgets.navigate-link">Go to claims</a>
</p>
<p role="status" id="covered-result"></p>
</section>
"#;

const SHADOW: &str = r#"<wm-card data-anchor-region="shadow">
<template>
<style>
.shadow-card{background:#fff;border:1px solid #d1d5db;border-radius:8px;padding:16px;margin:0 0 16px;font:14px/1.45 system-ui,sans-serif}
h2{font-size:16px;margin:0 0 10px}
input,button{font:inherit;padding:6px 8px;border:1px solid #9ca3af;border-radius:6px;background:#fff}
</style>
<div class="shadow-card">
<h2>Shadow DOM</h2>
<label for="shadow-input">Shadow field</label> <input type="text" id="shadow-input" data-anchor="widgets.shadow-input">
<button type="button" id="shadow-button" data-anchor="widgets.shadow-button">Shadow clicks: 0</button>
</div>
</template>
</wm-card>
"#;

const FRAME: &str = r#"<section class="card" aria-labelledby="frame-title">
<h2 id="frame-title">Frame</h2>
<iframe src="/widgets/frame" title="Embedded form" data-anchor-region="frame" style="width:100%;height:240px;border:1px solid #d1d5db;border-radius:6px"></iframe>
</section>
"#;

const WIDGETS_JS: &str = r#"<script>
(function () {
  document.getElementById('rename-ok').addEventListener('click', function () {
    document.getElementById('rename-result').textContent =
      'Name: ' + document.getElementById('rename-name').value;
  });
  document.getElementById('covered').addEventListener('click', function () {
    document.getElementById('covered-result').textContent = 'Covered action ran';
  });
  var clicks = 0;
  document.getElementById('counter').addEventListener('click', function () {
    clicks++;
    this.textContent = 'Clicked ' + clicks + ' times';
  });
  document.getElementById('w-key').addEventListener('keydown', function (e) {
    document.getElementById('w-key-status').textContent = 'Last key: ' + e.key;
  });
  document.getElementById('busy').addEventListener('click', function () {
    var out = document.getElementById('busy-output');
    var started = Date.now();
    var ticks = 0;
    var timer = setInterval(function () {
      ticks++;
      out.textContent = 'Working… tick ' + ticks;
      out.setAttribute('data-tick', String(ticks));
      if (Date.now() - started >= 15000) {
        clearInterval(timer);
        out.textContent = 'Busy work finished.';
      }
    }, 10);
  });
  customElements.define('wm-card', class extends HTMLElement {
    connectedCallback() {
      if (this.shadowRoot) { return; }
      var template = this.querySelector('template');
      var root = this.attachShadow({ mode: 'open' });
      root.appendChild(template.content.cloneNode(true));
      template.remove();
      var shadowClicks = 0;
      var button = root.getElementById('shadow-button');
      button.addEventListener('click', function () {
        shadowClicks++;
        button.textContent = 'Shadow clicks: ' + shadowClicks;
      });
    }
  });
})();
</script>"#;

/// `GET /widgets` (widgets).
pub(crate) async fn widgets(State(state): State<AppState>) -> Response {
    let labels = format!(
        "<section class=\"card\" data-anchor-region=\"labels\" aria-labelledby=\"labels-title\">\n\
         <h2 id=\"labels-title\">Labels</h2>\n<div class=\"row\">\n\
         <div class=\"field\"><span><span id=\"lbl-billing\">Billing</span> \
         <span id=\"lbl-postcode\">Postcode</span></span>\
         <input type=\"text\" aria-labelledby=\"lbl-billing lbl-postcode\" \
         data-anchor=\"widgets.labelledby\"></div>\n\
         <div class=\"field\"><label><input type=\"checkbox\" data-anchor=\"widgets.wrapped\"> \
         Send receipt</label></div>\n\
         <div class=\"field\"><button type=\"button\" title=\"Print\" data-anchor=\"widgets.titled\">\
         <span aria-hidden=\"true\">⎙</span></button></div>\n\
         <div class=\"field\"><button type=\"button\" data-anchor=\"widgets.img-button\">\
         <img alt=\"Delete\" width=\"16\" height=\"16\" src=\"{DELETE_ICON}\"></button></div>\n\
         <div class=\"field\"><input type=\"text\" placeholder=\"Search orders\" \
         data-anchor=\"widgets.placeholder\" \
         oninput=\"document.getElementById('mirror').value = this.value.toUpperCase()\"></div>\n\
         <div class=\"field\"><label for=\"mirror\">Mirror</label><input type=\"text\" \
         id=\"mirror\" readonly data-anchor=\"widgets.mirror\"></div>\n\
         </div>\n</section>\n"
    );
    let body = format!(
        "<h1>Widgets</h1>\n\
         <p class=\"muted\">Edge cases for journeys: every control here behaves a little \
         differently.</p>\n{DIALOGS}{STATES}{labels}{SHADOW}{FRAME}{MODAL_JS}\n{WIDGETS_JS}\n"
    );
    html(page(state.layout, "Widgets", Nav::Widgets, &body))
}

const FRAME_JS: &str = r#"<script>
(function () {
  var clicks = 0;
  var button = document.getElementById('frame-button');
  button.addEventListener('click', function () {
    clicks++;
    button.textContent = 'Frame clicks: ' + clicks;
  });
})();
</script>"#;

/// `GET /widgets/frame` (widget-frame): the page inside the widgets frame; no nav, since it
/// is only ever seen embedded.
pub(crate) async fn frame() -> Response {
    let body = format!(
        "<h1 style=\"font-size:16px\">Embedded form</h1>\n\
         <div class=\"card row\" data-anchor-region=\"frame\">\n\
         <div class=\"field\"><label for=\"frame-input\">Frame field</label>\
         <input type=\"text\" id=\"frame-input\" data-anchor=\"frame.input\"></div>\n\
         <div class=\"field\"><button type=\"button\" id=\"frame-button\" \
         data-anchor=\"frame.button\">Frame clicks: 0</button></div>\n\
         </div>\n{FRAME_JS}\n"
    );
    html(bare_page("Embedded form", &body))
}

/// `GET /widgets/later`: controls the page answers a moment after the input, from a timer
/// (12 ms), with no request in flight: what settle's quiet window must still wait for.
pub(crate) async fn later() -> Response {
    let body = "<div class=\"card row\" data-anchor-region=\"later\">\n\
         <div class=\"field\"><button type=\"button\" id=\"later-button\" \
         data-anchor=\"later.button\">Not yet</button></div>\n\
         <div class=\"field\"><label for=\"later-field\">Later field</label>\
         <input type=\"text\" id=\"later-field\" data-anchor=\"later.field\"></div>\n\
         <div class=\"field\"><output id=\"later-echo\" data-anchor=\"later.echo\" \
         aria-label=\"Echo\"></output></div>\n\
         </div>\n<script>\n\
         document.getElementById('later-button').addEventListener('click', function (e) {\n\
           setTimeout(function () { e.target.textContent = 'Answered'; }, 12);\n\
         });\n\
         document.getElementById('later-field').addEventListener('input', function (e) {\n\
           var v = e.target.value;\n\
           setTimeout(function () { document.getElementById('later-echo').value = v; }, 12);\n\
         });\n\
         document.getElementById('later-field').addEventListener('keydown', function (e) {\n\
           var k = e.key;\n\
           setTimeout(function () { document.getElementById('later-echo').value = 'pressed ' + k; }, 12);\n\
         });\n\
         </script>\n";
    html(bare_page("Answers later", body))
}

/// `GET /widgets/appear`: a control that appears 100 ms after the arming click (data
/// fetched, say), and that tells, once pressed, how long after it appeared the press came:
/// what `waymark bench --suite` measures of an action that waits for its target.
pub(crate) async fn appear() -> Response {
    let body = "<div class=\"card row\" data-anchor-region=\"appear\" id=\"appear\">\n\
         <button type=\"button\" id=\"appear-arm\" data-anchor=\"appear.arm\">Arm</button>\n\
         <output id=\"appear-lag\" data-anchor=\"appear.lag\" aria-label=\"Lag\"></output>\n\
         </div>\n<script>\n\
         document.getElementById('appear-arm').addEventListener('click', function () {\n\
           var old = document.getElementById('appear-late');\n\
           if (old) old.remove();\n\
           setTimeout(function () {\n\
             var b = document.createElement('button');\n\
             b.type = 'button'; b.id = 'appear-late'; b.textContent = 'Late';\n\
             b.setAttribute('data-anchor', 'appear.late');\n\
             var at = performance.now();\n\
             b.addEventListener('click', function () {\n\
               document.getElementById('appear-lag').value = (performance.now() - at).toFixed(1);\n\
             });\n\
             document.getElementById('appear').appendChild(b);\n\
           }, 100);\n\
         });\n\
         </script>\n";
    html(bare_page("Appears later", body))
}

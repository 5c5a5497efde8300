//! Shared chrome of the demo app: the page frame with header and nav in each layout (the
//! classic one here, the redesign's in [`super::redesign`]), flash and error notices, HTML
//! escaping and the response helpers every screen uses.

use std::fmt;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::Layout;
use super::redesign;

/// Where a screen sits in the top nav, so its link can carry `aria-current`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nav {
    Home,
    Claims,
    Orders,
    Accounts,
    Dispatch,
    Returns,
    Widgets,
    Login,
    Elsewhere,
}

/// The nav's links: (screen, anchor, href, text), in both layouts.
pub(crate) const NAV_LINKS: [(Nav, &str, &str, &str); 8] = [
    (Nav::Home, "nav.home", "/", "Home"),
    (Nav::Claims, "nav.claims", "/claims", "Claims"),
    (Nav::Orders, "nav.orders", "/orders", "Orders"),
    (Nav::Accounts, "nav.accounts", "/accounts", "Accounts"),
    (
        Nav::Dispatch,
        "nav.dispatch",
        "/dispatch?day=tomorrow",
        "Dispatch",
    ),
    (Nav::Returns, "nav.returns", "/returns/new", "Returns"),
    (Nav::Widgets, "nav.widgets", "/widgets", "Widgets"),
    (Nav::Login, "nav.login", "/login", "Sign in"),
];

const STYLE: &str = "\
:root{--accent:#1d4ed8;--border:#d1d5db;--muted:#6b7280;--bg:#f4f5f7}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2937;background:var(--bg)}
.app-header{display:flex;align-items:center;gap:24px;padding:0 24px;min-height:52px;background:#111827;color:#fff;flex-wrap:wrap}
.brand{font-weight:600;font-size:16px;display:flex;align-items:center;gap:8px}
.app-header nav{display:flex;gap:2px;flex-wrap:wrap}
.app-header nav a{color:#d1d5db;text-decoration:none;padding:6px 10px;border-radius:6px}
.app-header nav a:hover,.app-header nav a[aria-current=page]{background:#374151;color:#fff}
main{max-width:1080px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:22px;margin:4px 0 16px}
h2{font-size:16px;margin:0 0 10px}
h3{font-size:14px;margin:12px 0 6px}
a{color:var(--accent)}
.card{background:#fff;border:1px solid var(--border);border-radius:8px;padding:16px;margin:0 0 16px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(240px,1fr));gap:16px}
table{width:100%;border-collapse:collapse;background:#fff}
th,td{text-align:left;padding:8px 10px;border-bottom:1px solid #e5e7eb;vertical-align:middle}
th{font-size:12px;text-transform:uppercase;letter-spacing:.03em;color:var(--muted);background:#f9fafb}
td.num,th.num{text-align:right}
.field{display:flex;flex-direction:column;gap:4px;margin:0 0 12px}
.row{display:flex;gap:16px;flex-wrap:wrap;align-items:flex-end}
label,legend{font-weight:500}
fieldset{border:1px solid var(--border);border-radius:8px;padding:12px 16px;margin:0 0 16px;background:#fff}
input[type=text],input[type=password],input[type=date],input[type=number],select,textarea{font:inherit;padding:6px 8px;border:1px solid #9ca3af;border-radius:6px;background:#fff;color:inherit;min-width:0}
input[readonly]{background:#f3f4f6}
input[type=number]{width:90px}
textarea{width:100%;min-height:80px;resize:vertical}
button,.button{font:inherit;padding:7px 14px;border-radius:6px;border:1px solid #9ca3af;background:#fff;color:#111827;cursor:pointer;text-decoration:none;display:inline-block}
button.primary,.button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
button.danger{background:#b91c1c;border-color:#b91c1c;color:#fff}
button:disabled{opacity:.5;cursor:not-allowed}
.actions{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
button.job-title{border:0;background:none;padding:0;text-align:left;font-weight:600;color:var(--accent)}
button.job-title:hover{text-decoration:underline}
.flash{background:#ecfdf5;border:1px solid #10b981;color:#065f46;padding:8px 12px;border-radius:6px}
.error{background:#fef2f2;border:1px solid #ef4444;color:#991b1b;padding:8px 12px;border-radius:6px}
.muted{color:var(--muted)}
.badge{display:inline-block;padding:1px 8px;border-radius:999px;font-size:12px;background:#e5e7eb}
.badge.open,.badge.draft{background:#dbeafe;color:#1e40af}
.badge.approved,.badge.submitted{background:#dcfce7;color:#166534}
.badge.rejected{background:#fee2e2;color:#991b1b}
dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}
dt{color:var(--muted)}
dd{margin:0}
.backdrop{position:fixed;inset:0;background:rgba(17,24,39,.55);display:flex;align-items:center;justify-content:center;z-index:100}
.dialog{background:#fff;border-radius:10px;padding:20px;width:min(440px,92vw);box-shadow:0 20px 40px rgba(0,0,0,.3)}
.dialog .actions{justify-content:flex-end;margin-top:12px}
";

pub(crate) const LOGO: &str = "<svg width=\"22\" height=\"22\" viewBox=\"0 0 22 22\" aria-hidden=\"true\">\
<rect width=\"22\" height=\"22\" rx=\"5\" fill=\"#2563eb\"/>\
<path d=\"M5 16 11 5l6 11z\" fill=\"#fff\"/></svg>";

/// Opens and closes the `.backdrop` modals: `data-opens="ID"` shows the backdrop `ID` and
/// focuses its first field, `data-closes` (inside it) or Escape hides it again.
pub(crate) const MODAL_JS: &str = r#"<script>
(function () {
  var opener = null;
  function close(backdrop) {
    backdrop.hidden = true;
    if (opener) { opener.focus(); opener = null; }
  }
  document.addEventListener('click', function (e) {
    var open = e.target.closest('[data-opens]');
    if (open && !open.disabled && open.getAttribute('aria-disabled') !== 'true') {
      var backdrop = document.getElementById(open.getAttribute('data-opens'));
      backdrop.hidden = false;
      opener = open;
      var first = backdrop.querySelector('input, textarea, select');
      if (first) { first.focus(); }
      return;
    }
    var shut = e.target.closest('[data-closes]');
    if (shut) { close(shut.closest('.backdrop')); }
  });
  document.addEventListener('keydown', function (e) {
    if (e.key !== 'Escape') { return; }
    document.querySelectorAll('.backdrop:not([hidden])').forEach(close);
  });
})();
</script>"#;

/// Writes `s` with `&`, `<`, `>`, `"` and `'` escaped, for text and quoted attribute values.
pub(crate) struct Escaped<'a>(&'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            f.write_str(&rest[..at])?;
            f.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#x27;",
            })?;
            rest = &rest[at + 1..];
        }
        f.write_str(rest)
    }
}

/// Escapes user-provided (or any non-literal) text for HTML.
pub(crate) fn esc(s: &str) -> Escaped<'_> {
    Escaped(s)
}

/// Percent-encodes `s` as an `application/x-www-form-urlencoded` value.
pub(crate) fn url_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b));
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The `?flash=…&error=…` notices a redirect carries to the next screen.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Notice {
    #[serde(default)]
    pub(crate) flash: Option<String>,
    #[serde(default)]
    pub(crate) error: Option<String>,
}

impl Notice {
    /// An error notice, for a form rendered again with what was wrong.
    pub(crate) fn error(message: impl Into<String>) -> Notice {
        Notice {
            flash: None,
            error: Some(message.into()),
        }
    }

    /// The notice paragraphs: a `role="status"` flash, a `role="alert"` error.
    pub(crate) fn html(&self) -> String {
        let mut out = String::new();
        if let Some(flash) = self.flash.as_deref().filter(|s| !s.is_empty()) {
            out.push_str(&format!(
                "<p class=\"flash\" role=\"status\">{}</p>\n",
                esc(flash)
            ));
        }
        if let Some(error) = self.error.as_deref().filter(|s| !s.is_empty()) {
            out.push_str(&format!(
                "<p class=\"error\" role=\"alert\">{}</p>\n",
                esc(error)
            ));
        }
        out
    }
}

/// A full page with the app's header and nav (region `nav`), drawn in `layout`.
pub(crate) fn page(layout: Layout, title: &str, active: Nav, body: &str) -> String {
    match layout {
        Layout::Classic => classic_page(title, active, body),
        Layout::Redesign => redesign::page(title, active, body),
    }
}

/// The classic frame: a header bar with the top nav.
fn classic_page(title: &str, active: Nav, body: &str) -> String {
    let mut links = String::new();
    for (nav, anchor, href, text) in NAV_LINKS {
        let current = if nav == active {
            " aria-current=\"page\""
        } else {
            ""
        };
        links.push_str(&format!(
            "<a href=\"{href}\" data-anchor=\"{anchor}\"{current}>{text}</a>\n"
        ));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title} · Acme Operations</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <header class=\"app-header\">\n<span class=\"brand\">{LOGO}Acme Operations</span>\n\
         <nav aria-label=\"Main\" data-anchor-region=\"nav\">\n{links}</nav>\n</header>\n\
         <main>\n{body}</main>\n</body>\n</html>\n",
        title = esc(title),
    )
}

/// A page with the shared stylesheet but without header and nav (embedded and utility pages).
pub(crate) fn bare_page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <main>\n{body}</main>\n</body>\n</html>\n",
        title = esc(title),
    )
}

/// A `200 OK` HTML response.
pub(crate) fn html(body: String) -> Response {
    html_status(StatusCode::OK, body)
}

/// An HTML response with the given status.
pub(crate) fn html_status(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        body,
    )
        .into_response()
}

/// The `404 Not Found` page, with the nav so a person can find their way back.
pub(crate) fn not_found(layout: Layout) -> Response {
    let body = "<h1>Page not found</h1>\n\
                <p>There is nothing at this address. Use the navigation to go on.</p>\n";
    html_status(
        StatusCode::NOT_FOUND,
        page(layout, "Page not found", Nav::Elsewhere, body),
    )
}

/// A `303 See Other` to `path`, carrying `flash` as a notice for the next screen.
pub(crate) fn see_other(path: &str, flash: Option<&str>) -> Response {
    match flash {
        Some(flash) => {
            let sep = if path.contains('?') { '&' } else { '?' };
            Redirect::to(&format!("{path}{sep}flash={}", url_encode(flash))).into_response()
        }
        None => Redirect::to(path).into_response(),
    }
}

/// A `303 See Other` to `path`, carrying `error` as an alert for the next screen.
pub(crate) fn see_other_error(path: &str, error: &str) -> Response {
    let sep = if path.contains('?') { '&' } else { '?' };
    Redirect::to(&format!("{path}{sep}error={}", url_encode(error))).into_response()
}

/// Formats cents as `1,234.56`.
pub(crate) fn money(cents: u64) -> String {
    let units = (cents / 100).to_string();
    let mut grouped = String::new();
    for (i, c) in units.chars().enumerate() {
        if i > 0 && (units.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{grouped}.{:02}", cents % 100)
}

/// `selected` for the option whose value is current.
pub(crate) fn selected(value: &str, current: &str) -> &'static str {
    if value == current { " selected" } else { "" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esc_escapes_every_markup_character() {
        assert_eq!(
            esc("<a href=\"x\">O'Brien & Co</a>").to_string(),
            "&lt;a href=&quot;x&quot;&gt;O&#x27;Brien &amp; Co&lt;/a&gt;"
        );
        assert_eq!(esc("plain · text").to_string(), "plain · text");
        assert_eq!(esc("").to_string(), "");
    }

    #[test]
    fn notices_escape_their_text() {
        let notice = Notice {
            flash: Some("<b>saved</b>".into()),
            error: Some("bad & worse".into()),
        };
        let html = notice.html();
        assert!(html.contains("role=\"status\">&lt;b&gt;saved&lt;/b&gt;</p>"));
        assert!(html.contains("role=\"alert\">bad &amp; worse</p>"));
    }

    #[test]
    fn url_encode_uses_plus_for_spaces() {
        assert_eq!(url_encode("Claim 1042 approved"), "Claim+1042+approved");
        assert_eq!(url_encode("a&b=ü"), "a%26b%3D%C3%BC");
    }

    #[test]
    fn money_groups_thousands() {
        assert_eq!(money(0), "0.00");
        assert_eq!(money(125_050), "1,250.50");
        assert_eq!(money(123_456_789), "1,234,567.89");
    }
}

//! The redesign layout's chrome: a sidebar in place of the top nav, a stylesheet of its own
//! whose classes have other names (every screen's markup is served under them, see
//! [`restyle`]), and links marked up as buttons that keys can press. What the redesign does
//! to single screens lives beside each screen; [`super::layout`] lists it all.

use std::fmt::Write as _;

use super::chrome::{LOGO, NAV_LINKS, Nav, esc};

/// The classic class names and what the redesign calls them. The classes scripts look for
/// (`backdrop`) and the state modifiers (`open`, `approved`…) keep their names.
const RENAMED: [(&str, &str); 16] = [
    ("card", "panel"),
    ("field", "form-item"),
    ("row", "cluster"),
    ("actions", "button-bar"),
    ("primary", "btn-primary"),
    ("danger", "btn-danger"),
    ("button", "btn"),
    ("muted", "subtle"),
    ("grid", "tiles"),
    ("badge", "tag"),
    ("flash", "toast"),
    ("error", "toast-error"),
    ("summary", "facts"),
    ("num", "numeric"),
    ("job-title", "job-link"),
    ("dialog", "modal"),
];

const STYLE: &str = "\
:root{--ink:#0f172a;--brand:#7c3aed;--line:#e2e8f0;--soft:#64748b;--canvas:#f8fafc}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:15px/1.5 Inter,system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--ink);background:var(--canvas)}
.shell{display:grid;grid-template-columns:220px 1fr;min-height:100vh}
.sidebar{background:#1e1b4b;color:#e0e7ff;padding:20px 12px;display:flex;flex-direction:column;gap:20px}
.logo{display:flex;align-items:center;gap:8px;font-weight:700;padding:0 8px}
.side-links{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:2px}
.side-links a{display:block;color:#c7d2fe;text-decoration:none;padding:8px 10px;border-radius:8px}
.side-links a:hover,.side-links a[aria-current=page]{background:#312e81;color:#fff}
.content{padding:28px 36px 56px;max-width:1100px}
h1{font-size:26px;margin:0 0 18px;letter-spacing:-.01em}
h2{font-size:17px;margin:0 0 10px}
h3{font-size:15px;margin:12px 0 6px}
a{color:var(--brand)}
.panel{background:#fff;border:1px solid var(--line);border-radius:14px;padding:20px;margin:0 0 18px;box-shadow:0 1px 2px rgba(15,23,42,.06)}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:18px}
table{width:100%;border-collapse:separate;border-spacing:0;background:#fff;border:1px solid var(--line);border-radius:12px;overflow:hidden}
th,td{text-align:left;padding:10px 12px;border-bottom:1px solid var(--line);vertical-align:middle}
th{font-size:12px;font-weight:600;color:var(--soft);background:#f1f5f9}
.numeric{text-align:right;font-variant-numeric:tabular-nums}
.form-item{display:flex;flex-direction:column;gap:6px;margin:0 0 14px}
.cluster{display:flex;gap:14px;flex-wrap:wrap;align-items:flex-end}
.two-col{display:grid;grid-template-columns:1fr 1fr;gap:0 24px}
.two-col .span-2{grid-column:1/-1}
label,legend{font-weight:600;font-size:13px}
fieldset{border:1px solid var(--line);border-radius:12px;padding:12px 16px;margin:0 0 14px;background:#fff}
input[type=text],input[type=password],input[type=date],input[type=number],select,textarea{font:inherit;padding:8px 10px;border:1px solid #cbd5e1;border-radius:8px;background:#fff;color:inherit;min-width:0}
input[readonly]{background:#f1f5f9}
input[type=number]{width:96px}
textarea{width:100%;min-height:90px;resize:vertical}
button,.btn{font:inherit;font-weight:600;padding:8px 16px;border-radius:999px;border:1px solid #cbd5e1;background:#fff;color:var(--ink);cursor:pointer;text-decoration:none;display:inline-block;line-height:1.3}
.btn-primary{background:var(--brand);border-color:var(--brand);color:#fff}
.btn-danger{background:#be123c;border-color:#be123c;color:#fff}
button:disabled,.btn[aria-disabled=true]{opacity:.45;cursor:not-allowed}
.button-bar,.toolbar{display:flex;gap:10px;align-items:center;flex-wrap:wrap}
.page-head{display:flex;justify-content:space-between;align-items:center;gap:16px;margin:0 0 8px}
.page-head h1{margin:0}
.breadcrumb{font-size:13px;color:var(--soft);margin:0 0 6px}
.job-link{border:0;background:none;padding:0;border-radius:0;text-align:left;font-weight:600;color:var(--brand)}
.toast{background:#f0fdf4;border:1px solid #22c55e;color:#14532d;padding:10px 14px;border-radius:10px}
.toast-error{background:#fff1f2;border:1px solid #f43f5e;color:#881337;padding:10px 14px;border-radius:10px}
.subtle{color:var(--soft)}
.tag{display:inline-block;padding:2px 10px;border-radius:6px;font-size:12px;font-weight:600;background:#e2e8f0}
.tag.open,.tag.draft{background:#ede9fe;color:#5b21b6}
.tag.approved,.tag.submitted{background:#dcfce7;color:#166534}
.tag.rejected{background:#ffe4e6;color:#9f1239}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:6px 20px;margin:0}
dt{color:var(--soft)}
dd{margin:0}
.backdrop{position:fixed;inset:0;background:rgba(15,23,42,.6);display:flex;align-items:center;justify-content:center;z-index:100}
.modal{background:#fff;border-radius:16px;padding:24px;width:min(460px,92vw);box-shadow:0 24px 48px rgba(0,0,0,.3)}
.modal .button-bar{justify-content:flex-end;margin-top:14px}
";

/// Links marked up as buttons (`<a role="button">`) answer Enter and Space as buttons do;
/// one marked `aria-disabled` does nothing.
const BUTTON_LINKS_JS: &str = r#"<script>
(function () {
  document.addEventListener('keydown', function (e) {
    if (e.key !== 'Enter' && e.key !== ' ') { return; }
    var link = e.target.closest && e.target.closest('a[role="button"]');
    if (!link) { return; }
    e.preventDefault();
    if (link.getAttribute('aria-disabled') !== 'true') { link.click(); }
  });
})();
</script>"#;

/// A full page in the redesign: the sidebar with the nav (region `nav`), then `body`, its
/// classes renamed.
pub(crate) fn page(title: &str, active: Nav, body: &str) -> String {
    frame(title, &nav(active, true), body)
}

/// The same without a single `data-anchor` attribute, nav included: a screen rebuilt in a
/// framework that does not emit them, whose anchors only the registry's matchers find.
pub(crate) fn page_without_anchors(title: &str, active: Nav, body: &str) -> String {
    frame(title, &nav(active, false), body)
}

fn nav(active: Nav, anchored: bool) -> String {
    let mut links = String::new();
    for (nav, anchor, href, text) in NAV_LINKS {
        let current = if nav == active {
            " aria-current=\"page\""
        } else {
            ""
        };
        let anchor = if anchored {
            format!(" data-anchor=\"{anchor}\"")
        } else {
            String::new()
        };
        let _ = writeln!(
            links,
            "<li><a href=\"{href}\"{anchor}{current}>{text}</a></li>"
        );
    }
    let region = if anchored {
        " data-anchor-region=\"nav\""
    } else {
        ""
    };
    // The page's one main nav needs no name; without a region marker, its landmark names
    // its links' region: `nav`, as everywhere else.
    format!("<nav{region}>\n<ul class=\"side-links\">\n{links}</ul>\n</nav>\n")
}

fn frame(title: &str, nav: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title} · Acme Operations</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <div class=\"shell\">\n<aside class=\"sidebar\">\n\
         <span class=\"logo\">{LOGO}Acme Operations</span>\n{nav}</aside>\n\
         <main class=\"content\">\n{body}</main>\n</div>\n{BUTTON_LINKS_JS}\n</body>\n</html>\n",
        title = esc(title),
        body = restyle(body),
    )
}

/// `html` with every `class="…"` value's classic names replaced by the redesign's.
pub(crate) fn restyle(html: &str) -> String {
    const OPEN: &str = "class=\"";
    let mut out = String::with_capacity(html.len() + html.len() / 16);
    let mut rest = html;
    while let Some(at) = rest.find(OPEN) {
        let start = at + OPEN.len();
        out.push_str(&rest[..start]);
        let Some(len) = rest[start..].find('"') else {
            rest = &rest[start..];
            break;
        };
        let names: Vec<&str> = rest[start..start + len]
            .split_whitespace()
            .map(|name| {
                RENAMED
                    .iter()
                    .find(|(old, _)| *old == name)
                    .map_or(name, |(_, new)| *new)
            })
            .collect();
        out.push_str(&names.join(" "));
        rest = &rest[start + len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restyle_renames_classic_classes_and_keeps_the_rest() {
        assert_eq!(
            restyle(
                "<div class=\"card row\" data-x=\"card\"><button class=\"primary\">card</button>\
                 <span class=\"badge open\"></span><p class=\"\"></p><i class=\"panel\"></i>"
            ),
            "<div class=\"panel cluster\" data-x=\"card\"><button class=\"btn-primary\">card</button>\
             <span class=\"tag open\"></span><p class=\"\"></p><i class=\"panel\"></i>"
        );
        assert_eq!(restyle("no classes"), "no classes");
        assert_eq!(restyle("<p class=\"card"), "<p class=\"card");
    }

    #[test]
    fn the_new_names_are_not_classic_ones() {
        // Renaming twice changes nothing, so screens may write the new names directly.
        for (_, new) in RENAMED {
            assert!(RENAMED.iter().all(|(old, _)| old != &new), "{new}");
        }
    }

    #[test]
    fn a_page_without_anchors_has_none_even_in_its_nav() {
        let html = page_without_anchors("Form", Nav::Returns, "<h1>Form</h1>");
        assert!(!html.contains("data-anchor"), "{html}");
        assert!(html.contains("<a href=\"/returns/new\" aria-current=\"page\">Returns</a>"));
        let anchored = page("Form", Nav::Returns, "<h1>Form</h1>");
        assert!(anchored.contains("data-anchor-region=\"nav\""));
        assert!(anchored.contains("data-anchor=\"nav.returns\" aria-current=\"page\">Returns</a>"));
    }
}

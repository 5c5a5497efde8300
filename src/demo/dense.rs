//! The dense benchmark screen: a byte-identical port of the shared generator
//! `../shared/bench/gen-dense.py`, so criterion benches, the demo app and the script all
//! measure the very same page.

use std::fmt::Write as _;

use axum::extract::Query;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::chrome::{esc, html};

const PER_REGION: usize = 40;

// The tables are laid out as in the script, to keep the port easy to compare.
#[rustfmt::skip]
const SECTION_NAMES: [&str; 18] = [
    "Customer", "Billing", "Shipping", "Line items", "Approvals", "Payments",
    "Contracts", "Inventory", "Returns", "Tax", "Discounts", "Audit trail",
    "Notes", "Attachments", "Delivery", "Warehouse", "Pricing", "Credit",
];
#[rustfmt::skip]
const FIELD_NAMES: [&str; 24] = [
    "Account number", "Company name", "Contact email", "Phone", "Street", "City",
    "Postal code", "Country", "VAT ID", "Cost centre", "PO reference", "Due date",
    "Amount", "Currency", "Quantity", "Unit price", "Discount %", "SKU", "Batch",
    "Carrier", "Tracking number", "Warehouse bin", "Approver", "Comment",
];
#[rustfmt::skip]
const BUTTON_TEXTS: [&str; 14] = [
    "Save", "Apply", "Recalculate", "Approve", "Reject", "Add line", "Duplicate",
    "Export", "Print", "Validate", "Refresh", "Assign", "Archive", "Send",
];
#[rustfmt::skip]
const ICON_BUTTONS: [(&str, &str); 5] = [("\u{d7}", "Remove"), ("\u{270e}", "Edit"), ("\u{2913}", "Download"),
                                         ("\u{2699}", "Settings"), ("\u{2605}", "Star")];
#[rustfmt::skip]
const LINK_TEXTS: [&str; 8] = ["Details", "History", "Open invoice", "View order", "Show log",
                               "Customer card", "Related documents", "Help"];
#[rustfmt::skip]
const SELECT_OPTIONS: [&[&str]; 5] = [
    &["Draft", "Pending", "Approved", "Rejected"],
    &["EUR", "USD", "GBP", "CHF", "JPY"],
    &["Standard", "Express", "Overnight"],
    &["Low", "Medium", "High", "Critical"],
    &["Net 30", "Net 60", "Prepaid"],
];
#[rustfmt::skip]
const CHECK_TEXTS: [&str; 8] = ["Include tax", "Notify customer", "Partial delivery allowed",
                                "Urgent", "Hold for review", "Recurring", "Gift wrap", "Verified"];
const LOREM: &str = "Figures are provisional until the nightly reconciliation run has finished. \
Changes made here are applied to the open document and logged in the audit trail. \
Contact the finance desk for corrections to posted entries.";

const STYLE: &str = "<style>\n\
body{font:13px/1.3 system-ui,sans-serif;margin:0;padding:8px;color:#222}\n\
header,footer{background:#f3f4f6;padding:6px 8px;margin-bottom:8px}\n\
section{border:1px solid #ddd;margin:0 0 8px;padding:4px 8px}\n\
h2{font-size:14px;margin:2px 0 4px}\n\
.grid{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:3px 10px}\n\
.f{display:flex;gap:4px;align-items:center}\n\
.f label{min-width:90px;color:#555}\n\
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eee;padding:1px 4px;text-align:left}\n\
input[type=text]{width:110px}p.note{color:#666;margin:3px 0}\n\
</style>\n\
<script>window.__clicks=0;function bump(){window.__clicks++;}</script>\n\
</head>\n<body>\n";

#[derive(Clone, Copy)]
enum Kind {
    Button,
    Input,
    Select,
    Checkbox,
    Link,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Button => "button",
            Kind::Input => "input",
            Kind::Select => "select",
            Kind::Checkbox => "checkbox",
            Kind::Link => "link",
        }
    }
}

#[rustfmt::skip]
const KIND_CYCLE_FORM: [Kind; 10] = [Kind::Input, Kind::Select, Kind::Checkbox, Kind::Button, Kind::Input,
                                     Kind::Link, Kind::Input, Kind::Checkbox, Kind::Button, Kind::Select];
#[rustfmt::skip]
const ROW_KINDS: [Kind; 5] = [Kind::Checkbox, Kind::Input, Kind::Select, Kind::Button, Kind::Link];

/// The script's fixed 32-bit LCG; every draw must happen in the script's order.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = (self.0.wrapping_mul(1_103_515_245).wrapping_add(12_345)) & 0x7FFF_FFFF;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        // n is a small table length and the draw is below 2^31: both conversions are exact.
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }
}

/// One `<section>` being emitted.
struct Region {
    name: String,
    title: String,
    count: usize,
    is_last: bool,
    counters: [usize; 5],
}

struct Generator {
    rnd: Lcg,
    uid: usize,
    click_target: Option<String>,
    fill_target: Option<String>,
    /// Fallbacks for the few N where the final region holds no enabled button or input
    /// (the script gives up there; we name the last such control anywhere instead).
    any_click: Option<String>,
    any_fill: Option<String>,
}

impl Generator {
    fn new_id(&mut self) -> String {
        self.uid += 1;
        format!("c{}", self.uid)
    }

    fn disabled_flag(&mut self, region: &Region, i: usize) -> bool {
        // never disable anything in the last 10 controls of the final region
        if region.is_last && i + 10 >= region.count {
            return false;
        }
        self.rnd.chance(9)
    }

    fn emit_control(
        &mut self,
        region: &mut Region,
        kind: Kind,
        i: usize,
        row_label: Option<&str>,
    ) -> String {
        let j = region.counters[kind as usize];
        region.counters[kind as usize] += 1;
        let a = format!("{}.{}-{j}", region.name, kind.name());
        let dis = self.disabled_flag(region, i);
        let style = self.rnd.below(3);
        let dattr = if dis { " disabled" } else { "" };
        match kind {
            Kind::Button => {
                let s = if style == 1 {
                    let (icon, name) = ICON_BUTTONS[self.rnd.below(ICON_BUTTONS.len())];
                    let lab = format!("{name} {}", row_label.unwrap_or(&region.title));
                    format!(
                        "<button type=\"button\" data-anchor=\"{a}\" aria-label=\"{}\" \
                         onclick=\"bump()\"{dattr}>{icon}</button>",
                        esc(&lab)
                    )
                } else {
                    let text = BUTTON_TEXTS[self.rnd.below(BUTTON_TEXTS.len())];
                    format!(
                        "<button type=\"button\" data-anchor=\"{a}\" onclick=\"bump()\"{dattr}>{}</button>",
                        esc(text)
                    )
                };
                if !dis {
                    if region.is_last {
                        self.click_target = Some(a.clone());
                    }
                    self.any_click = Some(a);
                }
                s
            }
            Kind::Input => {
                let cid = self.new_id();
                let mut fname = FIELD_NAMES[self.rnd.below(FIELD_NAMES.len())].to_string();
                if let Some(row) = row_label {
                    fname = format!("{fname} {row}");
                }
                let s = match style {
                    0 => format!(
                        "<label for=\"{cid}\">{}</label><input type=\"text\" id=\"{cid}\" \
                         name=\"{cid}\" data-anchor=\"{a}\" value=\"\"{dattr}>",
                        esc(&fname)
                    ),
                    1 => format!(
                        "<input type=\"text\" id=\"{cid}\" name=\"{cid}\" data-anchor=\"{a}\" \
                         aria-label=\"{}\"{dattr}>",
                        esc(&fname)
                    ),
                    _ => format!(
                        "<input type=\"text\" id=\"{cid}\" name=\"{cid}\" data-anchor=\"{a}\" \
                         placeholder=\"{}\"{dattr}>",
                        esc(&fname)
                    ),
                };
                if !dis {
                    if region.is_last {
                        self.fill_target = Some(a.clone());
                    }
                    self.any_fill = Some(a);
                }
                s
            }
            Kind::Select => {
                let cid = self.new_id();
                let opts = SELECT_OPTIONS[self.rnd.below(SELECT_OPTIONS.len())];
                let mut fname = FIELD_NAMES[self.rnd.below(FIELD_NAMES.len())].to_string();
                if let Some(row) = row_label {
                    fname = format!("Status {row}");
                }
                let sel = self.rnd.below(opts.len());
                let mut ohtml = String::new();
                for (oi, o) in opts.iter().enumerate() {
                    let mark = if oi == sel { " selected" } else { "" };
                    let _ = write!(ohtml, "<option{mark}>{}</option>", esc(o));
                }
                if style == 1 {
                    format!(
                        "<select id=\"{cid}\" name=\"{cid}\" data-anchor=\"{a}\" aria-label=\"{}\"{dattr}>{ohtml}</select>",
                        esc(&fname)
                    )
                } else {
                    format!(
                        "<label for=\"{cid}\">{}</label><select id=\"{cid}\" name=\"{cid}\" \
                         data-anchor=\"{a}\"{dattr}>{ohtml}</select>",
                        esc(&fname)
                    )
                }
            }
            Kind::Checkbox => {
                let cid = self.new_id();
                let txt = CHECK_TEXTS[self.rnd.below(CHECK_TEXTS.len())];
                let chk = if self.rnd.chance(30) { " checked" } else { "" };
                if row_label.is_some() || style == 1 {
                    let lab = match row_label {
                        Some(row) => format!("Select {row}"),
                        None => txt.to_string(),
                    };
                    format!(
                        "<input type=\"checkbox\" id=\"{cid}\" name=\"{cid}\" data-anchor=\"{a}\" \
                         aria-label=\"{}\"{chk}{dattr}>",
                        esc(&lab)
                    )
                } else {
                    format!(
                        "<input type=\"checkbox\" id=\"{cid}\" name=\"{cid}\" data-anchor=\"{a}\"\
                         {chk}{dattr}><label for=\"{cid}\">{}</label>",
                        esc(txt)
                    )
                }
            }
            Kind::Link => {
                let txt = LINK_TEXTS[self.rnd.below(LINK_TEXTS.len())];
                let ad = if dis { " aria-disabled=\"true\"" } else { "" };
                let href = format!("#{}-{}-{j}", region.name, kind.name());
                if style == 1 {
                    format!(
                        "<a href=\"{href}\" data-anchor=\"{a}\" aria-label=\"{} {}\"{ad}>\u{2197}</a>",
                        esc(txt),
                        esc(row_label.unwrap_or(&region.title))
                    )
                } else {
                    format!(
                        "<a href=\"{href}\" data-anchor=\"{a}\"{ad}>{}</a>",
                        esc(txt)
                    )
                }
            }
        }
    }
}

/// A deterministic dense "business screen" with `n` anchored controls, byte for byte what
/// `python3 ../shared/bench/gen-dense.py n` prints. `n` should be at least 10, as the script demands.
pub fn dense_page(n: usize) -> String {
    dense_build(n, None)
}

/// The same page with no `data-anchor` at all, every control's name made unique on the
/// page (its anchor added in brackets: `Save (region-3.button-2)`), and the registry whose
/// matchers find each control by role and name, or by its `<label>`: the page a bench
/// measures matcher resolution on, against the anchored one. The page names its registry
/// in `<meta name="bench-registry">` (served at `/dense/anchors.yaml?n=N`).
pub fn dense_matched(n: usize) -> (String, String) {
    let mut registry = String::with_capacity(n * 140 + 256);
    registry.push_str(
        "# The anchors of /dense?matchers=1, found by matchers (the page has no data-anchor).\n\
         app: dense\nscreens:\n  - id: dense\n    route: /dense\n    description: a dense business screen\nanchors:\n",
    );
    let page = dense_build(n, Some(&mut registry));
    (page, registry)
}

/// `control` (one control's markup, with its `data-anchor`) without the attribute, its name
/// made unique, and its registry entry appended to `registry`.
fn unanchor(control: &str, kind: Kind, registry: &mut String) -> String {
    let Some(at) = control.find(" data-anchor=\"") else {
        return control.to_string();
    };
    let rest = &control[at + 14..];
    let anchor = &rest[..rest.find('"').unwrap_or(0)];
    let mut s = format!("{}{}", &control[..at], &rest[anchor.len() + 1..]);
    let tag = format!(" ({anchor})");
    let unesc = |t: &str| {
        t.replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&")
    };
    // Inserts the tag where the name ends (before `end`, after `from`), and gives the name.
    let mut mark = |from: &str, end: &str| -> Option<String> {
        let start = s.find(from)? + from.len();
        let stop = start + s[start..].find(end)?;
        let name = format!("{}{tag}", unesc(&s[start..stop]));
        s.insert_str(stop, &esc(&tag).to_string());
        Some(name)
    };
    let role = match kind {
        Kind::Button => "button",
        Kind::Input => "textbox",
        Kind::Select => "combobox",
        Kind::Checkbox => "checkbox",
        Kind::Link => "link",
    };
    let matcher = if let Some(name) = mark("aria-label=\"", "\"") {
        format!("{{role: {role}, name: {}}}", serde_json::Value::from(name))
    } else if let Some(name) = mark("<label for=", "</label>") {
        // (The tag went after the label's text; the name is that text.)
        let text = name.split_once('>').map_or(name.as_str(), |(_, t)| t);
        format!("{{label: {}}}", serde_json::Value::from(text))
    } else if let Some(name) = mark("placeholder=\"", "\"") {
        format!("{{role: {role}, name: {}}}", serde_json::Value::from(name))
    } else {
        // Named by its content: the text between the start tag's `>` and the end tag.
        let end = if matches!(kind, Kind::Link) {
            "</a>"
        } else {
            "</button>"
        };
        let stop = s.find(end).unwrap_or(s.len());
        let start = s[..stop].rfind('>').map_or(stop, |i| i + 1);
        let name = format!("{}{tag}", unesc(&s[start..stop]));
        s.insert_str(stop, &esc(&tag).to_string());
        format!("{{role: {role}, name: {}}}", serde_json::Value::from(name))
    };
    let _ = writeln!(
        registry,
        "  - id: {anchor}\n    description: a {} of the dense page\n    screens: [dense]\n    match: {matcher}",
        kind.name()
    );
    s
}

/// The dense page; with `registry`, as [`dense_matched`] builds it.
fn dense_build(n: usize, mut registry: Option<&mut String>) -> String {
    let mut gen_ = Generator {
        rnd: Lcg(20_240_601),
        uid: 0,
        click_target: None,
        fill_target: None,
        any_click: None,
        any_fill: None,
    };
    let nregions = n.div_ceil(PER_REGION).max(1);
    let last_count = n - PER_REGION * (nregions - 1);
    // The script writes a placeholder and fills in the targets afterwards; the body is built
    // first here and joined to the head once the targets are known.
    let mut out = String::with_capacity(n * 200 + 4096);
    out.push_str("<header><strong>Acme ERP</strong> &mdash; Order workspace. Signed in as <em>j.doe</em>. Session expires in 25 minutes.</header>\n");
    out.push_str("<main>\n");
    for k in 0..nregions {
        let is_last = k == nregions - 1;
        let mut region = Region {
            name: format!("region-{k}"),
            title: format!("{} {}", SECTION_NAMES[k % SECTION_NAMES.len()], k + 1),
            count: if is_last { last_count } else { PER_REGION },
            is_last,
            counters: [0; 5],
        };
        let count = region.count;
        let _ = write!(
            out,
            "<section data-anchor-region=\"{0}\" id=\"{0}\">\n<h2>{1}</h2>\n\
             <p class=\"note\">{1} {LOREM}</p>\n",
            region.name,
            esc(&region.title)
        );
        if k % 3 == 2 {
            out.push_str(
                "<table>\n<thead><tr><th>Sel</th><th>Item</th><th>Qty</th><th>Status</th>\
                 <th>Action</th><th>Link</th></tr></thead>\n<tbody>\n",
            );
            let mut i = 0;
            let mut r = 0;
            while i < count {
                r += 1;
                let row_label = format!("row {r}");
                out.push_str("<tr>");
                for (ci, kind) in ROW_KINDS.into_iter().enumerate() {
                    if ci == 1 {
                        let item = FIELD_NAMES[(k + r) % FIELD_NAMES.len()];
                        let _ = write!(out, "<td>SKU-{:05} {}</td>", k * 100 + r, esc(item));
                    }
                    if i < count {
                        let mut control = gen_.emit_control(&mut region, kind, i, Some(&row_label));
                        if let Some(registry) = registry.as_deref_mut() {
                            control = unanchor(&control, kind, registry);
                        }
                        let _ = write!(out, "<td>{control}</td>");
                        i += 1;
                    } else {
                        out.push_str("<td></td>");
                    }
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody>\n</table>\n");
        } else {
            out.push_str("<div class=\"grid\">\n");
            for i in 0..count {
                let mut kind = KIND_CYCLE_FORM[(i + k) % KIND_CYCLE_FORM.len()];
                // final region: force the last two controls to be an input then a button
                if is_last && i + 2 == count {
                    kind = Kind::Input;
                } else if is_last && i + 1 == count {
                    kind = Kind::Button;
                }
                let mut control = gen_.emit_control(&mut region, kind, i, None);
                if let Some(registry) = registry.as_deref_mut() {
                    control = unanchor(&control, kind, registry);
                }
                let _ = writeln!(out, "<div class=\"f\">{control}</div>");
                if i % 20 == 19 && i + 1 != count {
                    let _ = write!(
                        out,
                        "</div>\n<p class=\"note\">Subtotal for this block is recalculated on save. \
                         Last edited {} minutes ago.</p>\n<div class=\"grid\">\n",
                        (k * 7 + i) % 59 + 1
                    );
                }
            }
            out.push_str("</div>\n");
        }
        out.push_str("</section>\n");
    }
    let _ = write!(
        out,
        "</main>\n<footer>Acme ERP &middot; build 2024.06 &middot; {n} controls on this screen.</footer>\n\
         </body>\n</html>\n"
    );
    let click = gen_.click_target.or(gen_.any_click).unwrap_or_default();
    let fill = gen_.fill_target.or(gen_.any_fill).unwrap_or_default();
    let names = if registry.is_some() {
        format!("<meta name=\"bench-registry\" content=\"/dense/anchors.yaml?n={n}\">\n")
    } else {
        String::new()
    };
    let mut page = String::with_capacity(out.len() + 1024);
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>Dense business screen ({n} controls)</title>\n\
         <meta name=\"bench-count\" content=\"{n}\">\n\
         <meta name=\"bench-click-target\" content=\"{click}\">\n\
         <meta name=\"bench-fill-target\" content=\"{fill}\">\n{names}{STYLE}"
    );
    page.push_str(&out);
    page
}

/// The query of `/dense`.
#[derive(Deserialize)]
pub(crate) struct DenseQuery {
    #[serde(default)]
    n: Option<String>,
    /// `1`: the page without data-anchor, found through its registry's matchers.
    #[serde(default)]
    matchers: Option<String>,
}

/// Controls on `/dense` without `?n=`, so the bare route (as in `anchors.yaml`) still works.
const DEFAULT_N: usize = 200;

/// `GET /dense?n=N` (dense), N in 10..=100000; with `&matchers=1`, the page without
/// data-anchor (see [`dense_matched`]).
pub(crate) async fn serve(Query(q): Query<DenseQuery>) -> Response {
    let n = match count(&q) {
        Ok(n) => n,
        Err(refused) => return *refused,
    };
    if q.matchers.as_deref() == Some("1") {
        return html(dense_matched(n).0);
    }
    html(dense_page(n))
}

/// `GET /dense/anchors.yaml?n=N`: the registry of `/dense?n=N&matchers=1`.
pub(crate) async fn serve_registry(Query(q): Query<DenseQuery>) -> Response {
    match count(&q) {
        Ok(n) => (
            [(header::CONTENT_TYPE, "application/yaml; charset=utf-8")],
            dense_matched(n).1,
        )
            .into_response(),
        Err(refused) => *refused,
    }
}

/// `?n=`, or the answer refusing it.
fn count(q: &DenseQuery) -> Result<usize, Box<Response>> {
    match q.n.as_deref().map(|n| n.trim().parse::<usize>()) {
        None => Ok(DEFAULT_N),
        Some(Ok(n)) if (10..=100_000).contains(&n) => Ok(n),
        Some(_) => Err(Box::new(
            (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                "n must be a whole number from 10 to 100000\n",
            )
                .into_response(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::{dense_matched, dense_page};

    #[test]
    fn the_matched_page_has_no_data_anchor_and_a_registry_entry_per_control() {
        let (page, registry) = dense_matched(137);
        assert!(!page.contains("data-anchor=\""), "a data-anchor is left");
        assert!(page.contains("data-anchor-region=\"region-0\""));
        let registry = crate::registry::Registry::parse(&registry, "dense.yaml")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(registry.anchors().len(), 137);
        assert!(registry.matchers().is_some());
    }

    #[test]
    fn dense_page_matches_the_script_byte_for_byte() {
        let golden = include_str!("../../tests/fixtures/dense-137.html");
        assert!(
            dense_page(137) == golden,
            "dense_page(137) drifted from gen-dense.py"
        );
    }
}

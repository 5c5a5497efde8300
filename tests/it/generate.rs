//! A seeded generator of random pages for the differential test: DOM trees mixing what real
//! apps are built of — re-rendered lists with hidden rows, web components (declarative
//! shadow roots, nested, with slots; hosts hidden), ARIA menus with submenus and trees,
//! icon-font glyphs, split text, labels by `for`, by wrapping and by `aria-labelledby`,
//! placeholders, test ids, tables, empty boxes, a panel that clips its content, controls
//! disabled, read-only and checked in the ways apps make them — each
//! element marked with `data-dt-id`, and the locators to ask of the page (role and name, text, label, placeholder, test id),
//! strings and patterns, some naming hidden elements.

use serde_json::{Value, json};

use crate::differential::Page;

/// xorshift64*: small, seeded, the same on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, page: usize) -> Rng {
        let mut r =
            Rng(seed ^ (page as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d);
        for _ in 0..4 {
            r.next();
        }
        r
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, of: &'a [T]) -> &'a T {
        &of[self.below(of.len())]
    }
}

/// Words, few enough that texts and names repeat across a page; some past ASCII, as real
/// apps' texts have (an accented letter, an apostrophe, an arrow, Japanese, an emoji past
/// the BMP), which the collector sends escaped (see `narrow` in
/// `src/collector/js/07-collect.js`).
const WORDS: &[&str] = &[
    "Don’t",
    "Next→",
    "保存",
    "📄",
    "Save",
    "Delete",
    "Buy",
    "crème",
    "Walk",
    "dog",
    "items",
    "left",
    "Enabled",
    "Downloads",
    "PDF",
    "CSV",
    "Login",
    "Email",
    "Name",
    "Search",
    "Reports",
    "Settings",
    "Open",
    "Close",
    "draft",
    "Export",
    "All",
    "Active",
    "Completed",
];

/// Ways to hide an element (or to give it an empty box), and six times none.
const HIDINGS: &[&str] = &[
    "",
    "",
    "",
    "",
    "",
    "",
    " style=\"display: none\"",
    " hidden",
    " aria-hidden=\"true\"",
    " style=\"visibility: hidden\"",
    " style=\"height: 0; overflow: hidden\"",
    " style=\"display: contents\"",
];

/// Rules most apps' style sheets hold that select nothing here, or only a pseudo-element:
/// a utility class that hides, a tooltip's hidden ::after, a clearfix, an icon font's
/// glyph. A read must answer as Playwright does with them in place (it takes them as
/// hiding or naming nothing only while they select nothing that could); a page ends with a
/// control the utility class hides. And a scrolling pane's class, which some pages' last
/// panel takes (see `Gen::panel`).
const APP_STYLE: &str = "<style>.gone{visibility:hidden}.tip::after{content:\"\";visibility:hidden}\
.cf::after{content:\"\";display:table}.ic::before{content:\"\\f101\"}\
.pane{height:50px;overflow-y:auto}</style>";

/// Icon-font glyphs (Private Use Area).
const GLYPHS: &[char] = &['\u{e001}', '\u{e0a4}', '\u{f0e0}', '\u{f101}'];

struct Gen {
    rng: Rng,
    next_id: usize,
    locators: Vec<Value>,
    test_ids: usize,
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
}

fn exact(s: &str) -> Value {
    json!({ "s": s.split_whitespace().collect::<Vec<_>>().join(" ") })
}

impl Gen {
    /// ` data-dt-id="N"` (and now and then a test id, asked for).
    fn mark(&mut self) -> String {
        self.next_id += 1;
        let mut attrs = format!(" data-dt-id=\"{}\"", self.next_id);
        if self.rng.chance(8) {
            self.test_ids += 1;
            let id = format!("t{}", self.rng.below(6));
            attrs += &format!(" data-testid=\"{id}\"");
            if self.rng.chance(50) {
                self.locators.push(json!({"kind": "test_id", "v": id}));
            }
        }
        attrs
    }

    fn words(&mut self, max: usize) -> String {
        let n = 1 + self.rng.below(max);
        (0..n)
            .map(|_| *self.rng.pick(WORDS))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A pattern finding `text`: one of its words, or its start, case-insensitively or not.
    fn pattern(&mut self, text: &str) -> Value {
        let words: Vec<&str> = text.split_whitespace().collect();
        let w = words
            .get(self.rng.below(words.len().max(1)))
            .copied()
            .unwrap_or("x");
        match self.rng.below(3) {
            0 => json!({"re": w, "f": ""}),
            1 => json!({"re": format!("^\\s*{}", w.to_lowercase()), "f": "i"}),
            _ => json!({"re": format!("{w}$"), "f": ""}),
        }
    }

    /// Asks for `text` as text: whole, or as a pattern.
    fn ask_text(&mut self, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        let t = if self.rng.chance(60) {
            exact(text)
        } else {
            self.pattern(text)
        };
        self.locators.push(json!({"kind": "text", "t": t}));
    }

    fn ask_role(&mut self, role: &str, name: Option<&str>) {
        let hidden = self.rng.chance(15);
        let name = match name {
            Some(n) if !n.trim().is_empty() && self.rng.chance(80) => {
                Some(if self.rng.chance(70) {
                    exact(n)
                } else {
                    self.pattern(n)
                })
            }
            _ => None,
        };
        self.locators
            .push(json!({"kind": "role", "role": role, "name": name, "hidden": hidden}));
    }

    /// A way to hide an element, or none: the style (or attribute) to add.
    fn hiding(&mut self) -> &'static str {
        HIDINGS[self.rng.below(HIDINGS.len())]
    }

    /// A label's inner text, maybe split across elements, maybe led by a glyph: the HTML and
    /// its text.
    fn text(&mut self) -> (String, String) {
        let words = self.words(3);
        let glyph = if self.rng.chance(15) {
            let g = *self.rng.pick(GLYPHS);
            let m = self.mark();
            format!("<i class=\"icon\"{m}>{g}</i> ")
        } else {
            String::new()
        };
        let parts: Vec<&str> = words.split(' ').collect();
        let html = if parts.len() > 1 && self.rng.chance(40) {
            let tag = *self.rng.pick(&["strong", "span", "em", "b"]);
            let m = self.mark();
            format!(
                "<{tag}{m}>{}</{tag}> {}",
                escape(parts[0]),
                escape(&parts[1..].join(" "))
            )
        } else {
            escape(&words)
        };
        (format!("{glyph}{html}"), words)
    }

    fn button(&mut self) -> String {
        let (html, text) = self.text();
        let hide = self.hiding();
        let m = self.mark();
        let label = if self.rng.chance(15) {
            let l = self.words(2);
            self.ask_role("button", Some(&l));
            format!(" aria-label=\"{}\"", escape(&l))
        } else {
            self.ask_role("button", Some(&text));
            String::new()
        };
        if self.rng.chance(50) {
            self.ask_text(&text);
        }
        format!("<button{m}{hide}{label}>{html}</button>")
    }

    fn link(&mut self) -> String {
        let (html, text) = self.text();
        let hide = self.hiding();
        let m = self.mark();
        self.ask_role("link", Some(&text));
        if self.rng.chance(40) {
            self.ask_text(&text);
        }
        format!("<a href=\"#{}\"{m}{hide}>{html}</a>", self.next_id)
    }

    fn list(&mut self) -> String {
        let m = self.mark();
        let mut rows = String::new();
        let n = 1 + self.rng.below(5);
        for _ in 0..n {
            let hide = self.hiding();
            let rm = self.mark();
            let count = self.rng.below(9);
            let inner = if self.rng.chance(30) {
                let sm = self.mark();
                let word = if count == 1 { "item" } else { "items" };
                self.locators
                    .push(json!({"kind": "text", "t": {"re": "items? left", "f": ""}}));
                format!("<strong{sm}>{count}</strong> {word} left")
            } else {
                let (html, text) = self.text();
                if self.rng.chance(40) {
                    self.ask_text(&text);
                }
                if self.rng.chance(30) {
                    let b = self.button();
                    format!("{html} {b}")
                } else {
                    html
                }
            };
            rows += &format!("<li{rm}{hide}>{inner}</li>");
        }
        self.ask_role("listitem", None);
        self.ask_role("list", None);
        format!("<ul{m}>{rows}</ul>")
    }

    fn menu(&mut self) -> String {
        let m = self.mark();
        let mut items = String::new();
        for _ in 0..1 + self.rng.below(3) {
            let im = self.mark();
            let name = self.words(1);
            let sub = if self.rng.chance(50) {
                let sm = self.mark();
                let mut s = String::new();
                for _ in 0..1 + self.rng.below(3) {
                    let xm = self.mark();
                    let w = self.words(1);
                    self.ask_role("menuitem", Some(&w));
                    s += &format!("<li role=\"menuitem\"{xm}>{}</li>", escape(&w));
                }
                let hide = if self.rng.chance(50) { " hidden" } else { "" };
                format!("<ul role=\"menu\"{sm}{hide}>{s}</ul>")
            } else {
                String::new()
            };
            self.ask_role("menuitem", Some(&name));
            items += &format!("<li role=\"menuitem\"{im}>{}{sub}</li>", escape(&name));
        }
        format!("<ul role=\"menu\"{m}>{items}</ul>")
    }

    fn tree(&mut self) -> String {
        let m = self.mark();
        let im = self.mark();
        let gm = self.mark();
        let cm = self.mark();
        let name = self.words(1);
        let child = self.words(1);
        self.ask_role("treeitem", Some(&name));
        self.ask_role("treeitem", Some(&child));
        format!(
            "<ul role=\"tree\"{m}><li role=\"treeitem\"{im} aria-expanded=\"true\">{}<ul role=\"group\"{gm}><li role=\"treeitem\"{cm}>{}</li></ul></li></ul>",
            escape(&name),
            escape(&child)
        )
    }

    fn field(&mut self) -> String {
        let label = self.words(2);
        let ty = *self
            .rng
            .pick(&["text", "email", "search", "checkbox", "text"]);
        let role = match ty {
            "checkbox" => "checkbox",
            "search" => "searchbox",
            _ => "textbox",
        };
        let placeholder = if ty != "checkbox" && self.rng.chance(50) {
            let p = self.words(2);
            let t = if self.rng.chance(70) {
                exact(&p)
            } else {
                self.pattern(&p)
            };
            self.locators.push(json!({"kind": "placeholder", "t": t}));
            format!(" placeholder=\"{}\"", escape(&p))
        } else {
            String::new()
        };
        let id = format!("f{}", self.next_id + 1);
        let fm = self.mark();
        let lm = self.mark();
        let input = format!("<input type=\"{ty}\" id=\"{id}\"{fm}{placeholder}>");
        let html = match self.rng.below(4) {
            0 => format!("<label for=\"{id}\"{lm}>{}</label>{input}", escape(&label)),
            1 => format!("<label{lm}>{} {input}</label>", escape(&label)),
            2 => format!(
                "<span id=\"l{id}\"{lm}>{}</span><input type=\"{ty}\" aria-labelledby=\"l{id}\"{fm}{placeholder}>",
                escape(&label)
            ),
            _ => format!(
                "<input type=\"{ty}\" aria-label=\"{}\"{fm}{placeholder}><span{lm}></span>",
                escape(&label)
            ),
        };
        let t = if self.rng.chance(70) {
            exact(&label)
        } else {
            self.pattern(&label)
        };
        self.locators.push(json!({"kind": "label", "t": t}));
        self.ask_role(role, Some(&label));
        html
    }

    fn table(&mut self) -> String {
        let m = self.mark();
        let hm = self.mark();
        let head = self.words(1);
        let mut rows = String::new();
        for _ in 0..1 + self.rng.below(3) {
            let rm = self.mark();
            let cm = self.mark();
            let (html, text) = self.text();
            if self.rng.chance(40) {
                self.ask_text(&text);
            }
            // A row and a cell are named from their content, as Chromium names them.
            if self.rng.chance(50) {
                self.ask_role("row", Some(&text));
            }
            if self.rng.chance(30) {
                self.ask_role("cell", Some(&text));
            }
            let hide = self.hiding();
            rows += &format!("<tr{rm}{hide}><td{cm}>{html}</td></tr>");
        }
        self.ask_role("columnheader", Some(&head));
        self.ask_role("row", None);
        format!(
            "<table{m}><thead><tr><th{hm}>{}</th></tr></thead><tbody>{rows}</tbody></table>",
            escape(&head)
        )
    }

    fn paragraph(&mut self) -> String {
        let m = self.mark();
        let hide = self.hiding();
        if self.rng.chance(40) {
            return format!("<p{m}{hide}></p>");
        }
        let (html, text) = self.text();
        if self.rng.chance(50) {
            self.ask_text(&text);
        }
        format!("<p{m}{hide}>{html}</p>")
    }

    fn heading(&mut self) -> String {
        let m = self.mark();
        let (html, text) = self.text();
        self.ask_role("heading", Some(&text));
        format!("<h2{m}>{html}</h2>")
    }

    /// A web component: a host with a declarative shadow root holding some blocks around a
    /// slot, the host's light children slotted (or not, when the root has no slot).
    fn component(&mut self, depth: usize) -> String {
        let m = self.mark();
        let hide = if self.rng.chance(25) {
            " style=\"display: none\""
        } else {
            ""
        };
        let inner = self.blocks(depth + 1, 2);
        let slot = if self.rng.chance(75) {
            "<slot></slot>"
        } else {
            ""
        };
        let light = self.blocks(depth + 1, 2);
        format!(
            "<x-part{m}{hide}><template shadowrootmode=\"open\">{inner}{slot}</template>{light}</x-part>"
        )
    }

    /// A panel that clips its content as apps' lists and side panes do, pushed below the
    /// window's fold now and then: across or down, by `overflow` (auto, scroll, hidden,
    /// clip), by `contain: paint` or by an app rule's class, in a style attribute or not,
    /// scrolled at load by the page's script or not. Its blocks hold no component: a panel
    /// around a shadow tree's controls is not looked through (the README's "In the
    /// viewport").
    fn panel(&mut self) -> String {
        let m = self.mark();
        let id = format!("pane{}", self.next_id);
        let fold = *self.rng.pick(&[0, 0, 300, 700]);
        let h = 20 + self.rng.below(100);
        let style = match self.rng.below(7) {
            0 => format!(" style=\"height: {h}px; overflow: auto\""),
            1 => format!(" style=\"max-height: {h}px; overflow-y: scroll\""),
            2 => format!(" style=\"height: {h}px; overflow: hidden\""),
            3 => format!(" style=\"height: {h}px; overflow: clip\""),
            4 => format!(" style=\"height: {h}px; contain: paint\""),
            5 => " style=\"width: 90px; overflow-x: clip; white-space: nowrap\"".to_string(),
            _ => " class=\"pane\"".to_string(),
        };
        let inner = self.blocks(2, 4);
        let scroll = if self.rng.chance(40) {
            let by = self.rng.below(80);
            format!("<script>document.getElementById('{id}').scrollTop = {by}</script>")
        } else {
            String::new()
        };
        format!(
            "<div style=\"height: {fold}px\"></div><div id=\"{id}\"{m}{style}>{inner}</div>{scroll}"
        )
    }

    /// Controls in the states apps give them — disabled by the attribute, by `aria-disabled`
    /// (any case, or `false` under a `true`), by a disabled fieldset (but for its first
    /// legend's), read-only, checked by the attribute or by `aria-checked` — in a wrapper
    /// that disables, or not. Each carries `data-dt-state`: `disabled`, `checked` and
    /// `editable` are compared on them. The wrapper may be a web component whose shadow root
    /// holds them, its host marked `aria-disabled`.
    fn states(&mut self) -> String {
        let mut controls = String::new();
        for _ in 0..2 + self.rng.below(4) {
            let m = self.mark();
            let name = escape(&self.words(2));
            let state = |g: &mut Gen, of: &[&'static str]| *g.rng.pick(of);
            controls += &match self.rng.below(8) {
                0 => {
                    let st = state(
                        self,
                        &[
                            "",
                            " disabled",
                            " aria-disabled=\"true\"",
                            " aria-disabled=\"TRUE\"",
                            " aria-disabled=\"false\"",
                        ],
                    );
                    format!("<button data-dt-state{m}{st}>{name}</button>")
                }
                1 => {
                    let ty = state(self, &["text", "email", "search", "number"]);
                    let st = state(
                        self,
                        &[
                            "",
                            " disabled",
                            " readonly",
                            " aria-readonly=\"true\"",
                            " aria-disabled=\"true\"",
                        ],
                    );
                    format!("<input type=\"{ty}\" aria-label=\"{name}\" data-dt-state{m}{st}>")
                }
                2 => {
                    let ty = state(self, &["checkbox", "radio"]);
                    let st = state(self, &["", " checked", " disabled", " checked disabled"]);
                    format!("<label><input type=\"{ty}\" data-dt-state{m}{st}> {name}</label>")
                }
                3 => {
                    let role = state(self, &["checkbox", "switch", "radio", "menuitemcheckbox"]);
                    let st = state(
                        self,
                        &[
                            "",
                            " aria-checked=\"true\"",
                            " aria-checked=\"false\"",
                            " aria-checked=\"true\" aria-disabled=\"true\"",
                        ],
                    );
                    format!("<div role=\"{role}\" tabindex=\"0\" data-dt-state{m}{st}>{name}</div>")
                }
                4 => {
                    let st = state(self, &["", " disabled", " readonly"]);
                    format!(
                        "<select aria-label=\"{name}\" data-dt-state{m}{st}><option>One</option><option selected>Two</option></select>"
                    )
                }
                5 => {
                    let st = state(self, &["", " disabled", " readonly"]);
                    format!("<textarea aria-label=\"{name}\" data-dt-state{m}{st}></textarea>")
                }
                6 => {
                    let st = state(
                        self,
                        &["", " aria-readonly=\"true\"", " aria-disabled=\"true\""],
                    );
                    format!(
                        "<div role=\"textbox\" contenteditable=\"true\" aria-label=\"{name}\" data-dt-state{m}{st}></div>"
                    )
                }
                _ => {
                    let st = state(self, &["", " aria-disabled=\"true\""]);
                    format!(
                        "<a href=\"#s{}\" data-dt-state{m}{st}>{name}</a>",
                        self.next_id
                    )
                }
            };
        }
        let w = self.mark();
        match self.rng.below(6) {
            0 => {
                let lm = self.mark();
                format!(
                    "<fieldset disabled{w}><legend><button data-dt-state{lm}>Legend</button></legend>{controls}</fieldset>"
                )
            }
            1 => format!("<div aria-disabled=\"true\"{w}>{controls}</div>"),
            2 => format!("<div role=\"group\" aria-disabled=\"true\"{w}>{controls}</div>"),
            3 => format!(
                "<x-part aria-disabled=\"true\"{w}><template shadowrootmode=\"open\">{controls}</template></x-part>"
            ),
            _ => format!("<div{w}>{controls}</div>"),
        }
    }

    fn block(&mut self, depth: usize) -> String {
        match self.rng.below(if depth < 2 { 12 } else { 10 }) {
            0 | 1 => self.button(),
            2 => self.link(),
            3 => self.list(),
            4 => self.menu(),
            5 => self.field(),
            6 => self.table(),
            7 => self.paragraph(),
            8 => self.heading(),
            9 => self.tree(),
            _ => self.component(depth),
        }
    }

    fn blocks(&mut self, depth: usize, max: usize) -> String {
        let n = 1 + self.rng.below(max);
        let mut out = String::new();
        for _ in 0..n {
            let b = self.block(depth);
            if self.rng.chance(30) {
                let m = self.mark();
                out += &format!("<div{m}>{b}</div>");
            } else {
                out += &b;
            }
        }
        out
    }
}

/// Generated page number `i` of `seed`.
pub fn page(seed: u64, i: usize) -> Page {
    let mut g = Gen {
        rng: Rng::new(seed, i),
        next_id: 0,
        locators: Vec::new(),
        test_ids: 0,
    };
    let mut body = g.blocks(0, 8);
    // After the generated blocks (the seed's pages are as they were before them): a control
    // the app rules' utility class hides, and one a closed `<details>` holds (hidden from
    // `getByRole` as from sight; its `<summary>` has no role).
    let gone = g.mark();
    body += &format!("<div class=\"gone\"><button{gone}>Save</button></div>");
    let shut = g.mark();
    body += &format!("<details><summary>More</summary><button{shut}>Save</button></details>");
    // Then a panel that clips what it holds (`in_viewport` is compared; see `panel`), and
    // controls in the states a person acts by (see `states`).
    body += &g.panel();
    body += &g.states();
    let html = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>generated {i}</title>{APP_STYLE}</head><body>{body}</body></html>"
    );
    Page {
        name: format!("gen-{seed}-{i}"),
        html,
        locators: g.locators,
    }
}

//! Controls inside an open shadow root and inside a same-origin iframe are read, invoked
//! and filled like any other.

use crate::harness::{block_on, control, ok, open, tools};

#[test]
fn shadow_and_frame_controls_are_read_with_labels_and_regions() {
    let (tools, _) = tools();
    block_on(async {
        let screen = open(&tools, "/widgets").await;
        let expected = [
            ("widgets.shadow-input", "Shadow field", "textbox", "shadow"),
            (
                "widgets.shadow-button",
                "Shadow clicks: 0",
                "button",
                "shadow",
            ),
            ("frame.input", "Frame field", "textbox", "frame"),
            ("frame.button", "Frame clicks: 0", "button", "frame"),
        ];
        for (anchor, label, role, region) in expected {
            let c = control(&screen, anchor, None);
            assert_eq!(
                (c.label.as_str(), c.role.as_str(), c.region.as_str()),
                (label, role, region),
                "{anchor}"
            );
            assert!(c.visible, "{anchor}");
            assert!(!c.disabled, "{anchor}");
        }
        assert!(control(&screen, "widgets.shadow-input", None).editable);
        assert!(control(&screen, "frame.input", None).editable);
        tools.close().await;
    });
}

#[test]
fn a_button_in_a_shadow_root_can_be_invoked() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.shadow-button", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.label.as_deref(), Some("Shadow clicks: 0"));
        assert_eq!(
            control(screen, "widgets.shadow-button", None).label,
            "Shadow clicks: 1"
        );
        let again = tools.invoke("widgets.shadow-button", None).await;
        assert_eq!(
            control(ok(&again), "widgets.shadow-button", None).label,
            "Shadow clicks: 2"
        );
        tools.close().await;
    });
}

#[test]
fn a_button_in_a_frame_can_be_invoked() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("frame.button", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.label.as_deref(), Some("Frame clicks: 0"));
        assert_eq!(rt.route, "/widgets");
        assert_eq!(
            control(screen, "frame.button", None).label,
            "Frame clicks: 1"
        );
        let again = tools.invoke("frame.button", None).await;
        assert_eq!(
            control(ok(&again), "frame.button", None).label,
            "Frame clicks: 2"
        );
        tools.close().await;
    });
}

#[test]
fn fields_in_a_shadow_root_and_a_frame_can_be_filled() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let shadow = tools.fill("widgets.shadow-input", "in the shadow").await;
        assert_eq!(shadow.label.as_deref(), Some("Shadow field"));
        assert_eq!(
            control(ok(&shadow), "widgets.shadow-input", None)
                .value
                .as_deref(),
            Some("in the shadow")
        );
        let frame = tools.fill("frame.input", "in the frame").await;
        assert_eq!(frame.label.as_deref(), Some("Frame field"));
        assert_eq!(
            control(ok(&frame), "frame.input", None).value.as_deref(),
            Some("in the frame")
        );

        let read = tools.read_screen().await;
        let screen = ok(&read);
        assert_eq!(
            control(screen, "widgets.shadow-input", None)
                .value
                .as_deref(),
            Some("in the shadow")
        );
        assert_eq!(
            control(screen, "frame.input", None).value.as_deref(),
            Some("in the frame")
        );
        tools.close().await;
    });
}

/// Frames of another site: the fixture pages are served on 127.0.0.1 and their frames on
/// `localhost` (another host of the same server: another origin and another site, which
/// Chromium's site isolation runs in a process of its own).
mod far {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use waymark::registry::Registry;
    use waymark::tools::{ToolOptions, Tools};

    use crate::harness::{block_on, control, ok, shared};
    use crate::pages;

    /// The address of page `route` on the other site.
    fn elsewhere(route: &str) -> String {
        let port = pages::base().port().expect("the page server's port");
        format!("http://localhost:{port}{route}")
    }

    /// A payment form, as a provider embeds it: its button says what it did.
    fn pay_form() -> String {
        pages::put(
            "far-pay",
            r#"<!DOCTYPE html><html lang="en"><head><title>Pay</title></head><body><main>
<label>Card number <input data-anchor="pay.card"></label>
<button data-anchor="pay.submit" onclick="this.textContent = 'Paid with ' + document.querySelector('input').value">Pay now</button>
</main></body></html>"#,
        )
    }

    fn shop() -> String {
        let pay = elsewhere(&pay_form());
        pages::put(
            "far-shop",
            format!(
                r#"<!DOCTYPE html><html lang="en"><head><title>Shop</title></head><body style="margin:0">
<h1>Shop</h1><button data-anchor="shop.buy">Buy</button>
<iframe src="{pay}" title="Payment" style="display:block;margin:200px 0 0 50px;width:500px;height:200px;border:10px solid #999"></iframe>
<button data-anchor="shop.help">Help</button>
</body></html>"#
            ),
        )
    }

    fn tools_with(options: ToolOptions) -> Tools<waymark::browser::ChromiumTab> {
        let tab =
            block_on(shared().browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
        Tools::new(tab, pages::base(), Arc::new(Registry::empty()), options)
    }

    fn tools() -> Tools<waymark::browser::ChromiumTab> {
        tools_with(ToolOptions::default())
    }

    #[test]
    fn the_frame_is_out_of_process() {
        let route = shop();
        block_on(async {
            let tab = shared().browser().new_tab().await.expect("a tab");
            use waymark::browser::Tab;
            let url = pages::base().join(&route).unwrap().to_string();
            tab.navigate(&url, Duration::from_secs(10))
                .await
                .expect("the shop loads");
            let targets = tab.frame_targets().await.expect("the browser's targets");
            assert!(
                targets
                    .iter()
                    .any(|u| u.contains("localhost") && u.ends_with("/p/far-pay")),
                "the payment frame runs in a process of its own: {targets:?}"
            );
        });
    }

    #[test]
    fn a_cross_origin_frames_controls_are_read_where_it_sits_in_its_region() {
        let tools = tools();
        let route = shop();
        block_on(async {
            let rt = tools.navigate(&route).await;
            let screen = ok(&rt);
            let anchors: Vec<&str> = screen.controls.iter().map(|c| c.anchor.as_str()).collect();
            // The top document's controls, then the frame's in its document order.
            assert_eq!(anchors, ["shop.buy", "shop.help", "pay.card", "pay.submit"]);
            let card = control(screen, "pay.card", None);
            assert_eq!(
                (
                    card.label.as_str(),
                    card.role.as_str(),
                    card.region.as_str()
                ),
                ("Card number", "textbox", "Payment")
            );
            assert!(card.editable && card.visible);
            assert_eq!(control(screen, "pay.submit", None).label, "Pay now");
            assert!(screen.frames_unread.is_none());
            // Boxes in the top document's coordinates: the frame's content box starts
            // 50 + 10 px from the left, 200 + 10 px below the line of the Buy button.
            let raw = tools.last_observation().expect("the read's evidence");
            let bbox = |anchor: &str| {
                raw.controls
                    .iter()
                    .find(|c| c.anchor.as_str() == anchor)
                    .unwrap_or_else(|| panic!("{anchor} in the evidence"))
                    .bbox
            };
            let (buy, card) = (bbox("shop.buy"), bbox("pay.card"));
            assert!((60..560).contains(&card[0]), "{card:?}");
            let below = buy[1] + buy[3] + 210;
            assert!((below..below + 60).contains(&card[1]), "{card:?} {buy:?}");
            tools.close().await;
        });
    }

    #[test]
    fn a_button_and_a_field_in_a_cross_origin_frame_are_filled_and_invoked() {
        let tools = tools();
        let route = shop();
        block_on(async {
            ok(&tools.navigate(&route).await);
            let filled = tools.fill("pay.card", "4242").await;
            assert_eq!(filled.label.as_deref(), Some("Card number"));
            assert_eq!(
                control(ok(&filled), "pay.card", None).value.as_deref(),
                Some("4242")
            );
            let rt = tools.invoke("pay.submit", None).await;
            assert_eq!(rt.label.as_deref(), Some("Pay now"));
            assert_eq!(control(ok(&rt), "pay.submit", None).label, "Paid with 4242");
            // A key pressed on a frame's field reaches it: the frame holds the focus.
            let pressed = tools.press("pay.card", "5").await;
            assert_eq!(
                control(ok(&pressed), "pay.card", None).value.as_deref(),
                Some("42425")
            );
            // The top document's controls are still acted on in the top document.
            ok(&tools.invoke("shop.buy", None).await);
            tools.close().await;
        });
    }

    #[test]
    fn a_cross_origin_frame_inside_a_same_origin_frame_is_read_and_invoked() {
        let tools = tools();
        let pay = elsewhere(&pay_form());
        let middle = pages::put(
            "far-middle",
            format!(
                r#"<!DOCTYPE html><html lang="en"><body style="margin:0">
<button data-anchor="middle.go">Go</button>
<iframe src="{pay}" name="card-frame" style="display:block;width:400px;height:150px;border:0"></iframe>
</body></html>"#
            ),
        );
        let route = pages::put(
            "far-nested",
            format!(
                r#"<!DOCTYPE html><html lang="en"><body style="margin:0">
<button data-anchor="top.go">Top</button>
<iframe src="{middle}" data-anchor-region="checkout" style="display:block;width:600px;height:300px;border:0"></iframe>
</body></html>"#
            ),
        );
        block_on(async {
            let screen = ok(&tools.navigate(&route).await).clone();
            let anchors: Vec<&str> = screen.controls.iter().map(|c| c.anchor.as_str()).collect();
            assert_eq!(anchors, ["top.go", "middle.go", "pay.card", "pay.submit"]);
            assert_eq!(control(&screen, "middle.go", None).region, "checkout");
            assert_eq!(control(&screen, "pay.card", None).region, "card-frame");
            ok(&tools.fill("pay.card", "1111").await);
            let rt = tools.invoke("pay.submit", None).await;
            assert_eq!(control(ok(&rt), "pay.submit", None).label, "Paid with 1111");
            tools.close().await;
        });
    }

    #[test]
    fn a_frame_inside_a_frame_of_another_origin_is_read_and_invoked() {
        let tools = tools();
        // Back on the top document's origin, inside a frame of another: a process apart from
        // the frame holding it, which the browser asks where it sits.
        let inner = pages::base().join(&pay_form()).unwrap().to_string();
        let outer = elsewhere(&pages::put(
            "far-outer",
            format!(
                r#"<!DOCTYPE html><html lang="en"><body style="margin:0">
<button data-anchor="outer.go">Outer</button>
<iframe src="{inner}" title="Card" style="display:block;margin-top:40px;width:400px;height:150px;border:0"></iframe>
</body></html>"#
            ),
        ));
        let route = pages::put(
            "far-twice",
            format!(
                r#"<!DOCTYPE html><html lang="en"><body style="margin:0">
<button data-anchor="top.go">Top</button>
<iframe src="{outer}" title="Checkout" style="display:block;width:600px;height:300px;border:0"></iframe>
</body></html>"#
            ),
        );
        block_on(async {
            let screen = ok(&tools.navigate(&route).await).clone();
            let anchors: Vec<&str> = screen.controls.iter().map(|c| c.anchor.as_str()).collect();
            assert_eq!(anchors, ["top.go", "outer.go", "pay.card", "pay.submit"]);
            assert_eq!(control(&screen, "outer.go", None).region, "Checkout");
            assert_eq!(control(&screen, "pay.card", None).region, "Card");
            ok(&tools.fill("pay.card", "2222").await);
            let rt = tools.invoke("pay.submit", None).await;
            assert_eq!(control(ok(&rt), "pay.submit", None).label, "Paid with 2222");
            tools.close().await;
        });
    }

    /// A shop with a "Pay now" button of its own beside the payment frame's: the registry
    /// finds the frame's by `within:` the iframe's anchor.
    fn matched_shop() -> String {
        let pay = elsewhere(&pages::put(
            "far-pay-plain",
            r#"<!DOCTYPE html><html lang="en"><head><title>Pay</title></head><body><main>
<label>Card number <input></label>
<button onclick="document.getElementById('paid').textContent = 'Paid with ' + document.querySelector('input').value">Pay now</button>
<p role="status" id="paid"></p>
</main></body></html>"#,
        ));
        pages::put(
            "far-matched",
            format!(
                r#"<!DOCTYPE html><html lang="en"><head><title>Shop</title></head><body>
<button id="shop-pay" onclick="this.textContent = 'Shop pressed'">Pay now</button>
<iframe src="{pay}" title="Payment" style="width:500px;height:200px"></iframe>
</body></html>"#
            ),
        )
    }

    const REGISTRY: &str = "app: shop
screens:
  - id: shop
    route: /p/far-matched
anchors:
  - id: payment.frame
    description: the payment provider's frame
    screens: [shop]
    match: {css: 'iframe[title=\"Payment\"]'}
  - id: payment.card
    description: the card number, in the provider's frame
    screens: [shop]
    match: {role: textbox, name: Card number, within: payment.frame}
  - id: payment.pay
    description: pays, in the provider's frame
    screens: [shop]
    match: {role: button, name: Pay now, within: payment.frame}
  - id: payment.status
    description: what the provider says it did
    screens: [shop]
    match: {role: status, within: payment.frame}
";

    /// What Playwright's `frameLocator(…).getByRole(…)` fill and click did on the same page:
    /// tests/playwright/frame-pay.mjs.
    fn playwright_pays(url: &str) -> serde_json::Value {
        let out = crate::harness::playwright_output("frame-pay.mjs", &[url]);
        serde_json::from_slice(&out).expect("the script prints JSON")
    }

    #[test]
    fn a_matcher_within_an_iframe_anchor_finds_the_frames_control_as_playwrights_frame_locator() {
        let route = matched_shop();
        let registry = Registry::parse(REGISTRY, "frames.yaml")
            .unwrap_or_else(|e| panic!("the registry: {e}"));
        let tab =
            block_on(shared().browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
        let tools = Tools::new(
            tab,
            pages::base(),
            Arc::new(registry),
            ToolOptions::default(),
        );
        let seen = block_on(async {
            let screen = ok(&tools.navigate(&route).await).clone();
            let pay: Vec<_> = screen
                .controls
                .iter()
                .filter(|c| c.anchor.as_str() == "payment.pay")
                .collect();
            assert_eq!(pay.len(), 1, "only the frame's button is within the frame");
            assert_eq!(pay[0].region, "Payment");
            ok(&tools.fill("payment.card", "4242").await);
            let rt = tools.invoke("payment.pay", None).await;
            let screen = ok(&rt);
            let seen = serde_json::json!({
                "status": control(screen, "payment.status", None).value,
                "card": control(screen, "payment.card", None).value,
            });
            tools.close().await;
            seen
        });
        let url = pages::base().join(&route).expect("a URL").to_string();
        let oracle = playwright_pays(&url);
        assert_eq!(
            oracle["shop"], "Pay now",
            "Playwright pressed only the frame's"
        );
        assert_eq!(seen["status"], oracle["status"], "{oracle}");
        assert_eq!(seen["card"], oracle["card"], "{oracle}");
        assert_eq!(seen["status"], "Paid with 4242");
    }

    #[test]
    fn a_frame_that_never_answers_is_named_in_frames_unread_within_the_bound() {
        let busy = elsewhere(&pages::put(
            "far-busy",
            r#"<!DOCTYPE html><html lang="en"><body>
<button data-anchor="busy.button">Busy</button>
<script>addEventListener('load', function () { setTimeout(function () { for (;;) {} }, 200); });</script>
</body></html>"#,
        ));
        let route = pages::put(
            "far-busy-top",
            format!(
                r#"<!DOCTYPE html><html lang="en"><body>
<button data-anchor="top.ok">Fine</button>
<iframe src="{busy}" title="Busy widget"></iframe>
</body></html>"#
            ),
        );
        let tools = tools_with(ToolOptions {
            script_timeout: Duration::from_secs(1),
            ..ToolOptions::default()
        });
        block_on(async {
            ok(&tools.navigate(&route).await);
            tokio::time::sleep(Duration::from_millis(500)).await;
            let start = Instant::now();
            let rt = tools.read_screen().await;
            let took = start.elapsed();
            let screen = ok(&rt);
            assert!(
                took < Duration::from_secs(4),
                "the read waited {took:?} for the frame"
            );
            assert_eq!(control(screen, "top.ok", None).label, "Fine");
            assert!(
                screen
                    .controls
                    .iter()
                    .all(|c| c.anchor.as_str() != "busy.button")
            );
            let unread = screen
                .frames_unread
                .as_ref()
                .expect("the frame is said unread");
            assert_eq!(unread.count, 1);
            assert_eq!(unread.frames[0].title.as_deref(), Some("Busy widget"));
            assert!(unread.frames[0].src.ends_with("/p/far-busy"));
            assert!(
                unread.frames[0].reason.contains("did not answer"),
                "{unread:?}"
            );
            assert!(screen.confidence < 1.0);
            tools.close().await;
        });
    }
}

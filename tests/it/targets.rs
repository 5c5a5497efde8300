//! Targets besides anchors: a control without an anchor by the node id a read gave it
//! (stale once the page dropped it), and a point in page coordinates.

use waymark::screen::View;
use waymark::tools::{ErrorCode, TargetRef};

use crate::cli::{journey, run_journey};
use crate::harness::{block_on, control, failed, ok, open, probed_tools, tools};

fn with_nodes() -> View {
    View {
        nodes: true,
        ..View::default()
    }
}

#[test]
fn a_control_without_an_anchor_is_invoked_by_its_node() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.read_screen_with(with_nodes()).await;
        let screen = ok(&rt);
        let nodes = screen.nodes.as_ref().expect("nodes were asked for");
        assert_eq!(screen.nodes_total, Some(nodes.len()));
        let plain = nodes
            .iter()
            .find(|n| n.label == "Plain button")
            .expect("the unanchored button is listed");
        assert_eq!(plain.role, "button");
        let rt = tools.invoke_target(&TargetRef::Node(plain.node)).await;
        ok(&rt);
        assert_eq!(rt.label.as_deref(), Some("Plain button"));
        assert_eq!(
            rt.anchor.as_deref(),
            Some(format!("node {}", plain.node).as_str())
        );
        let after = ok(&tools.read_screen_with(with_nodes()).await).clone();
        let pressed = after.nodes.as_ref().expect("nodes");
        assert!(
            pressed.iter().any(|n| n.label == "Plain pressed"),
            "{pressed:?}"
        );

        // A new document: the node is gone, and the read it came from is stale.
        open(&tools, "/widgets").await;
        let rt = tools.invoke_target(&TargetRef::Node(plain.node)).await;
        let e = failed(&rt, ErrorCode::StaleRead);
        assert!(e.message.contains("read the screen again"), "{}", e.message);
        tools.close().await;
    });
}

#[test]
fn a_point_is_pressed_exactly_there() {
    let (tools, probe) = probed_tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let raw = tools.last_observation().expect("a read is held");
        let counter = raw
            .controls
            .iter()
            .find(|c| c.anchor == "widgets.counter")
            .expect("the counter is read");
        let [x, y, w, h] = counter.bbox.map(|v| v as f64);
        let rt = tools
            .invoke_target(&TargetRef::Point {
                x: x + w / 2.0,
                y: y + h / 2.0,
            })
            .await;
        let screen = ok(&rt);
        assert_eq!(
            control(screen, "widgets.counter", None).label,
            "Clicked 1 times"
        );
        // Beyond the document: nothing lies there.
        let rt = tools
            .invoke_target(&TargetRef::Point {
                x: 5.0,
                y: 1_000_000.0,
            })
            .await;
        failed(&rt, ErrorCode::NotOnScreen);

        // A point read off one document is stale on the next one.
        let point = TargetRef::Point {
            x: x + w / 2.0,
            y: y + h / 2.0,
        };
        probe.page_navigates("/widgets").await;
        failed(&tools.invoke_target(&point).await, ErrorCode::StaleRead);
        tools.close().await;
    });
}

#[test]
fn journeys_name_nodes_and_points_with_maps() {
    let dir = journey(
        "nodes.rhai",
        r#"navigate("/widgets");
let s = read_screen(#{nodes: true});
let plain = ();
for n in s.nodes { if n.label == "Plain button" { plain = n; } }
expect(plain != (), "the unanchored button is listed");
let rt = invoke(#{node: plain.node});
expect(rt.label == "Plain button", rt.label);
expect(!("nodes" in read_screen()), "nodes only when asked for");
let code = "";
try { invoke(#{node: 1, x: 3}); } catch (e) { code = e.code; }
expect(code == "invalid_argument", "a target is a node or a point");
"#,
    );
    run_journey(dir.path(), "nodes.rhai", &[]).exits(0);
}

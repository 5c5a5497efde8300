//! The one list of verbs. [`Call`] is every tool call a journey of any kind can make, each
//! variant with its typed arguments; [`Verb`] is the same list without the arguments, with
//! each verb's names and action class. Both come from the table at the end of this file,
//! so the Rhai functions (`journey::engine`), the MCP tool list (`mcp::tools`), the acting
//! set ([`Verb::acts`]), replay and the trace all derive from one row per verb.
//!
//! Arguments are deserialised with serde from both surfaces: from MCP's JSON (and a
//! transcript's) by [`Call::parse`], from a Rhai map by [`Call::from_rhai`]; the argument
//! structs' doc comments are the JSON schema MCP clients list. Adding a verb is one row,
//! one argument struct, one handler (in [`Gateway::call`](super::Gateway::call)) and its
//! test; the compiler then asks each surface for the words it shows (an MCP description,
//! the Rhai forms).

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};

mod args;

pub use args::*;

use super::{ActionClass, TargetRef};

/// The targets a journey may name instead of an anchor, for `invoke`, `press` and `fill`:
/// a control without an anchor by the `node` id a read with `nodes: true` gave it, or a
/// point (`x`, `y`) in the page's coordinates. Agents name anchors only: [`Call::parse`]
/// refuses these.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Aim {
    /// A node id from a read's `nodes`.
    pub node: Option<u64>,
    /// A point's horizontal coordinate.
    pub x: Option<f64>,
    /// A point's vertical coordinate.
    pub y: Option<f64>,
    /// With an anchor: which of its controls, from 0 in document order.
    pub nth: Option<u64>,
}

impl Aim {
    fn is_empty(&self) -> bool {
        *self == Aim::default()
    }

    /// The first of its fields that is given, by name (but `nth`, which agents may give).
    fn named(&self) -> Option<&'static str> {
        [
            ("node", self.node.is_some()),
            ("x", self.x.is_some()),
            ("y", self.y.is_some()),
        ]
        .into_iter()
        .find_map(|(name, given)| given.then_some(name))
    }

    /// The target these name with `anchor`: `None` for the anchor itself (or a mistake the
    /// tool reports), else a node or a point; an error for a mix.
    fn target(&self, anchor: &str, key: Option<&str>) -> Result<Option<TargetRef>, String> {
        match (anchor.is_empty(), self.node, self.x, self.y, self.nth) {
            (false, None, None, None, None) => Ok(None),
            // An anchor that does not parse is the tool's to report (`unknown_anchor`).
            (false, None, None, None, Some(n)) => Ok(super::act::parse_target(anchor, key)
                .ok()
                .map(|a| TargetRef::Nth(a, n))),
            (true, Some(node), None, None, None) => Ok(Some(TargetRef::Node(node))),
            (true, None, Some(x), Some(y), None) if x.is_finite() && y.is_finite() => {
                Ok(Some(TargetRef::Point { x, y }))
            }
            _ => Err(
                "a target is an anchor (with `nth`, or not), `#{node: N}` or `#{x: X, y: Y}`"
                    .to_string(),
            ),
        }
    }
}

/// What an argument struct is: read from either surface, written to a trace or transcript,
/// described by a schema, and one [`Call`].
pub trait Args: DeserializeOwned + Serialize + JsonSchema + Into<Call> + 'static {}

/// Something done with one verb's argument type, chosen by the verb at run time (the
/// schema MCP lists for it, reading its arguments): see [`Verb::visit`].
pub trait ArgsVisitor {
    /// What the visit gives.
    type Out;
    /// The visit, with the verb's argument type.
    fn visit<A: Args>(self) -> Self::Out;
}

/// The table: one row per verb, in the order surfaces list them. A row is the verb, its
/// argument struct, its name in traces, its tool's name, and its action class.
macro_rules! verbs {
    ($(
        $(#[doc = $doc:literal])*
        $verb:ident($args:ty) = $name:literal, tool $tool:literal, class $class:ident;
    )*) => {
        /// One tool call, as made or recorded: the verb and its arguments.
        #[derive(Debug, Clone)]
        pub enum Call {
            $( $(#[doc = $doc])* $verb($args), )*
        }

        /// The verbs of docs/design.md: [`Call`] without its arguments. Each has one class.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Verb {
            $( $(#[doc = $doc])* $verb, )*
        }

        impl Verb {
            /// Every verb, in the table's order.
            pub const ALL: &'static [Verb] = &[$(Verb::$verb),*];

            /// The verb as written in traces (`read`).
            pub fn as_str(self) -> &'static str {
                match self { $(Verb::$verb => $name,)* }
            }

            /// The tool that performs it, as named in round trips, MCP and Rhai
            /// (`read_screen`).
            pub fn tool(self) -> &'static str {
                match self { $(Verb::$verb => $tool,)* }
            }

            /// Its action class.
            pub fn class(self) -> ActionClass {
                match self { $(Verb::$verb => ActionClass::$class,)* }
            }

            /// `visitor` with this verb's argument type.
            pub fn visit<V: ArgsVisitor>(self, visitor: V) -> V::Out {
                match self { $(Verb::$verb => visitor.visit::<$args>(),)* }
            }
        }

        impl Call {
            /// Its verb.
            pub fn verb(&self) -> Verb {
                match self { $(Call::$verb(_) => Verb::$verb,)* }
            }

            /// Its arguments as JSON, whole.
            fn to_json(&self) -> serde_json::Value {
                let value = match self { $(Call::$verb(a) => serde_json::to_value(a),)* };
                value.unwrap_or(serde_json::Value::Null)
            }
        }

        $(
            impl From<$args> for Call {
                fn from(args: $args) -> Call {
                    Call::$verb(args)
                }
            }
            impl Args for $args {}
        )*
    };
}

verbs! {
    /// Open a route.
    Navigate(NavigateArgs) = "navigate", tool "navigate", class Navigate;
    /// Read the screen.
    Read(ReadArgs) = "read", tool "read_screen", class Read;
    /// Press a control.
    Invoke(InvokeArgs) = "invoke", tool "invoke", class Act;
    /// Press a key on a control.
    Press(PressArgs) = "press", tool "press", class Act;
    /// Set a field's value.
    Fill(FillArgs) = "fill", tool "fill", class Type;
    /// Wait for a condition, then read the screen.
    WaitFor(WaitForArgs) = "wait_for", tool "wait_for", class Read;
    /// Move the pointer onto a control.
    Hover(HoverArgs) = "hover", tool "hover", class Read;
    /// Move the pointer to a point of the viewport, or out of the page.
    MovePointer(MovePointerArgs) = "move_pointer", tool "move_pointer", class Read;
    /// Scroll the page by an amount.
    Scroll(ScrollArgs) = "scroll", tool "scroll", class Read;
    /// Scroll a control into view.
    ScrollTo(ScrollToArgs) = "scroll_to", tool "scroll_to", class Read;
    /// Drag a control onto another.
    Drag(DragArgs) = "drag", tool "drag", class Act;
    /// Answer a control's file chooser with a fixture.
    Upload(UploadArgs) = "upload", tool "upload", class Act;
    /// List the journey's tabs.
    Tabs(TabsArgs) = "tabs", tool "tabs", class Read;
    /// Move to another of the journey's tabs.
    SwitchTab(SwitchTabArgs) = "switch_tab", tool "switch_tab", class Read;
    /// Close one of the journey's tabs.
    CloseTab(CloseTabArgs) = "close_tab", tool "close_tab", class Act;
    /// Say how the following JavaScript dialogs are answered.
    OnDialog(OnDialogArgs) = "on_dialog", tool "on_dialog", class Act;
    /// Answer the requests a pattern matches, from now on.
    Route(RouteArgs) = "route", tool "route", class Act;
    /// Stop answering the requests a pattern matches.
    Unroute(UnrouteArgs) = "unroute", tool "unroute", class Act;
    /// Make an HTTP request to the app with the journey's cookies (class `act`: a read
    /// for `GET` and `HEAD`).
    Request(RequestArgs) = "request", tool "request", class Act;
    /// Take the network away from the journey's tabs, or give it back.
    SetOffline(SetOfflineArgs) = "set_offline", tool "set_offline", class Act;
    /// Throttle the network of the journey's tabs.
    SetNetwork(SetNetworkArgs) = "set_network", tool "set_network", class Act;
    /// Answer servers' HTTP authentication challenges with these credentials.
    HttpCredentials(HttpCredentialsArgs) = "http_credentials", tool "http_credentials", class Act;
    /// Send these headers with every request of the journey's tabs.
    SetHeaders(HeadersArgs) = "set_headers", tool "set_headers", class Act;
    /// Tell the journey's tabs where the person is.
    SetGeolocation(GeolocationArgs) = "set_geolocation", tool "set_geolocation", class Act;
    /// Grant the app's origin permissions in the journey's context.
    GrantPermissions(PermissionsArgs) = "grant_permissions", tool "grant_permissions", class Act;
    /// Install a fake clock (Date, timers, animation frames) in the journey's tabs.
    ClockInstall(ClockInstallArgs) = "clock_install", tool "clock_install", class Act;
    /// Set the time the journey's pages see, firing no timer.
    ClockSet(ClockSetArgs) = "clock_set", tool "clock_set", class Act;
    /// Move the journey's clock on, running the timers due on the way in order.
    ClockAdvance(ClockAdvanceArgs) = "clock_advance", tool "clock_advance", class Act;
    /// Stop the journey's clock (only `clock_advance` moves it then).
    ClockPause(ClockPauseArgs) = "clock_pause", tool "clock_pause", class Act;
    /// Let the journey's clock run again with real time.
    ClockResume(ClockResumeArgs) = "clock_resume", tool "clock_resume", class Act;
    /// Hand the tab to the person.
    Handoff(HandoffArgs) = "handoff", tool "handoff", class Pause;
    /// End the journey.
    Finish(FinishArgs) = "finish", tool "finish", class End;
}

impl Verb {
    /// The verb whose tool is named `tool` (`read_screen`).
    pub fn of_tool(tool: &str) -> Option<Verb> {
        Verb::ALL.iter().copied().find(|v| v.tool() == tool)
    }

    /// Whether it acts on the page or hands it over: what a read-only surface does not
    /// offer (its class is `act`, `type` or `pause`).
    pub fn acts(self) -> bool {
        matches!(
            self.class(),
            ActionClass::Act | ActionClass::Type | ActionClass::Pause
        )
    }
}

impl Serialize for Verb {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Reads one verb's arguments from JSON.
struct FromJson(serde_json::Value);

impl ArgsVisitor for FromJson {
    type Out = Result<Call, serde_json::Error>;
    fn visit<A: Args>(self) -> Self::Out {
        serde_json::from_value::<A>(self.0).map(Into::into)
    }
}

/// Reads one verb's arguments from a Rhai map.
struct FromRhai(rhai::Dynamic);

impl ArgsVisitor for FromRhai {
    type Out = Result<Call, Box<rhai::EvalAltResult>>;
    fn visit<A: Args>(self) -> Self::Out {
        rhai::serde::from_dynamic::<A>(&self.0).map(Into::into)
    }
}

impl Call {
    /// The call named `tool` with `arguments`, as an agent sends them and a transcript
    /// records them. Agents name controls by anchor only.
    pub fn parse(tool: &str, arguments: serde_json::Value) -> Result<Call, String> {
        let verb =
            Verb::of_tool(tool).ok_or_else(|| format!("`{tool}` is not one of waymark's tools"))?;
        let args = if arguments.is_null() {
            serde_json::json!({})
        } else {
            arguments
        };
        let call = verb
            .visit(FromJson(args))
            .map_err(|e| format!("the arguments of `{tool}` do not fit it: {e}"))?;
        match call.aim().named() {
            Some(field) => Err(format!(
                "the arguments of `{tool}` do not fit it: unknown field `{field}`: \
                 an agent names a control by its anchor"
            )),
            None => Ok(call),
        }
    }

    /// The call `verb` with `arguments` written as a Rhai map (a journey's call), the
    /// target it names checked. The error is the message a journey is thrown.
    pub fn from_rhai(verb: Verb, arguments: rhai::Map) -> Result<Call, String> {
        let call = verb
            .visit(FromRhai(rhai::Dynamic::from_map(arguments)))
            .map_err(|e| {
                let why = match *e {
                    rhai::EvalAltResult::ErrorRuntime(ref value, _) => value.to_string(),
                    ref other => other.to_string(),
                };
                format!("the arguments of `{}` do not fit it: {why}", verb.tool())
            })?;
        call.aimed()
            .map_err(|e| format!("`{}`: {e}", verb.tool()))?;
        Ok(call)
    }

    /// The tool's name.
    pub fn tool(&self) -> &'static str {
        self.verb().tool()
    }

    /// The arguments as recorded; a fill's text is replaced when `secret`.
    pub fn arguments(&self, secret: bool) -> serde_json::Value {
        match self {
            Call::Fill(a) if secret => Call::Fill(FillArgs {
                text: REDACTED.to_string(),
                ..a.clone()
            })
            .to_json(),
            Call::Request(a) => {
                let mut json = serde_json::to_value(a).unwrap_or_default();
                super::request::redact(&mut json);
                json
            }
            Call::HttpCredentials(_) => serde_json::json!({"user": REDACTED, "pass": REDACTED}),
            Call::SetHeaders(a) => {
                let names = a.headers.keys().map(|n| (n.clone(), REDACTED.into()));
                serde_json::json!({"headers": names.collect::<serde_json::Map<_, _>>()})
            }
            _ => self.to_json(),
        }
    }

    /// The control an acting call targets by anchor, as a reference (`anchor` or
    /// `anchor[key]`).
    pub fn target(&self) -> Option<String> {
        let with_key =
            |anchor: &str, key: &Option<String>| crate::anchor::reference(anchor, key.as_deref());
        match self {
            _ if !self.aim().is_empty() => None,
            Call::Invoke(a) => Some(with_key(&a.anchor, &a.key)),
            Call::Press(a) if a.anchor.is_empty() => None,
            Call::Press(a) => Some(a.anchor.clone()),
            Call::Fill(a) => Some(a.anchor.clone()),
            Call::Drag(a) => Some(a.from.clone()),
            Call::Upload(a) => Some(a.anchor.clone()),
            _ => None,
        }
    }

    /// The node or point an `invoke`, `press`, `fill` or `hover` names instead of an
    /// anchor, the n-th control of an anchor (`nth`), or the focus (a `press` with no
    /// control named).
    pub(crate) fn aimed(&self) -> Result<Option<TargetRef>, String> {
        match self {
            Call::Invoke(a) => self.aim().target(&a.anchor, a.key.as_deref()),
            // A key pressed with no control named goes to whatever has the focus.
            Call::Press(a) if a.anchor.is_empty() && self.aim() == Aim::default() => {
                Ok(Some(TargetRef::Focused))
            }
            Call::Press(a) => self.aim().target(&a.anchor, None),
            Call::Fill(a) => self.aim().target(&a.anchor, None),
            Call::Hover(a) => self.aim().target(&a.anchor, a.key.as_deref()),
            Call::Upload(a) => self.aim().target(&a.anchor, None),
            Call::ScrollTo(a) => self.aim().target(&a.anchor, a.key.as_deref()),
            _ => Ok(None),
        }
    }

    /// The node, point or `nth` fields a call was given.
    fn aim(&self) -> Aim {
        match self {
            Call::Invoke(InvokeArgs {
                node, x, y, nth, ..
            })
            | Call::Press(PressArgs {
                node, x, y, nth, ..
            })
            | Call::Fill(FillArgs {
                node, x, y, nth, ..
            })
            | Call::Hover(HoverArgs {
                node, x, y, nth, ..
            }) => Aim {
                node: *node,
                x: *x,
                y: *y,
                nth: *nth,
            },
            Call::Upload(UploadArgs { nth, .. }) | Call::ScrollTo(ScrollToArgs { nth, .. }) => {
                Aim {
                    nth: *nth,
                    ..Aim::default()
                }
            }
            _ => Aim::default(),
        }
    }
}

/// What a secret field's text is recorded as.
pub const REDACTED: &str = "[redacted]";

/// The JSON schema of one verb's arguments, as they are read (serde's deserialize side).
struct ArgsSchema;

impl ArgsVisitor for ArgsSchema {
    type Out = serde_json::Value;
    fn visit<A: Args>(self) -> serde_json::Value {
        let schema = schemars::generate::SchemaSettings::draft2020_12()
            .into_generator()
            .into_root_schema_for::<A>();
        serde_json::to_value(schema).unwrap_or_default()
    }
}

/// What `tools.schema.json` holds: every verb of the one list, by tool name, with its
/// trace name, action class, whether a read-only surface offers it, and its arguments'
/// schema: the same schema MCP lists, for the docs and for other clients.
pub fn tools_schema() -> String {
    let tools: serde_json::Map<String, serde_json::Value> = Verb::ALL
        .iter()
        .map(|verb| {
            let entry = serde_json::json!({
                "verb": verb.as_str(),
                "class": verb.class().as_str(),
                "read_only_surface": !verb.acts(),
                "arguments": verb.visit(ArgsSchema),
            });
            (verb.tool().to_string(), entry)
        })
        .collect();
    let doc = serde_json::json!({
        "$comment": "waymark's tools, generated from src/tools/verbs/mod.rs (the one list of verbs); \
                     `WAYMARK_UPDATE_SCHEMA=1 cargo test --lib schema` rewrites it",
        "tools": tools,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_calls_parse_back_and_secrets_stay_out() {
        let call = Call::parse(
            "fill",
            serde_json::json!({"anchor": "login.password", "text": "hunter2"}),
        )
        .unwrap();
        assert_eq!(call.tool(), "fill");
        assert_eq!(
            call.arguments(true),
            serde_json::json!({"anchor": "login.password", "text": "[redacted]"})
        );
        assert_eq!(call.target().as_deref(), Some("login.password"));
        let invoke = Call::parse(
            "invoke",
            serde_json::json!({"anchor": "claims.open", "key": "1042"}),
        )
        .unwrap();
        assert_eq!(invoke.target().as_deref(), Some("claims.open[1042]"));
        assert!(Call::parse("read_screen", serde_json::Value::Null).is_ok());
        let err = Call::parse("click", serde_json::json!({})).unwrap_err();
        assert!(err.contains("`click`"), "{err}");
        let err = Call::parse("invoke", serde_json::json!({"anchor": 3})).unwrap_err();
        assert!(err.contains("do not fit"), "{err}");
    }

    #[test]
    fn a_dialog_is_accepted_or_dismissed_and_nothing_else() {
        let call = Call::parse(
            "on_dialog",
            serde_json::json!({"action": "dismiss", "text": "x"}),
        )
        .unwrap();
        assert_eq!(call.verb(), Verb::OnDialog);
        let err = Call::parse("on_dialog", serde_json::json!({"action": "maybe"})).unwrap_err();
        assert!(err.contains("unknown variant `maybe`"), "{err}");
        let mut map = rhai::Map::new();
        map.insert("action".into(), "accept".into());
        let Call::OnDialog(args) = Call::from_rhai(Verb::OnDialog, map).unwrap() else {
            panic!("on_dialog reads into on_dialog");
        };
        assert_eq!(args.action, DialogAction::Accept);
    }

    #[test]
    fn agents_name_anchors_only() {
        let err = Call::parse("invoke", serde_json::json!({"node": 17})).unwrap_err();
        assert!(err.contains("unknown field `node`"), "{err}");
        let err =
            Call::parse("fill", serde_json::json!({"x": 1, "y": 2, "text": "a"})).unwrap_err();
        assert!(err.contains("unknown field `x`"), "{err}");
        let err =
            Call::parse("invoke", serde_json::json!({"anchor": "a.b", "colour": 1})).unwrap_err();
        assert!(err.contains("unknown field `colour`"), "{err}");
    }

    #[test]
    fn a_journey_names_a_node_or_a_point_and_never_both() {
        let mut map = rhai::Map::new();
        map.insert("node".into(), rhai::Dynamic::from(17_i64));
        let call = Call::from_rhai(Verb::Invoke, map.clone()).unwrap();
        assert_eq!(call.aimed().unwrap(), Some(TargetRef::Node(17)));
        map.insert("x".into(), rhai::Dynamic::from(1.5_f64));
        let err = Call::from_rhai(Verb::Invoke, map).unwrap_err();
        assert!(err.contains("a target is an anchor"), "{err}");
        let mut map = rhai::Map::new();
        map.insert("colour".into(), "red".into());
        let err = Call::from_rhai(Verb::WaitFor, map).unwrap_err();
        assert!(
            err.starts_with("the arguments of `wait_for` do not fit it"),
            "{err}"
        );
        assert!(err.contains("colour"), "{err}");
    }

    #[test]
    fn nth_names_one_of_an_anchors_controls_and_a_bare_press_the_focus() {
        let call = Call::parse(
            "invoke",
            serde_json::json!({"anchor": "row.delete", "nth": 1, "button": "right", "clicks": 2,
                               "modifiers": ["Shift"]}),
        )
        .unwrap();
        let Call::Invoke(args) = &call else {
            panic!("invoke reads into invoke")
        };
        let click = args.click().unwrap();
        assert_eq!(click.button, crate::browser::Button::Right);
        assert_eq!(click.count, 2);
        assert_eq!(click.modifiers, [crate::browser::Modifier::Shift]);
        assert_eq!(
            call.aimed().unwrap(),
            Some(TargetRef::Nth(
                crate::anchor::AnchorRef::parse("row.delete").unwrap(),
                1
            ))
        );
        let plain = Call::parse(
            "invoke",
            serde_json::json!({"anchor": "a.b", "button": "left"}),
        );
        let Ok(Call::Invoke(plain)) = plain else {
            panic!("a left click parses")
        };
        assert!(plain.click().is_none(), "a plain click is invoke's own");
        let err = Call::parse(
            "invoke",
            serde_json::json!({"anchor": "a.b", "button": "side"}),
        )
        .unwrap_err();
        assert!(err.contains("unknown variant `side`"), "{err}");
        let press = Call::parse("press", serde_json::json!({"key_name": "Shift+Tab"})).unwrap();
        assert_eq!(press.aimed().unwrap(), Some(TargetRef::Focused));
        assert_eq!(press.target(), None);
        let err = Call::parse("hover", serde_json::json!({"x": 1.0, "y": 2.0})).unwrap_err();
        assert!(err.contains("unknown field `x`"), "{err}");
    }

    /// `tools.schema.json` is what the argument types say; `WAYMARK_UPDATE_SCHEMA=1`
    /// rewrites it after a change to them.
    #[test]
    fn the_checked_in_tools_schema_is_the_one_the_verbs_generate() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools.schema.json");
        let generated = tools_schema();
        if std::env::var_os("WAYMARK_UPDATE_SCHEMA").is_some() {
            std::fs::write(&path, &generated).expect("write tools.schema.json");
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "tools.schema.json is stale: run `WAYMARK_UPDATE_SCHEMA=1 cargo test --lib schema`"
        );
        let doc: serde_json::Value = serde_json::from_str(&generated).unwrap();
        assert_eq!(doc["tools"].as_object().unwrap().len(), Verb::ALL.len());
        let invoke = &doc["tools"]["invoke"]["arguments"];
        assert_eq!(invoke["required"], serde_json::json!(["anchor"]));
        assert!(invoke["properties"].get("node").is_none(), "{invoke}");
    }

    #[test]
    fn every_verb_has_one_row_and_names_that_find_it() {
        for verb in Verb::ALL {
            assert_eq!(Verb::of_tool(verb.tool()), Some(*verb));
        }
        let acting: Vec<&str> = Verb::ALL
            .iter()
            .filter(|v| v.acts())
            .map(|v| v.tool())
            .collect();
        assert_eq!(
            acting,
            [
                "invoke",
                "press",
                "fill",
                "drag",
                "upload",
                "close_tab",
                "on_dialog",
                "route",
                "unroute",
                "request",
                "set_offline",
                "set_network",
                "http_credentials",
                "set_headers",
                "set_geolocation",
                "grant_permissions",
                "clock_install",
                "clock_set",
                "clock_advance",
                "clock_pause",
                "clock_resume",
                "handoff"
            ]
        );
    }
}

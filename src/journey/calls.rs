//! The journey API's tool functions, one per [`Verb`] the surface offers, derived from the
//! one list (`tools::verbs`): each Rhai form of a verb names its positional arguments,
//! which become the verb's argument map (a map argument is merged in whole), read with
//! serde into a [`Call`] and performed through the [`Gateway`] under the journey's
//! deadline. What a journey gets back is the round trip, except where the API says
//! otherwise ([`returned`]).
//!
//! | function | forms |
//! |---|---|
//! | `navigate` | `(route)` |
//! | `read_screen` | `()`, `(#{budget, region, nodes})` — returns the screen |
//! | `invoke` | `(anchor)`, `(anchor, key)`, `(#{node})` or `(#{x, y})` or `(#{anchor, nth})`; `(anchor, #{button, clicks, modifiers})`, `(anchor, key, #{…})`, or the target map with them |
//! | `press` | `(anchor, key_name)`, `(#{node} or #{x, y} or #{anchor, nth}, key_name)`, `(key_name)` — on the focused element; a chord `Control+A` |
//! | `fill` | `(anchor, text)`, `(#{node} or #{x, y}, text)` |
//! | `wait_for` | `(anchor)`, `(#{anchor, key, nth, text, route, gone, enabled, timeout_ms, request, response, method, status})` |
//! | `hover` | `(anchor)`, `(anchor, key)`, `(#{node} or #{x, y} or #{anchor, nth})` |
//! | `move_pointer` | `(#{x, y})` — viewport coordinates; outside it, out of the page |
//! | `scroll` | `(#{x, y})` — by that much |
//! | `scroll_to` | `(anchor)`, `(anchor, key)`, `(#{anchor, key, nth})` |
//! | `drag` | `(from, to)`, `(#{from, to, from_nth, to_nth})` |
//! | `upload` | `(anchor, path)`, `(#{anchor, nth}, path)` — a file of the journey's `fixtures/` folder |
//! | `tabs` | `()` — returns the tabs (`#{tab, route, title, current, opener}`) |
//! | `switch_tab` | `(tab)` |
//! | `close_tab` | `()`, `(tab)` |
//! | `on_dialog` | `("accept" or "dismiss")`, `(#{action, text})` |
//! | `route` | `(pattern, #{method, status, body, json, headers, content_type, delay_ms})`, `(pattern, #{abort})`, `(pattern, #{"continue": #{headers}})` |
//! | `unroute` | `(pattern)` |
//! | `request` | `(#{method, route, json, form, headers})` — returns `#{status, headers, json}` or `#{status, headers, text}` |
//! | `set_offline` | `(offline)` |
//! | `set_network` | `(#{latency_ms, download_kbps, upload_kbps})` |
//! | `clock_install` | `()`, `(#{time})` — `time`: ISO-8601 or epoch ms |
//! | `clock_set` | `(time)` |
//! | `clock_advance` | `(ms)` |
//! | `clock_pause` | `()` |
//! | `clock_resume` | `()` |
//! | `handoff` | `(reason)` — returns `#{finished, route}` |

use std::any::TypeId;

use rhai::{Dynamic, Engine, EvalAltResult};

use super::deadline::Blocker;
use super::engine::{fail_map, round_trip, thrown};
use crate::browser::Tab;
use crate::protocol::ErrorCode;
use crate::tools::{Call, Gateway, RoundTrip, Verb};

/// One positional argument of a Rhai form.
#[derive(Debug, Clone, Copy)]
enum Param {
    /// A string, the argument of that name.
    Text(&'static str),
    /// An integer, the argument of that name.
    Number(&'static str),
    /// Any value, the argument of that name (a key: `1042` or `"1042"`).
    Any(&'static str),
    /// A boolean, the argument of that name.
    Flag(&'static str),
    /// A map, merged into the arguments.
    Map,
}

impl Param {
    fn type_id(self) -> TypeId {
        match self {
            Param::Text(_) => TypeId::of::<rhai::ImmutableString>(),
            Param::Number(_) => TypeId::of::<rhai::INT>(),
            Param::Any(_) => TypeId::of::<Dynamic>(),
            Param::Flag(_) => TypeId::of::<bool>(),
            Param::Map => TypeId::of::<rhai::Map>(),
        }
    }
}

/// The Rhai forms of `verb`. `finish` has none: a journey ends where its script does.
fn forms(verb: Verb) -> &'static [&'static [Param]] {
    use Param::{Any, Flag, Map, Number, Text};
    match verb {
        Verb::Navigate => &[&[Text("route")]],
        Verb::Read => &[&[], &[Map]],
        Verb::Invoke => &[
            &[Text("anchor")],
            &[Text("anchor"), Any("key")],
            &[Map],
            &[Text("anchor"), Map],
            &[Text("anchor"), Any("key"), Map],
        ],
        Verb::Press => &[
            &[Text("anchor"), Text("key_name")],
            &[Map, Text("key_name")],
            &[Text("key_name")],
        ],
        Verb::Fill => &[&[Text("anchor"), Text("text")], &[Map, Text("text")]],
        Verb::WaitFor => &[&[Text("anchor")], &[Map]],
        Verb::Hover => &[&[Text("anchor")], &[Text("anchor"), Any("key")], &[Map]],
        Verb::MovePointer => &[&[Map]],
        Verb::Scroll => &[&[Map]],
        Verb::ScrollTo => &[&[Text("anchor")], &[Text("anchor"), Any("key")], &[Map]],
        Verb::Drag => &[&[Text("from"), Text("to")], &[Map]],
        Verb::Upload => &[&[Text("anchor"), Text("path")], &[Map, Text("path")]],
        Verb::Tabs => &[&[]],
        Verb::SwitchTab => &[&[Number("tab")]],
        Verb::CloseTab => &[&[], &[Number("tab")]],
        Verb::OnDialog => &[&[Text("action")], &[Map]],
        Verb::Route => &[&[Text("pattern"), Map]],
        Verb::Unroute => &[&[Text("pattern")]],
        Verb::Request => &[&[Map]],
        Verb::SetOffline => &[&[Flag("offline")]],
        Verb::SetNetwork => &[&[Map]],
        Verb::HttpCredentials => &[&[Text("user"), Text("pass")]],
        Verb::SetHeaders => &[&[Any("headers")]],
        Verb::SetGeolocation => &[&[Map]],
        Verb::GrantPermissions => &[&[Any("permissions")]],
        Verb::ClockInstall => &[&[], &[Map]],
        Verb::ClockSet => &[&[Any("time")]],
        Verb::ClockAdvance => &[&[Number("ms")]],
        Verb::ClockPause => &[&[]],
        Verb::ClockResume => &[&[]],
        Verb::Handoff => &[&[Text("reason")]],
        Verb::Finish => &[],
    }
}

/// Registers every form of every verb `gateway` offers (a read-only surface offers no
/// acting verb: calling one is then refused in words, see `engine::read_only_refusal`).
pub(super) fn register_calls<T: Tab + 'static>(
    engine: &mut Engine,
    gateway: &Gateway<T>,
    blocker: &Blocker<T>,
) {
    for &verb in Verb::ALL {
        if !gateway.offers(verb) {
            continue;
        }
        for &form in forms(verb) {
            let types: Vec<TypeId> = form.iter().map(|p| p.type_id()).collect();
            let blocker = blocker.clone();
            engine.register_raw_fn(
                verb.tool(),
                types,
                move |_, args| -> Result<Dynamic, Box<EvalAltResult>> {
                    let call = Call::from_rhai(verb, arguments(form, args))
                        .map_err(|e| fail_map(ErrorCode::InvalidArgument, &e))?;
                    // A handoff waits for the person, as long as its own timeout allows.
                    let rt = match verb {
                        Verb::Handoff => blocker.unbounded(&call),
                        _ => blocker.on(&call),
                    };
                    returned(verb, rt)
                },
            );
        }
    }
}

/// The argument map of one call of `form`: positional arguments by name, a map merged in;
/// a key given as a number is its text, a coordinate given as an integer a float.
fn arguments(form: &[Param], args: &mut [&mut Dynamic]) -> rhai::Map {
    let mut map = rhai::Map::new();
    for (param, value) in form.iter().zip(args.iter()) {
        match param {
            Param::Text(name) | Param::Number(name) | Param::Any(name) | Param::Flag(name) => {
                map.insert((*name).into(), (**value).clone());
            }
            Param::Map => {
                if let Some(given) = (**value).clone().try_cast::<rhai::Map>() {
                    map.extend(given);
                }
            }
        }
    }
    if let Some(key) = map.get_mut("key")
        && !key.is_string()
        && !key.is_unit()
    {
        *key = key.to_string().into();
    }
    // A coordinate, a latency or a bandwidth written as an integer is that float.
    for axis in ["x", "y", "latency_ms", "download_kbps", "upload_kbps"] {
        if let Some(v) = map.get_mut(axis)
            && let Ok(i) = v.as_int()
        {
            *v = Dynamic::from_float(i as rhai::FLOAT);
        }
    }
    map
}

/// What a journey gets back from `verb`: `read_screen` the screen, `tabs` the tabs,
/// `handoff` `#{finished, route}`, the others the round trip; a failure throws its error.
fn returned(verb: Verb, rt: RoundTrip) -> Result<Dynamic, Box<EvalAltResult>> {
    match verb {
        Verb::Read => match (rt.ok, rt.screen) {
            (true, Some(screen)) => rhai::serde::to_dynamic(&screen),
            _ => Err(thrown(&rt.error)),
        },
        Verb::Tabs => {
            let tabs = rt.tabs.clone().unwrap_or_default();
            let _ = round_trip(rt)?;
            rhai::serde::to_dynamic(tabs)
        }
        Verb::Request => {
            let response = rt.response.clone();
            let _ = round_trip(rt)?;
            rhai::serde::to_dynamic(response)
        }
        Verb::Handoff => {
            if !rt.ok {
                return Err(thrown(&rt.error));
            }
            let mut map = rhai::Map::new();
            map.insert("finished".into(), true.into());
            map.insert("route".into(), rt.route.clone().into());
            Ok(Dynamic::from(map))
        }
        _ => round_trip(rt),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_into_its_verb() {
        for &verb in Verb::ALL {
            for &form in forms(verb) {
                let mut values: Vec<Dynamic> = form
                    .iter()
                    .map(|p| match p {
                        // `on_dialog`'s action is one of two words.
                        Param::Text("action") => Dynamic::from("dismiss"),
                        Param::Text(_) => Dynamic::from("a.b"),
                        Param::Number(_) => Dynamic::from(1_i64),
                        Param::Any(_) => Dynamic::from(1042_i64),
                        Param::Flag(_) => Dynamic::from(true),
                        Param::Map => Dynamic::from(rhai::Map::new()),
                    })
                    .collect();
                let mut args: Vec<&mut Dynamic> = values.iter_mut().collect();
                let map = arguments(form, &mut args);
                let empty_target = form.first().is_some_and(|p| matches!(p, Param::Map))
                    && matches!(verb, Verb::Invoke | Verb::Press | Verb::Fill | Verb::Hover);
                match Call::from_rhai(verb, map) {
                    Ok(call) => assert_eq!(call.verb(), verb),
                    // An empty target map names nothing: refused, as a journey is told.
                    Err(e) if empty_target => assert!(e.contains("a target is"), "{e}"),
                    // A request names its route inside its map: an empty one names none.
                    Err(e) if verb == Verb::Request => {
                        assert!(e.contains("missing field `route`"), "{e}");
                    }
                    // These name their target, or their point, inside their map.
                    Err(e)
                        if matches!(
                            verb,
                            Verb::Upload | Verb::ScrollTo | Verb::MovePointer | Verb::Drag
                        ) =>
                    {
                        assert!(e.contains("missing field"), "{e}");
                    }
                    // So does a place: an empty map names none.
                    Err(e) if verb == Verb::SetGeolocation => {
                        assert!(e.contains("missing field `latitude`"), "{e}");
                    }
                    // Headers are a map, permissions a list: a number is neither.
                    Err(e) if matches!(verb, Verb::SetHeaders | Verb::GrantPermissions) => {
                        assert!(e.contains("Output type incorrect"), "{e}");
                    }
                    Err(e) => panic!("{verb:?} {form:?}: {e}"),
                }
            }
        }
    }

    #[test]
    fn a_numeric_key_is_its_text_and_integer_coordinates_are_floats() {
        let mut values = [Dynamic::from("claims.open"), Dynamic::from(1042_i64)];
        let mut args: Vec<&mut Dynamic> = values.iter_mut().collect();
        let map = arguments(&[Param::Text("anchor"), Param::Any("key")], &mut args);
        assert_eq!(map["key"].to_string(), "1042");
        let call = Call::from_rhai(Verb::Invoke, map).unwrap();
        assert_eq!(call.target().as_deref(), Some("claims.open[1042]"));
        let mut point = rhai::Map::new();
        point.insert("x".into(), Dynamic::from(120_i64));
        point.insert("y".into(), Dynamic::from(340_i64));
        let mut values = [Dynamic::from(point)];
        let mut args: Vec<&mut Dynamic> = values.iter_mut().collect();
        let call = Call::from_rhai(Verb::Invoke, arguments(&[Param::Map], &mut args)).unwrap();
        assert_eq!(
            call.aimed().unwrap(),
            Some(crate::tools::TargetRef::Point { x: 120.0, y: 340.0 })
        );
    }
}

//! `waymark suggest ROUTE`: reads a screen and prints registry entries for its controls
//! without an anchor, each matcher checked unique on that page (see [`crate::suggest`]).

use crate::exit::Exit;
use crate::registry::Registry;
use crate::screen::View;
use crate::session::{Open, RunError, Session};
use crate::settings::Settings;
use crate::suggest::{candidate_registry, candidates, choose, render};

/// Reads `route`, proposes entries, prints them; the exit code (1 when the read failed).
pub async fn suggest(route: &str, settings: &Settings) -> Result<Exit, RunError> {
    let session = Session::builder(settings)?.ungated().start().await?;
    session.browser().await?;
    let surface = match session.open(Open::script("suggest")).await {
        Ok(surface) => surface,
        Err(e) => {
            session.close().await;
            return Err(e.into());
        }
    };
    let code = propose(route, &surface.backstage()).await;
    surface.close().await;
    session.close().await;
    Ok(code)
}

async fn propose<T: crate::browser::Tab>(route: &str, tools: &crate::tools::Backstage<T>) -> Exit {
    let fail = |what: &str, e: &crate::tools::ToolError| {
        eprintln!("error: {what}: {}: {}", e.code, e.message);
        Exit::Failed
    };
    let rt = tools.navigate(route).await;
    if let Some(e) = &rt.error {
        return fail(&format!("cannot read {route}"), e);
    }
    let rt = tools
        .read_screen_with(View {
            nodes: true,
            ..View::default()
        })
        .await;
    let screen = match (&rt.error, &rt.screen) {
        (None, Some(screen)) => screen.clone(),
        (Some(e), _) => return fail(&format!("cannot read {route}"), e),
        (None, None) => return Exit::Failed,
    };
    let nodes = screen.nodes.clone().unwrap_or_default();
    if screen.nodes_total.unwrap_or(0) > nodes.len() {
        eprintln!(
            "note: {} controls without an anchor; proposing for the first {}",
            screen.nodes_total.unwrap_or(0),
            nodes.len()
        );
    }
    let ids: Vec<u64> = nodes.iter().map(|n| n.node).collect();
    let facts = match tools.describe_nodes(&ids).await {
        Ok(facts) => facts,
        Err(e) => return fail("cannot describe the controls", &e),
    };
    let described: Vec<_> = nodes
        .into_iter()
        .zip(facts)
        .filter_map(|(node, facts)| {
            let facts = facts?;
            let list = candidates(&node, &facts);
            Some((node, facts, list))
        })
        .collect();
    let tid = tools.registry().test_id_attribute().to_string();
    let yaml = candidate_registry(&described, &tid);
    let found = match Registry::parse(&yaml, "(candidates)") {
        Ok(registry) => match registry.matchers() {
            Some(m) => match tools.count_matches(m).await {
                Ok(found) => found,
                Err(e) => return fail("cannot try the matchers", &e),
            },
            None => Default::default(),
        },
        Err(e) => {
            eprintln!("error: a candidate matcher is invalid (a bug): {e}");
            return Exit::Failed;
        }
    };
    let (chosen, unmatched) = choose(&described, &found);
    let url = tools
        .base()
        .join(route)
        .map(|u| u.to_string())
        .unwrap_or_default();
    // Without a registry the report is a whole one, named after the app's host.
    let app = tools
        .registry()
        .app()
        .is_empty()
        .then(|| tools.base().host_str().unwrap_or("app").to_string());
    crate::out::out!(
        "{}",
        render(
            route,
            &url,
            app.as_deref(),
            screen.screen.as_deref(),
            &chosen,
            &unmatched
        )
    );
    Exit::Passed
}

//! `waymark check [--against URL] [--json]`: the registry's promises checked on a build of
//! the app, and on a second one compared with it (see [`crate::check`]).

use std::path::PathBuf;

use serde::Serialize;
use serde_json::json;

use crate::check::{self, BuildCheck, Diff, changes, compare, coverage, table, usage};
use crate::exit::Exit;
use crate::session::{RunError, Session};
use crate::settings::Settings;

/// The report as `--json` prints it.
#[derive(Serialize)]
struct Report<'a> {
    base: &'a BuildCheck,
    against: Option<&'a BuildCheck>,
    changes: Option<&'a Diff>,
    coverage: serde_json::Value,
    against_coverage: Option<String>,
    used_by: &'a std::collections::BTreeMap<String, Vec<String>>,
}

/// Checks the app at `--base-url` (and the build at `--against`); the exit code.
pub async fn check(
    settings: &Settings,
    json: bool,
    journeys: &[PathBuf],
) -> Result<Exit, RunError> {
    let builder = Session::builder(settings)?;
    let registry = builder.registry().clone();
    if registry.screens().is_empty() {
        eprintln!(
            "error: the registry declares no screens: `waymark check` visits the screens \
             anchors.yaml (or `--anchors FILE`) declares"
        );
        return Ok(Exit::BadInput);
    }
    let paths = match journeys {
        [] => vec![PathBuf::from("journeys")],
        given => given.to_vec(),
    };
    let used_by = usage::scan(&paths, &registry);
    let base = visit(builder.start().await?, &registry).await?;
    let other = match &settings.against {
        Some(url) => {
            // The second build's session: the same settings, at its URL.
            let settings = Settings {
                base_url: Some(url.clone()),
                ..settings.clone()
            };
            let session = Session::builder(&settings)?.start().await?;
            Some(visit(session, &registry).await?)
        }
        None => None,
    };
    let diff = other.as_ref().map(|o| compare(&base, o, &used_by));
    let declared = registry.anchors().len();
    // One coverage line per build checked, the same in both outputs.
    let found = coverage(&base, declared, &used_by);
    let against_found = other.as_ref().map(|o| coverage(o, declared, &used_by));
    if json {
        let report = Report {
            base: &base,
            against: other.as_ref(),
            changes: diff.as_ref(),
            coverage: json!({"line": found.trim_end(), "declared": declared,
                             "used_by_journeys": used_by.len()}),
            against_coverage: against_found.map(|line| line.trim_end().to_string()),
            used_by: &used_by,
        };
        match serde_json::to_string_pretty(&report) {
            Ok(text) => crate::out::outln!("{text}"),
            Err(e) => eprintln!("error: cannot print the report as JSON: {e}"),
        }
    } else {
        crate::out::out!("{}", table(&base));
        if let (Some(other), Some(diff)) = (&other, &diff) {
            crate::out::out!("{}", table(other));
            crate::out::out!("{}", changes(diff, &base.base, &other.base));
        }
        crate::out::out!("{found}");
        if let Some(line) = &against_found {
            crate::out::out!("against {line}");
        }
    }
    let broken = base.broken().len() + other.as_ref().map_or(0, |o| o.broken().len());
    Ok(if broken > 0 {
        Exit::Failed
    } else {
        Exit::Passed
    })
}

/// Every declared screen of one build, visited in one browser.
async fn visit(
    session: Session,
    registry: &crate::registry::Registry,
) -> Result<BuildCheck, RunError> {
    let collected = check::collect(&session, registry).await;
    session.close().await;
    Ok(collected?)
}

//! `waymark read ROUTE`: one screen read, printed as a table for a person or as the
//! inferred state in JSON. With `--audit` it is also a check: the perception audit's
//! faults and suppressions follow the read, and any of them makes the exit code 1.

use std::io::Write as _;

use crate::exit::Exit;
use crate::read::{Audited, findings, table};
use crate::screen::View;
use crate::session::{Open, RunError, Session};
use crate::settings::Settings;

/// Navigates to `route`, reads it (only `region`, when given), prints it; returns the exit
/// code.
pub async fn read(
    route: &str,
    settings: &Settings,
    json: bool,
    region: Option<&str>,
) -> Result<Exit, RunError> {
    // One read, gated by nothing: no guardrail, no control page, nobody to take the tab.
    let session = Session::builder(settings)?.ungated().start().await?;
    session.browser().await?;
    let surface = match session.open(Open::script("read")).await {
        Ok(surface) => surface,
        Err(e) => {
            session.close().await;
            return Err(e.into());
        }
    };
    let tools = surface.backstage();
    let mut rt = tools.navigate(route).await;
    if let (true, Some(region)) = (rt.ok, region) {
        rt = tools
            .read_screen_with(View {
                budget: settings.tools.budget,
                region: Some(region.to_string()),
                ..View::default()
            })
            .await;
    }
    let code = match (&rt.error, &rt.screen) {
        (None, Some(screen)) => {
            // `navigate` already read the screen (a region read follows it); `elapsed_ms`
            // is that read's own cost.
            let audit = tools.last_audit();
            if json {
                // Written as it is serialized: a 50,000-control screen is some 14 MB of JSON,
                // which as one string was the read's largest allocation.
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                let printed = match &audit {
                    Some(audit) => {
                        serde_json::to_writer_pretty(&mut out, &Audited { screen, audit })
                    }
                    None => serde_json::to_writer_pretty(&mut out, screen),
                }
                .map_err(std::io::Error::from)
                .and_then(|()| {
                    writeln!(out)?;
                    out.flush()
                });
                if let Err(e) = printed {
                    eprintln!("error: cannot print the screen as JSON: {e}");
                }
            } else {
                crate::out::out!("{}", table(screen));
                if let Some(audit) = &audit {
                    crate::out::out!("{}", findings(audit));
                }
            }
            match audit {
                Some(audit) if !audit.is_clean() => Exit::Failed,
                _ => Exit::Passed,
            }
        }
        (Some(error), _) => {
            if json && let Ok(text) = serde_json::to_string_pretty(&rt) {
                crate::out::outln!("{text}");
            }
            eprintln!("error: {}: {}", error.code, error.message);
            Exit::Failed
        }
        (None, None) => Exit::Failed,
    };
    surface.close().await;
    session.close().await;
    Ok(code)
}

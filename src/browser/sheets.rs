//! What the style sheets of another origin hold, from the browser's own copies of their
//! text (see [`Tab::style_sheet_facts`](super::Tab::style_sheet_facts)).

use chromiumoxide::cdp::browser_protocol::network::{GetResponseBodyParams, RequestId};
use chromiumoxide::cdp::browser_protocol::page::CreateIsolatedWorldParams;
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;

use super::chromium::ChromiumTab;
use super::commands::Commands;
use super::commands::evaluate_in;
use super::convert::base64_decode;

/// [`Tab::style_sheet_facts`](super::Tab::style_sheet_facts) of a Chromium tab.
pub(super) fn facts(
    tab: &ChromiumTab,
    urls: &[String],
    program: impl FnOnce(&[(String, String)]) -> String + Send + 'static,
) -> impl Future<Output = Option<String>> + Send + 'static {
    let requests: Vec<(String, Option<RequestId>)> = match tab.sheets.lock() {
        Ok(sheets) => urls
            .iter()
            .map(|u| (u.clone(), sheets.get(u).cloned()))
            .collect(),
        Err(_) => Vec::new(),
    };
    let (page, timeout, frame) = (tab.page.clone(), tab.timeout, tab.main_frame.clone());
    async move {
        // The bodies, asked for together; a sheet the browser holds none of is left out.
        let bodies = requests.into_iter().map(|(url, request)| {
            let page = page.clone();
            async move {
                let params = GetResponseBodyParams::new(request?);
                let reply = page
                    .command(timeout, "a style sheet's text", params)
                    .await
                    .ok()?;
                let text = if reply.result.base64_encoded {
                    String::from_utf8(base64_decode(&reply.result.body)?).ok()?
                } else {
                    reply.result.body.clone()
                };
                Some((url, text))
            }
        });
        let texts: Vec<(String, String)> = futures::future::join_all(bodies)
            .await
            .into_iter()
            .flatten()
            .collect();
        if texts.is_empty() {
            return None;
        }
        let world = CreateIsolatedWorldParams::builder()
            .frame_id(frame?)
            .world_name("waymark-sheets")
            .build()
            .ok()?;
        let world = page
            .command(timeout, "a world for style sheets", world)
            .await
            .ok()?;
        let mut params = EvaluateParams::new(program(&texts));
        params.context_id = Some(world.result.execution_context_id);
        params.return_by_value = Some(true);
        evaluate_in(&page, params, timeout).await.ok()
    }
}

//! The tab's signed-in state, for `waymark state save`: the browser context's cookies and
//! the storage of the document's origin. For a person's command only: no journey or agent
//! reaches it, and nothing of it is traced.

use serde::Deserialize;

use super::{Tools, browser_error, capture_error};
use crate::browser::Tab;
use crate::control::cookies::state::{OriginStorage, StorageState};
use crate::tools::ToolError;

/// What the page tells of its storage.
#[derive(Deserialize)]
struct PageStorage {
    origin: String,
    local: Vec<(String, String)>,
    session: Vec<(String, String)>,
}

/// Reads both storages of the document's origin (less the mark a restored state leaves).
const READ_STORAGE: &str = "(function () { \
    function all(s) { var out = []; for (var i = 0; i < s.length; i++) { var k = s.key(i); \
      if (k !== 'waymark:state') out.push([k, s.getItem(k)]); } return out; } \
    return JSON.stringify({origin: location.origin, local: all(localStorage), \
      session: all(sessionStorage)}); })()";

impl<T: Tab> Tools<T> {
    /// The cookies of the tab's browser context and the storage of the page's origin.
    pub async fn storage_state(&self) -> Result<StorageState, ToolError> {
        let cookies = self.here().tab.cookies().await.map_err(browser_error)?;
        let text = self
            .here()
            .tab
            .evaluate(READ_STORAGE, self.options.script_timeout)
            .await
            .map_err(browser_error)?;
        let page: PageStorage = serde_json::from_str(&text)
            .map_err(|e| capture_error(format!("the page's storage did not read: {e}")))?;
        let origins = if page.origin == "null" {
            Vec::new()
        } else {
            vec![OriginStorage {
                origin: page.origin,
                local: page.local,
                session: page.session,
            }]
        };
        Ok(StorageState { cookies, origins })
    }
}

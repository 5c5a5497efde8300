//! Asking the person through the MCP client: a consent question becomes an elicitation
//! (a form with one yes/no field) when the client declared it can show one. A client that
//! cannot, or a protocol that forbids the server to ask, leaves the question to the next
//! way of asking — and, failing all, to `consent_unavailable`. During a handoff the
//! person can also say through the client that they are done.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    BooleanSchema, ElicitRequestParams, ElicitationAction, ElicitationSchema,
    PrimitiveSchemaDefinition,
};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};

use crate::control::{Answer, Asker};

/// Who answered, in the consent verdict.
const BY: &str = "MCP client";

/// The field of the form: ticked (the default) is yes.
const FIELD: &str = "approve";

/// An asker that puts questions to the client in `slot` (the one that made the call).
pub fn asker(slot: Arc<Mutex<Option<Peer<RoleServer>>>>) -> Asker {
    Arc::new(move |question: String| {
        let peer = slot.lock().ok().and_then(|p| p.clone());
        Box::pin(async move {
            match peer {
                Some(peer) => confirm(&peer, question).await,
                None => Answer::Unavailable("no MCP client is connected".to_string()),
            }
        })
    })
}

/// Whether `peer` declared it can show a form question.
pub fn can_ask(peer: &Peer<RoleServer>) -> bool {
    peer.supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
}

/// A form of one yes/no field, ticked by default.
fn yes_no(title: &'static str, description: &'static str) -> ElicitationSchema {
    let field = BooleanSchema::new()
        .title(title)
        .description(description)
        .with_default(true);
    ElicitationSchema::new(BTreeMap::from([(
        FIELD.to_string(),
        PrimitiveSchemaDefinition::Boolean(field),
    )]))
}

/// Whether the person accepted `message` (and did not untick the field).
async fn accepted(
    peer: &Peer<RoleServer>,
    message: String,
    schema: ElicitationSchema,
) -> Result<bool, String> {
    let result = peer
        .create_elicitation(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: schema,
        })
        .await
        .map_err(|e| e.to_string())?;
    Ok(result.action == ElicitationAction::Accept
        && result
            .content
            .as_ref()
            .and_then(|c| c.get(FIELD))
            .and_then(|v| v.as_bool())
            != Some(false))
}

/// Asks the person, during a handoff, to say when they have finished `reason` in the
/// browser; true when they accepted.
pub async fn done(peer: &Peer<RoleServer>, reason: &str) -> bool {
    let message = format!(
        "The agent handed you the browser tab to {reason}. Finish it in the browser window, \
         then accept here. Nothing you type there is shown to the agent."
    );
    accepted(
        peer,
        message,
        yes_no("Done", "I have finished in the browser"),
    )
    .await
    .unwrap_or(false)
}

/// Asks `question` through `peer`'s elicitation. Accept is yes unless the field was
/// unticked; decline and cancel are no.
async fn confirm(peer: &Peer<RoleServer>, question: String) -> Answer {
    if !can_ask(peer) {
        return Answer::Unavailable(
            "the MCP client cannot show a question (it declared no elicitation support)"
                .to_string(),
        );
    }
    match accepted(peer, question, yes_no("Allow", "Allow this action")).await {
        Ok(true) => Answer::Approved(BY),
        Ok(false) => Answer::Denied(BY),
        Err(e) => Answer::Unavailable(format!("the MCP client could not be asked: {e}")),
    }
}

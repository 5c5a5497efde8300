//! Asking the person through the MCP client: a consent question becomes an elicitation
//! (a form with one yes/no field) when the client declared it can show one. A client that
//! cannot, or a protocol that forbids the server to ask, leaves the question to the next
//! way of asking — and, failing all, to `consent_unavailable`.

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

/// Asks `question` through `peer`'s elicitation. Accept is yes unless the field was
/// unticked; decline and cancel are no.
async fn confirm(peer: &Peer<RoleServer>, question: String) -> Answer {
    if !peer
        .supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
    {
        return Answer::Unavailable(
            "the MCP client cannot show a question (it declared no elicitation support)"
                .to_string(),
        );
    }
    let field = BooleanSchema::new()
        .title("Allow")
        .description("Allow this action")
        .with_default(true);
    let schema = ElicitationSchema::new(BTreeMap::from([(
        FIELD.to_string(),
        PrimitiveSchemaDefinition::Boolean(field),
    )]));
    let asked = peer
        .create_elicitation(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: question,
            requested_schema: schema,
        })
        .await;
    match asked {
        Ok(result) => match result.action {
            ElicitationAction::Accept
                if result
                    .content
                    .as_ref()
                    .and_then(|c| c.get(FIELD))
                    .and_then(|v| v.as_bool())
                    != Some(false) =>
            {
                Answer::Approved(BY)
            }
            _ => Answer::Denied(BY),
        },
        Err(e) => Answer::Unavailable(format!("the MCP client could not be asked: {e}")),
    }
}

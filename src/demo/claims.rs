//! The claims screens: the filterable list, the claim detail with its note, the approve
//! and reject actions, and the modal that confirms a rejection. The redesign rebuilds the
//! detail's actions (see [`detail`]).

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::Layout;
use super::chrome::{MODAL_JS, Nav, Notice, esc, html, money, not_found, page, see_other};
use super::state::{AppState, Claim, ClaimStatus};

const FILTER_JS: &str = r#"<script>
(function () {
  var text = document.getElementById('claims-filter');
  var status = document.getElementById('claims-status');
  function apply() {
    var q = text.value.trim().toLowerCase();
    var s = status.value;
    document.querySelectorAll('#claims-table tbody tr').forEach(function (row) {
      var okText = !q || row.textContent.toLowerCase().indexOf(q) >= 0;
      var okStatus = !s || row.getAttribute('data-status') === s;
      row.hidden = !(okText && okStatus);
    });
  }
  text.addEventListener('input', apply);
  status.addEventListener('change', apply);
})();
</script>"#;

fn status_badge(status: ClaimStatus) -> String {
    format!(
        "<span class=\"badge {}\">{}</span>",
        status.label().to_lowercase(),
        status.label()
    )
}

/// `GET /claims` (claims-list).
pub(crate) async fn list(State(state): State<AppState>, Query(notice): Query<Notice>) -> Response {
    let store = state.lock();
    let mut rows = String::new();
    for c in &store.claims {
        rows.push_str(&format!(
            "<tr data-status=\"{status}\">\
             <td><a href=\"/claims/{id}\" data-anchor=\"claims.open\" data-anchor-key=\"{id}\">\
             Claim {id}</a></td>\
             <td>{claimant}</td><td>{policy}</td><td class=\"num\">EUR {amount}</td>\
             <td>{filed}</td><td>{badge}</td></tr>\n",
            id = c.id,
            status = c.status.label(),
            claimant = esc(&c.claimant),
            policy = esc(&c.policy),
            amount = money(c.amount_cents),
            filed = c.filed,
            badge = status_badge(c.status),
        ));
    }
    let open = store
        .claims
        .iter()
        .filter(|c| c.status == ClaimStatus::Open)
        .count();
    let body = format!(
        "<h1>Claims</h1>\n{notices}\
         <p class=\"muted\">{open} of {total} claims are waiting for review.</p>\n\
         <div class=\"card row\" data-anchor-region=\"filters\" role=\"search\">\n\
         <div class=\"field\"><input type=\"text\" id=\"claims-filter\" \
         placeholder=\"Search claims\" data-anchor=\"claims.filter\"></div>\n\
         <div class=\"field\"><label for=\"claims-status\">Status</label>\
         <select id=\"claims-status\" data-anchor=\"claims.status-filter\">\
         <option value=\"\">All</option><option>Open</option><option>Approved</option>\
         <option>Rejected</option></select></div>\n\
         </div>\n\
         <section data-anchor-region=\"claims\" aria-label=\"Claims\">\n\
         <table id=\"claims-table\">\n<thead><tr><th>Claim</th><th>Claimant</th><th>Policy</th>\
         <th class=\"num\">Amount</th><th>Filed</th><th>Status</th></tr></thead>\n\
         <tbody>\n{rows}</tbody>\n</table>\n</section>\n{FILTER_JS}\n",
        notices = notice.html(),
        total = store.claims.len(),
    );
    html(page(state.layout, "Claims", Nav::Claims, &body))
}

fn find(claims: &[Claim], id: &str) -> Option<usize> {
    let id: u32 = id.parse().ok()?;
    claims.iter().position(|c| c.id == id)
}

/// `GET /claims/{id}` (claim-detail).
pub(crate) async fn detail(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(notice): Query<Notice>,
) -> Response {
    let store = state.lock();
    let Some(at) = find(&store.claims, &id) else {
        return not_found(state.layout);
    };
    let c = &store.claims[at];
    let id = c.id;
    let closed = if c.status == ClaimStatus::Open {
        ""
    } else {
        " disabled"
    };
    let reason = if c.reject_reason.is_empty() {
        String::new()
    } else {
        format!(
            "<dt>Rejection reason</dt><dd>{}</dd>",
            esc(&c.reject_reason)
        )
    };
    let summary = format!(
        "<section class=\"card\" aria-label=\"Summary\">\n<dl class=\"summary\">\
         <dt>Claimant</dt><dd>{claimant}</dd><dt>Policy</dt><dd>{policy}</dd>\
         <dt>Amount</dt><dd>EUR {amount}</dd><dt>Filed</dt><dd>{filed}</dd>\
         <dt>Status</dt><dd>{status}</dd>{reason}</dl>\n</section>\n",
        claimant = esc(&c.claimant),
        policy = esc(&c.policy),
        amount = money(c.amount_cents),
        filed = c.filed,
        status = status_badge(c.status),
    );
    let note = format!(
        "<div class=\"card field\" data-anchor-region=\"note\">\
         <label for=\"claim-note\">Note</label>\
         <textarea id=\"claim-note\" name=\"note\" rows=\"4\" data-anchor=\"claim.note\">\
         {}</textarea></div>\n",
        esc(&c.note)
    );
    let notices = notice.html();
    let dialog = reject_dialog(id);
    let body = match state.layout {
        Layout::Classic => format!(
            "<h1>Claim {id}</h1>\n{notices}{summary}\
             <form method=\"post\" action=\"/claims/{id}/approve\">\n{note}\
             <div class=\"actions\" data-anchor-region=\"actions\">\n\
             <button type=\"submit\" class=\"primary\" data-anchor=\"claim.approve\"{closed}>\
             Approve</button>\n\
             <button type=\"button\" class=\"danger\" data-anchor=\"claim.reject\" \
             data-opens=\"reject-backdrop\" aria-haspopup=\"dialog\"{closed}>Reject</button>\n\
             <button type=\"button\" data-anchor=\"claim.escalate\" disabled \
             title=\"Only supervisors can escalate\">Escalate</button>\n\
             <a href=\"/claims\" data-anchor=\"claim.back\">Back to claims</a>\n\
             </div>\n</form>\n{dialog}{MODAL_JS}\n"
        ),
        // The actions move to a toolbar beside the heading (outside the form, which the
        // Approve button names); Reject and Escalate become links marked up as buttons;
        // Escalate is reworded and "Back to claims" gives way to a breadcrumb.
        Layout::Redesign => {
            let off = if closed.is_empty() {
                ""
            } else {
                " aria-disabled=\"true\""
            };
            format!(
                "<nav class=\"breadcrumb\" aria-label=\"Breadcrumb\"><a href=\"/claims\">Claims</a> \
                 › Claim {id}</nav>\n\
                 <div class=\"page-head\">\n<h1>Claim {id}</h1>\n\
                 <div class=\"toolbar\" role=\"toolbar\" aria-label=\"Decision\" \
                 data-anchor-region=\"toolbar\">\n\
                 <button type=\"submit\" form=\"claim-form\" class=\"btn btn-primary\" \
                 data-anchor=\"claim.approve\"{closed}>Approve</button>\n\
                 <a role=\"button\" tabindex=\"0\" class=\"btn btn-danger\" data-anchor=\"claim.reject\" \
                 data-opens=\"reject-backdrop\" aria-haspopup=\"dialog\"{off}>Reject</a>\n\
                 <a role=\"button\" tabindex=\"0\" class=\"btn\" aria-disabled=\"true\" \
                 data-anchor=\"claim.escalate\" title=\"Only supervisors can send a claim on\">\
                 Send to supervisor</a>\n\
                 </div>\n</div>\n{notices}{summary}\
                 <form id=\"claim-form\" method=\"post\" action=\"/claims/{id}/approve\">\n{note}\
                 </form>\n{dialog}{MODAL_JS}\n"
            )
        }
    };
    html(page(
        state.layout,
        &format!("Claim {id}"),
        Nav::Claims,
        &body,
    ))
}

/// The modal that confirms a rejection, with its reason (region `dialog`), hidden until
/// Reject opens it.
fn reject_dialog(id: u32) -> String {
    format!(
        "<div class=\"backdrop\" id=\"reject-backdrop\" hidden>\n\
         <div class=\"dialog\" role=\"dialog\" aria-modal=\"true\" aria-labelledby=\"reject-title\" \
         data-anchor-region=\"dialog\">\n\
         <h2 id=\"reject-title\">Reject claim {id}?</h2>\n\
         <p class=\"muted\">The claimant is told the reason you give here.</p>\n\
         <form method=\"post\" action=\"/claims/{id}/reject\">\n\
         <div class=\"field\"><label for=\"reject-reason\">Reason</label>\
         <textarea id=\"reject-reason\" name=\"reason\" rows=\"3\" \
         data-anchor=\"claim.reject-reason\"></textarea></div>\n\
         <div class=\"actions\">\
         <button type=\"button\" data-closes data-anchor=\"claim.reject-cancel\">Cancel</button>\
         <button type=\"submit\" class=\"danger\" data-anchor=\"claim.reject-confirm\">\
         Confirm rejection</button></div>\n\
         </form>\n</div>\n</div>\n"
    )
}

/// What the approve form posts.
#[derive(Deserialize)]
pub(crate) struct ApproveForm {
    #[serde(default)]
    note: String,
}

/// `POST /claims/{id}/approve`: approves an open claim and keeps the note.
pub(crate) async fn approve(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Form(form): Form<ApproveForm>,
) -> Response {
    let mut store = state.lock();
    let Some(at) = find(&store.claims, &id) else {
        return not_found(state.layout);
    };
    let claim = &mut store.claims[at];
    let id = claim.id;
    if claim.status != ClaimStatus::Open {
        let flash = format!(
            "Claim {id} is already {}",
            claim.status.label().to_lowercase()
        );
        return see_other(&format!("/claims/{id}"), Some(&flash));
    }
    claim.status = ClaimStatus::Approved;
    claim.note = form.note;
    store.record_save("claim.approve");
    see_other("/claims", Some(&format!("Claim {id} approved")))
}

/// What the rejection dialog posts.
#[derive(Deserialize)]
pub(crate) struct RejectForm {
    #[serde(default)]
    reason: String,
}

/// `POST /claims/{id}/reject`: rejects an open claim with the reason given.
pub(crate) async fn reject(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Form(form): Form<RejectForm>,
) -> Response {
    let mut store = state.lock();
    let Some(at) = find(&store.claims, &id) else {
        return not_found(state.layout);
    };
    let claim = &mut store.claims[at];
    let id = claim.id;
    if claim.status != ClaimStatus::Open {
        let flash = format!(
            "Claim {id} is already {}",
            claim.status.label().to_lowercase()
        );
        return see_other(&format!("/claims/{id}"), Some(&flash));
    }
    claim.status = ClaimStatus::Rejected;
    claim.reject_reason = form.reason;
    store.record_save("claim.reject-confirm");
    see_other("/claims", Some(&format!("Claim {id} rejected")))
}

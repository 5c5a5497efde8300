//! The return form (text, selects, a textarea and a radio group in one real form) and the
//! return request it creates. The redesign rebuilds the form in two columns without a
//! single `data-anchor`: its anchors are the registry's matchers' to find.

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

use super::Layout;
use super::chrome::{Nav, Notice, esc, html, html_status, not_found, page, see_other, selected};
use super::redesign;
use super::state::{AppState, FIRST_RETURN, ReturnRequest};

const REASONS: [&str; 5] = [
    "",
    "Damaged in transit",
    "Wrong item",
    "No longer needed",
    "Other",
];
const CONDITIONS: [(&str, &str); 3] = [
    ("unopened", "Unopened"),
    ("opened", "Opened"),
    ("damaged", "Damaged"),
];
const REFUND_METHODS: [(&str, &str); 2] =
    [("original", "Original payment"), ("credit", "Store credit")];

/// What the return form posts (or shows again).
#[derive(Deserialize, Default)]
pub(crate) struct ReturnForm {
    #[serde(default)]
    order_number: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    reason_detail: String,
    #[serde(default)]
    condition: String,
    #[serde(default)]
    refund_method: String,
}

fn form_page(layout: Layout, form: &ReturnForm, notice: &Notice) -> String {
    let reasons: String = REASONS
        .iter()
        .map(|r| {
            format!(
                "<option value=\"{r}\"{}>{r}</option>",
                selected(r, &form.reason)
            )
        })
        .collect();
    let refunds: String = REFUND_METHODS
        .iter()
        .map(|(value, label)| {
            format!(
                "<option value=\"{value}\"{}>{label}</option>",
                selected(value, &form.refund_method)
            )
        })
        .collect();
    if layout == Layout::Redesign {
        return redesigned_form_page(form, notice, &reasons, &refunds);
    }
    let conditions: String = CONDITIONS
        .iter()
        .map(|(value, label)| {
            let checked = if *value == form.condition {
                " checked"
            } else {
                ""
            };
            format!(
                "<span><input type=\"radio\" id=\"condition-{value}\" name=\"condition\" \
                 value=\"{value}\" data-anchor=\"return.condition\" data-anchor-key=\"{value}\"\
                 {checked}> <label for=\"condition-{value}\">{label}</label></span>\n"
            )
        })
        .collect();
    let body = format!(
        "<h1>New return</h1>\n{notices}\
         <form method=\"post\" action=\"/returns\" class=\"card\" style=\"max-width:560px\" \
         data-anchor-region=\"return\">\n\
         <div class=\"field\"><label for=\"return-order\">Order number</label>\
         <input type=\"text\" id=\"return-order\" name=\"order_number\" value=\"{order}\" \
         data-anchor=\"return.order-number\"></div>\n\
         <div class=\"field\"><label for=\"return-reason\">Return reason</label>\
         <select id=\"return-reason\" name=\"reason\" data-anchor=\"return.reason\">{reasons}\
         </select></div>\n\
         <div class=\"field\"><label for=\"return-detail\">Describe the reason</label>\
         <textarea id=\"return-detail\" name=\"reason_detail\" rows=\"3\" \
         data-anchor=\"return.reason-detail\">{detail}</textarea></div>\n\
         <fieldset><legend>Condition</legend>\n<div class=\"row\">\n{conditions}</div>\n</fieldset>\n\
         <div class=\"field\"><label for=\"return-refund\">Refund method</label>\
         <select id=\"return-refund\" name=\"refund_method\" data-anchor=\"return.refund-method\">\
         {refunds}</select></div>\n\
         <div class=\"actions\">\
         <button type=\"submit\" class=\"primary\" data-anchor=\"return.submit\">Submit return</button>\
         <a href=\"/\" data-anchor=\"return.cancel\">Cancel</a></div>\n</form>\n",
        notices = notice.html(),
        order = esc(&form.order_number),
        detail = esc(&form.reason_detail),
    );
    page(layout, "New return", Nav::Returns, &body)
}

/// The redesign's form: two columns, each radio button inside its label, and no
/// `data-anchor` anywhere on the page (nor a region marker): an app that does not emit
/// them. Its landmarks name its controls' regions (the form's name, `return`; the nav's
/// tag, `nav`), the same as the classic markers do.
fn redesigned_form_page(
    form: &ReturnForm,
    notice: &Notice,
    reasons: &str,
    refunds: &str,
) -> String {
    let conditions: String = CONDITIONS
        .iter()
        .map(|(value, label)| {
            let checked = if *value == form.condition {
                " checked"
            } else {
                ""
            };
            format!(
                "<label class=\"choice\"><input type=\"radio\" name=\"condition\" \
                 value=\"{value}\"{checked}> {label}</label>\n"
            )
        })
        .collect();
    let body = format!(
        "<h1>New return</h1>\n{notices}\
         <form method=\"post\" action=\"/returns\" class=\"panel\" aria-label=\"return\">\n\
         <div class=\"two-col\">\n\
         <div class=\"form-item\"><label for=\"return-order\">Order number</label>\
         <input type=\"text\" id=\"return-order\" name=\"order_number\" value=\"{order}\"></div>\n\
         <div class=\"form-item\"><label for=\"return-reason\">Return reason</label>\
         <select id=\"return-reason\" name=\"reason\">{reasons}</select></div>\n\
         <div class=\"form-item span-2\"><label for=\"return-detail\">Describe the reason</label>\
         <textarea id=\"return-detail\" name=\"reason_detail\" rows=\"3\">{detail}</textarea></div>\n\
         <fieldset class=\"form-item\"><legend>Condition</legend>\n<div class=\"cluster\">\n\
         {conditions}</div>\n</fieldset>\n\
         <div class=\"form-item\"><label for=\"return-refund\">Refund method</label>\
         <select id=\"return-refund\" name=\"refund_method\">{refunds}</select></div>\n\
         </div>\n\
         <div class=\"button-bar\">\
         <button type=\"submit\" class=\"btn btn-primary\">Submit return</button>\
         <a href=\"/\" class=\"btn\">Cancel</a></div>\n</form>\n",
        notices = notice.html(),
        order = esc(&form.order_number),
        detail = esc(&form.reason_detail),
    );
    redesign::page_without_anchors("New return", Nav::Returns, &body)
}

/// `GET /returns/new` (return-form).
pub(crate) async fn form(State(state): State<AppState>, Query(notice): Query<Notice>) -> Response {
    html(form_page(state.layout, &ReturnForm::default(), &notice))
}

/// `POST /returns`: records the return; without an order number or reason the form is shown
/// again with what is missing.
pub(crate) async fn submit(
    State(state): State<AppState>,
    Form(form): Form<ReturnForm>,
) -> Response {
    let mut missing = Vec::new();
    if form.order_number.trim().is_empty() {
        missing.push("an order number");
    }
    if !REASONS[1..].contains(&form.reason.as_str()) {
        missing.push("a return reason");
    }
    if !missing.is_empty() {
        let notice = Notice::error(format!("Enter {}.", missing.join(" and ")));
        let page = form_page(state.layout, &form, &notice);
        return html_status(StatusCode::UNPROCESSABLE_ENTITY, page);
    }
    let condition = CONDITIONS
        .iter()
        .find(|(v, _)| *v == form.condition)
        .map_or("Not stated", |(_, label)| label);
    let refund = REFUND_METHODS
        .iter()
        .find(|(v, _)| *v == form.refund_method)
        .map_or("Original payment", |(_, label)| label);
    let mut store = state.lock();
    let id = FIRST_RETURN + u32::try_from(store.returns.len()).unwrap_or(u32::MAX - FIRST_RETURN);
    store.returns.push(ReturnRequest {
        id,
        order_number: form.order_number.trim().to_string(),
        reason: form.reason,
        detail: form.reason_detail,
        condition: condition.to_string(),
        refund_method: refund.to_string(),
    });
    store.record_save("return.submit");
    see_other(
        &format!("/returns/{id}"),
        Some(&format!("Return {id} submitted")),
    )
}

/// `GET /returns/{id}` (return-detail).
pub(crate) async fn detail(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(notice): Query<Notice>,
) -> Response {
    let store = state.lock();
    let Some(r) = id
        .parse::<u32>()
        .ok()
        .and_then(|id| store.returns.iter().find(|r| r.id == id))
    else {
        return not_found(state.layout);
    };
    let detail = if r.detail.trim().is_empty() {
        "<span class=\"muted\">None given</span>".to_string()
    } else {
        esc(&r.detail).to_string()
    };
    let body = format!(
        "<h1>Return {id}</h1>\n{notices}\
         <section class=\"card\" aria-label=\"Summary\"><dl class=\"summary\">\
         <dt>Order number</dt><dd>{order}</dd><dt>Reason</dt><dd>{reason}</dd>\
         <dt>Details</dt><dd>{detail}</dd><dt>Condition</dt><dd>{condition}</dd>\
         <dt>Refund method</dt><dd>{refund}</dd><dt>Status</dt><dd>Awaiting parcel</dd>\
         </dl></section>\n\
         <p class=\"actions\" data-anchor-region=\"actions\">\
         <a href=\"/returns/new\" data-anchor=\"return.another\">Start another return</a></p>\n",
        id = r.id,
        notices = notice.html(),
        order = esc(&r.order_number),
        reason = esc(&r.reason),
        condition = esc(&r.condition),
        refund = esc(&r.refund_method),
    );
    html(page(
        state.layout,
        &format!("Return {}", r.id),
        Nav::Returns,
        &body,
    ))
}

//! The accounts list and each account's pricing rules, with the one real form that adds a
//! rate — a form that Enter in its rate field would submit, which is what proves that
//! waymark's fill never presses Enter.

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

use super::Layout;
use super::chrome::{Nav, Notice, esc, html, html_status, not_found, page, see_other, selected};
use super::state::{Account, AppState, PricingRule};

const CURRENCIES: [&str; 3] = ["EUR", "USD", "GBP"];

/// `GET /accounts` (accounts-list).
pub(crate) async fn accounts(State(state): State<AppState>) -> Response {
    let store = state.lock();
    let mut rows = String::new();
    for a in &store.accounts {
        rows.push_str(&format!(
            "<tr><td>{id}</td><td>{name}</td><td>{city}</td><td class=\"num\">{rate} %</td>\
             <td><a href=\"/accounts/{id}/pricing\" data-anchor=\"accounts.pricing\" \
             data-anchor-key=\"{id}\">Pricing rules</a></td></tr>\n",
            id = a.id,
            name = esc(a.name),
            city = esc(a.city),
            rate = esc(a.current_rate()),
        ));
    }
    let body = format!(
        "<h1>Accounts</h1>\n\
         <section data-anchor-region=\"accounts\" aria-label=\"Accounts\">\n<table>\n\
         <thead><tr><th>Account</th><th>Name</th><th>City</th><th class=\"num\">Current rate</th>\
         <th></th></tr></thead>\n<tbody>\n{rows}</tbody>\n</table>\n</section>\n"
    );
    html(page(state.layout, "Accounts", Nav::Accounts, &body))
}

fn find(accounts: &[Account], id: &str) -> Option<usize> {
    let id: u32 = id.parse().ok()?;
    accounts.iter().position(|a| a.id == id)
}

/// What the new-rate form holds (posted, or to show again).
#[derive(Deserialize, Default)]
pub(crate) struct RateForm {
    #[serde(default)]
    rate: String,
    #[serde(default)]
    effective_date: String,
    #[serde(default)]
    currency: String,
}

/// `saves` is the app's save count, shown read-only so a journey can prove that staging a
/// rate saved nothing.
fn rules_page(
    layout: Layout,
    account: &Account,
    form: &RateForm,
    notice: &Notice,
    saves: u64,
) -> String {
    let id = account.id;
    let mut rows = String::new();
    for r in account.rules.iter().rev() {
        rows.push_str(&format!(
            "<tr><td>{effective}</td><td class=\"num\">{rate} %</td><td>{currency}</td>\
             <td>{by}</td></tr>\n",
            effective = esc(&r.effective),
            rate = esc(&r.rate),
            currency = esc(&r.currency),
            by = esc(&r.set_by),
        ));
    }
    let currencies: String = CURRENCIES
        .iter()
        .map(|c| format!("<option{}>{c}</option>", selected(c, &form.currency)))
        .collect();
    let body = format!(
        "<h1>Pricing rules · {name}</h1>\n{notices}\
         <section class=\"card\" data-anchor-region=\"rules\" aria-labelledby=\"rules-title\">\n\
         <h2 id=\"rules-title\">Current and past rates</h2>\n<table>\n\
         <thead><tr><th>Effective from</th><th class=\"num\">Rate</th><th>Currency</th>\
         <th>Set by</th></tr></thead>\n<tbody>\n{rows}</tbody>\n</table>\n\
         <p class=\"muted\">Saves recorded in this app: <output data-anchor=\"pricing.saves\" \
         aria-label=\"Saves recorded\">{saves}</output></p>\n</section>\n\
         <form method=\"post\" action=\"/accounts/{id}/pricing\" class=\"card\" \
         data-anchor-region=\"new-rate\" aria-labelledby=\"new-rate-title\">\n\
         <h2 id=\"new-rate-title\">New rate</h2>\n<div class=\"row\">\n\
         <div class=\"field\"><label for=\"pricing-rate\">New rate (%)</label>\
         <input type=\"text\" id=\"pricing-rate\" name=\"rate\" inputmode=\"decimal\" \
         value=\"{rate}\" data-anchor=\"pricing.rate\"></div>\n\
         <div class=\"field\"><label for=\"pricing-effective\">Effective date</label>\
         <input type=\"date\" id=\"pricing-effective\" name=\"effective_date\" \
         value=\"{effective}\" data-anchor=\"pricing.effective-date\"></div>\n\
         <div class=\"field\"><label for=\"pricing-currency\">Currency</label>\
         <select id=\"pricing-currency\" name=\"currency\" data-anchor=\"pricing.currency\">\
         {currencies}</select></div>\n\
         </div>\n<div class=\"actions\">\
         <button type=\"submit\" class=\"primary\" data-anchor=\"pricing.save\">Save</button>\
         <a href=\"/accounts\" data-anchor=\"pricing.cancel\">Cancel</a></div>\n</form>\n",
        name = esc(account.name),
        notices = notice.html(),
        rate = esc(&form.rate),
        effective = esc(&form.effective_date),
    );
    page(
        layout,
        &format!("Pricing rules · {}", account.name),
        Nav::Accounts,
        &body,
    )
}

/// `GET /accounts/{id}/pricing` (pricing-rules).
pub(crate) async fn rules(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(notice): Query<Notice>,
) -> Response {
    let store = state.lock();
    let Some(at) = find(&store.accounts, &id) else {
        return not_found(state.layout);
    };
    let account = &store.accounts[at];
    let form = RateForm {
        rate: account.current_rate().to_string(),
        effective_date: String::new(),
        currency: account
            .rules
            .last()
            .map_or("EUR", |r| r.currency.as_str())
            .to_string(),
    };
    html(rules_page(
        state.layout,
        account,
        &form,
        &notice,
        store.saves,
    ))
}

/// The rate as a percentage between 0 and 100, written the way it was entered.
fn valid_rate(rate: &str) -> Option<String> {
    let rate = rate.trim().replace(',', ".");
    let value: f64 = rate.parse().ok()?;
    (value.is_finite() && (0.0..=100.0).contains(&value)).then_some(rate)
}

/// `POST /accounts/{id}/pricing`: adds the new rate; an invalid one shows the form again.
pub(crate) async fn save(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Form(form): Form<RateForm>,
) -> Response {
    let mut store = state.lock();
    let Some(at) = find(&store.accounts, &id) else {
        return not_found(state.layout);
    };
    let Some(rate) = valid_rate(&form.rate) else {
        let notice = Notice::error("Enter the rate as a number between 0 and 100.");
        let page = rules_page(
            state.layout,
            &store.accounts[at],
            &form,
            &notice,
            store.saves,
        );
        return html_status(StatusCode::UNPROCESSABLE_ENTITY, page);
    };
    let currency = if CURRENCIES.contains(&form.currency.as_str()) {
        form.currency
    } else {
        "EUR".to_string()
    };
    let effective = match form.effective_date.trim() {
        "" => "Immediately".to_string(),
        date => date.to_string(),
    };
    let account = &mut store.accounts[at];
    account.rules.push(PricingRule {
        effective,
        rate,
        currency,
        set_by: "You".into(),
    });
    let id = account.id;
    store.record_save("pricing.save");
    see_other(&format!("/accounts/{id}/pricing"), Some("Rate saved"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_rate_accepts_percentages_only() {
        assert_eq!(valid_rate(" 5.5 ").as_deref(), Some("5.5"));
        assert_eq!(valid_rate("4,25").as_deref(), Some("4.25"));
        assert_eq!(valid_rate("101"), None);
        assert_eq!(valid_rate("abc"), None);
        assert_eq!(valid_rate("NaN"), None);
    }
}

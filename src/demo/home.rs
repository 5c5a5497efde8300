//! The entry screens of the demo app: the home page with a card per area, the sign-in
//! form, and the deliberately slow page that wait policies are tested against.

use std::time::Duration;

use axum::Form;
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::Layout;
use super::chrome::{Nav, Notice, bare_page, esc, html, html_status, page};
use super::state::AppState;

const AREAS: [(&str, &str, &str, &str); 6] = [
    (
        "home.claims",
        "/claims",
        "Claims",
        "Review incoming insurance claims, approve or reject them with a note.",
    ),
    (
        "home.orders",
        "/orders",
        "Sales orders",
        "Edit draft orders, adjust line quantities and submit them to the warehouse.",
    ),
    (
        "home.accounts",
        "/accounts",
        "Accounts",
        "Customer accounts and the discount rates agreed with them.",
    ),
    (
        "home.dispatch",
        "/dispatch?day=tomorrow",
        "Dispatch",
        "Assign tomorrow's field-service jobs to drivers.",
    ),
    (
        "home.returns",
        "/returns/new",
        "Returns",
        "Record a customer return and choose how it is refunded.",
    ),
    (
        "home.widgets",
        "/widgets",
        "Widgets",
        "The test bench: dialogs, disabled and covered controls, shadow DOM and frames.",
    ),
];

/// `GET /` (home).
pub(crate) async fn home(State(state): State<AppState>) -> Response {
    let mut cards = String::new();
    for (anchor, href, title, text) in AREAS {
        cards.push_str(&format!(
            "<article class=\"card\">\n<h2>{title}</h2>\n<p class=\"muted\">{text}</p>\n\
             <a href=\"{href}\" data-anchor=\"{anchor}\">Open {lower}</a>\n</article>\n",
            lower = title.to_lowercase(),
        ));
    }
    let body = format!(
        "<h1>Acme Operations</h1>\n\
         <p>Good morning. Pick an area to work in.</p>\n\
         <section class=\"grid\" data-anchor-region=\"shortcuts\" aria-label=\"Shortcuts\">\n\
         {cards}</section>\n"
    );
    html(page(state.layout, "Home", Nav::Home, &body))
}

/// What the sign-in form posts.
#[derive(Deserialize)]
pub(crate) struct LoginForm {
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    remember: Option<String>,
}

fn login_page(layout: Layout, username: &str, notice: &Notice) -> String {
    let body = format!(
        "<h1>Sign in</h1>\n{notices}\
         <form method=\"post\" action=\"/login\" class=\"card\" style=\"max-width:380px\" \
         data-anchor-region=\"login\">\n\
         <div class=\"field\"><label for=\"login-username\">Username</label>\
         <input type=\"text\" id=\"login-username\" name=\"username\" autocomplete=\"username\" \
         value=\"{username}\" data-anchor=\"login.username\"></div>\n\
         <div class=\"field\"><label for=\"login-password\">Password</label>\
         <input type=\"password\" id=\"login-password\" name=\"password\" \
         autocomplete=\"current-password\" data-anchor=\"login.password\"></div>\n\
         <p><input type=\"checkbox\" id=\"login-remember\" name=\"remember\" value=\"yes\" \
         data-anchor=\"login.remember\"> <label for=\"login-remember\">Remember me</label></p>\n\
         <button type=\"submit\" class=\"primary\" data-anchor=\"login.submit\">Sign in</button>\n\
         </form>\n",
        notices = notice.html(),
        username = esc(username),
    );
    page(layout, "Sign in", Nav::Login, &body)
}

/// `GET /login` (login).
pub(crate) async fn login_form(
    State(state): State<AppState>,
    Query(notice): Query<Notice>,
) -> Response {
    html(login_page(state.layout, "", &notice))
}

/// `POST /login`: any non-empty username and password sign in; the session lives in a
/// cookie only, so signing in is not a save.
pub(crate) async fn login(State(state): State<AppState>, Form(form): Form<LoginForm>) -> Response {
    if form.username.trim().is_empty() || form.password.is_empty() {
        let notice = Notice::error("Enter your username and password.");
        return html_status(
            StatusCode::UNPROCESSABLE_ENTITY,
            login_page(state.layout, &form.username, &notice),
        );
    }
    let max_age = if form.remember.is_some() {
        "; Max-Age=2592000"
    } else {
        ""
    };
    let token: String = form
        .username
        .trim()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let cookie = format!("demo_session=s-{token}; Path=/; HttpOnly; SameSite=Lax{max_age}");
    ([(header::SET_COOKIE, cookie)], Redirect::to("/claims")).into_response()
}

/// The query of `/slow`.
#[derive(Deserialize)]
pub(crate) struct SlowQuery {
    #[serde(default)]
    ms: Option<String>,
}

/// `GET /slow?ms=N` (slow): answers after N milliseconds (at most a minute).
pub(crate) async fn slow(Query(q): Query<SlowQuery>) -> Response {
    let ms =
        q.ms.and_then(|ms| ms.trim().parse::<u64>().ok())
            .unwrap_or(0)
            .min(60_000);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    let body = format!(
        "<h1>Slow page</h1>\n<p>This page took {ms} ms to answer.</p>\n\
         <p data-anchor-region=\"actions\"><a href=\"/widgets\" data-anchor=\"slow.back\">\
         Back to widgets</a></p>\n"
    );
    html(bare_page("Slow page", &body))
}

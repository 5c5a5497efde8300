//! The dispatch board: a card per unassigned job with a driver picker and an Assign
//! button (the keyed-controls showcase), and the jobs already assigned, by driver.

use std::time::{SystemTime, UNIX_EPOCH};

use axum::Form;
use axum::extract::{Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::chrome::{Nav, Notice, esc, html, page, see_other, see_other_error, selected};
use super::state::{AppState, DRIVERS, Day, Job};

/// Shows and hides a job's details when its title is pressed.
const DISPATCH_JS: &str = r#"<script>
(function () {
  document.getElementById('dispatch-day').addEventListener('change', function () {
    window.location.href = '/dispatch?day=' + encodeURIComponent(this.value);
  });
  document.addEventListener('click', function (e) {
    var job = e.target.closest('[data-anchor="dispatch.job"]');
    if (!job) { return; }
    var details = document.getElementById(job.getAttribute('aria-controls'));
    var open = job.getAttribute('aria-expanded') === 'true';
    job.setAttribute('aria-expanded', open ? 'false' : 'true');
    details.hidden = open;
  });
})();
</script>"#;

/// The query of the board: `day` and the notices of a redirect.
#[derive(Deserialize)]
pub(crate) struct BoardQuery {
    #[serde(default)]
    day: Option<String>,
    #[serde(default)]
    flash: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// A date as `Tue 4 Jun 2024`, `days` from today (UTC; no time zone data is compiled in).
fn date_label(days: i64) -> String {
    const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let day = i64::try_from(now / 86_400).unwrap_or(0) + days;
    let (y, m, d) = civil_from_days(day);
    let weekday = WEEKDAYS[usize::try_from((day + 4).rem_euclid(7)).unwrap_or(0)];
    format!("{weekday} {d} {} {y}", MONTHS[(m - 1) as usize])
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m as u32, d as u32)
}

fn job_button(job: &Job) -> String {
    format!(
        "<button type=\"button\" class=\"job-title\" data-anchor=\"dispatch.job\" \
         data-anchor-key=\"{id}\" aria-expanded=\"false\" aria-controls=\"details-{id}\">\
         {id} · {title}</button>\n\
         <p class=\"muted\" id=\"details-{id}\" hidden>Time window {window}. \
         Customer confirmed by phone.</p>\n",
        id = esc(job.id),
        title = esc(job.title),
        window = esc(job.window),
    )
}

fn unassigned_card(job: &Job, day: Day) -> String {
    let options: String = DRIVERS
        .iter()
        .map(|(value, name)| format!("<option value=\"{value}\">{name}</option>"))
        .collect();
    format!(
        "<article class=\"card\">\n{button}<p class=\"muted\">{window}</p>\n\
         <form method=\"post\" action=\"/dispatch/assign\" class=\"row\">\n\
         <input type=\"hidden\" name=\"job\" value=\"{id}\">\
         <input type=\"hidden\" name=\"day\" value=\"{day}\">\n\
         <div class=\"field\"><label for=\"driver-{id}\">Driver</label>\
         <select id=\"driver-{id}\" name=\"driver\" data-anchor=\"dispatch.driver\" \
         data-anchor-key=\"{id}\"><option value=\"\">Choose a driver</option>{options}</select></div>\n\
         <div class=\"field\"><button type=\"submit\" class=\"primary\" data-anchor=\"dispatch.assign\" \
         data-anchor-key=\"{id}\">Assign</button></div>\n</form>\n</article>\n",
        button = job_button(job),
        window = esc(job.window),
        id = esc(job.id),
        day = day.value(),
    )
}

/// `GET /dispatch?day=today|tomorrow` (dispatch-board).
pub(crate) async fn board(State(state): State<AppState>, Query(q): Query<BoardQuery>) -> Response {
    let day = q.day.as_deref().and_then(Day::parse).unwrap_or(Day::Today);
    let (day_name, date) = match day {
        Day::Today => ("Today", date_label(0)),
        Day::Tomorrow => ("Tomorrow", date_label(1)),
    };
    let store = state.lock();
    let jobs: Vec<&Job> = store.jobs.iter().filter(|j| j.day == day).collect();
    let mut unassigned = String::new();
    for job in jobs.iter().filter(|j| j.driver.is_none()) {
        unassigned.push_str(&unassigned_card(job, day));
    }
    if unassigned.is_empty() {
        unassigned.push_str("<p class=\"muted\">Every job is assigned.</p>\n");
    }
    let mut assigned = String::new();
    for (driver, name) in DRIVERS {
        let theirs: String = jobs
            .iter()
            .filter(|j| j.driver == Some(driver))
            .map(|j| format!("<li>{}</li>\n", job_button(j)))
            .collect();
        if !theirs.is_empty() {
            assigned.push_str(&format!("<h3>{name}</h3>\n<ul>\n{theirs}</ul>\n"));
        }
    }
    let day_options: String = [Day::Today, Day::Tomorrow]
        .iter()
        .map(|d| {
            let label = if *d == Day::Today {
                "Today"
            } else {
                "Tomorrow"
            };
            format!(
                "<option value=\"{}\"{}>{label}</option>",
                d.value(),
                selected(d.value(), day.value())
            )
        })
        .collect();
    let body = format!(
        "<h1>Dispatch board · {day_name}, {date}</h1>\n{notices}\
         <div class=\"card row\" data-anchor-region=\"toolbar\">\n\
         <div class=\"field\"><label for=\"dispatch-day\">Day</label>\
         <select id=\"dispatch-day\" data-anchor=\"dispatch.day\">{day_options}</select></div>\n\
         <div class=\"field\"><a class=\"button\" href=\"/dispatch?day={value}\" \
         data-anchor=\"dispatch.refresh\">Refresh</a></div>\n</div>\n\
         <section data-anchor-region=\"unassigned\" aria-labelledby=\"unassigned-title\">\n\
         <h2 id=\"unassigned-title\">Unassigned jobs</h2>\n<div class=\"grid\">\n{unassigned}\
         </div>\n</section>\n\
         <section class=\"card\" data-anchor-region=\"assigned\" aria-labelledby=\"assigned-title\">\n\
         <h2 id=\"assigned-title\">Assigned</h2>\n{assigned}</section>\n{DISPATCH_JS}\n",
        notices = Notice {
            flash: q.flash,
            error: q.error,
        }
        .html(),
        value = day.value(),
    );
    html(page(state.layout, "Dispatch board", Nav::Dispatch, &body))
}

/// What an Assign button posts.
#[derive(Deserialize)]
pub(crate) struct AssignForm {
    #[serde(default)]
    job: String,
    #[serde(default)]
    driver: String,
    #[serde(default)]
    day: String,
}

/// `POST /dispatch/assign`: gives the job to the chosen driver.
pub(crate) async fn assign(
    State(state): State<AppState>,
    Form(form): Form<AssignForm>,
) -> Response {
    let day = Day::parse(&form.day).unwrap_or(Day::Today);
    let back = format!("/dispatch?day={}", day.value());
    let mut store = state.lock();
    let Some(job) = store.jobs.iter_mut().find(|j| j.id == form.job) else {
        return see_other_error(&back, "That job no longer exists.");
    };
    let Some((driver, name)) = DRIVERS.iter().find(|(v, _)| *v == form.driver) else {
        return see_other_error(&back, &format!("Choose a driver for {}.", job.id));
    };
    job.driver = Some(driver);
    let flash = format!("{} assigned to {name}", job.id);
    store.record_save("dispatch.assign");
    see_other(&back, Some(&flash))
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn civil_from_days_matches_known_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_878), (2024, 6, 4));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }
}

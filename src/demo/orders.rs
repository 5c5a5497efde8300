//! The sales order screens: the order list, the order form with editable lines (added and
//! removed in the page), saving a draft, submitting, and the confirmation.

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::response::Response;

use super::Layout;
use super::chrome::{Nav, Notice, esc, html, money, not_found, page, see_other, selected};
use super::state::{AppState, CUSTOMERS, Order, OrderLine, OrderStatus};

/// Adds and removes line rows in the page; a new row takes the next unused line number.
const LINES_JS: &str = r#"<script>
(function () {
  var body = document.querySelector('#order-lines tbody');
  var next = Number(body.getAttribute('data-next-line'));
  body.addEventListener('click', function (e) {
    var remove = e.target.closest('[data-anchor="order.line-remove"]');
    if (remove) { remove.closest('tr').remove(); }
  });
  document.getElementById('add-line').addEventListener('click', function () {
    var n = next++;
    var row = document.createElement('tr');
    row.setAttribute('data-line', n);
    row.innerHTML = '<td>' + n + '</td><td>NEW</td><td>New item</td><td class="num">0.00</td>' +
      '<td><input type="number" name="qty_' + n + '" min="0" step="1" value="1" ' +
      'aria-label="Quantity line ' + n + '" data-anchor="order.line-qty" data-anchor-key="' + n + '"></td>' +
      '<td><button type="button" data-anchor="order.line-remove" data-anchor-key="' + n + '">Remove</button></td>';
    body.appendChild(row);
    row.querySelector('input').focus();
  });
})();
</script>"#;

/// The button that adds a line: under the lines (classic) or in the actions (redesign).
const ADD_LINE: &str =
    "<button type=\"button\" id=\"add-line\" data-anchor=\"order.add-line\">Add line</button>";

fn status_badge(status: OrderStatus) -> String {
    format!(
        "<span class=\"badge {}\">{}</span>",
        status.label().to_lowercase(),
        status.label()
    )
}

/// `GET /orders` (orders-list).
pub(crate) async fn list(State(state): State<AppState>, Query(notice): Query<Notice>) -> Response {
    let store = state.lock();
    let mut rows = String::new();
    for o in &store.orders {
        rows.push_str(&format!(
            "<tr><td><a href=\"/orders/{id}\" data-anchor=\"orders.open\" \
             data-anchor-key=\"{id}\">Order {id}</a></td><td>{customer}</td>\
             <td>{po}</td><td>{lines}</td><td class=\"num\">EUR {total}</td><td>{badge}</td></tr>\n",
            id = o.id,
            customer = esc(o.customer_name()),
            po = esc(&o.po_number),
            lines = o.lines.len(),
            total = money(o.total_cents()),
            badge = status_badge(o.status),
        ));
    }
    let body = format!(
        "<h1>Sales orders</h1>\n{notices}\
         <section data-anchor-region=\"orders\" aria-label=\"Orders\">\n<table>\n\
         <thead><tr><th>Order</th><th>Customer</th><th>PO reference</th><th>Lines</th>\
         <th class=\"num\">Total</th><th>Status</th></tr></thead>\n<tbody>\n{rows}</tbody>\n\
         </table>\n</section>\n",
        notices = notice.html(),
    );
    html(page(state.layout, "Sales orders", Nav::Orders, &body))
}

fn find(orders: &[Order], id: &str) -> Option<usize> {
    let id: u32 = id.parse().ok()?;
    orders.iter().position(|o| o.id == id)
}

fn line_row(l: &OrderLine) -> String {
    format!(
        "<tr data-line=\"{no}\"><td>{no}</td><td>{sku}</td><td>{description}</td>\
         <td class=\"num\">{price}</td>\
         <td><input type=\"number\" name=\"qty_{no}\" min=\"0\" step=\"1\" value=\"{qty}\" \
         aria-label=\"Quantity line {no}\" data-anchor=\"order.line-qty\" \
         data-anchor-key=\"{no}\"></td>\
         <td><button type=\"button\" data-anchor=\"order.line-remove\" \
         data-anchor-key=\"{no}\">Remove</button></td></tr>\n",
        no = l.no,
        sku = esc(&l.sku),
        description = esc(&l.description),
        price = money(l.unit_cents),
        qty = l.qty,
    )
}

/// `GET /orders/{id}` (sales-order).
pub(crate) async fn detail(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(notice): Query<Notice>,
) -> Response {
    let store = state.lock();
    let Some(at) = find(&store.orders, &id) else {
        return not_found(state.layout);
    };
    let o = &store.orders[at];
    let id = o.id;
    let customers: String = CUSTOMERS
        .iter()
        .map(|(value, name)| {
            format!(
                "<option value=\"{value}\"{sel}>{name}</option>",
                sel = selected(value, o.customer)
            )
        })
        .collect();
    let lines: String = o.lines.iter().map(line_row).collect();
    let next_line = o.lines.iter().map(|l| l.no).max().unwrap_or(0) + 1;
    let (add_in_lines, add_in_actions) = match state.layout {
        Layout::Classic => (format!("<p>{ADD_LINE}</p>\n"), String::new()),
        // The redesign gathers every button of the form in its action bar.
        Layout::Redesign => (String::new(), format!("{ADD_LINE}\n")),
    };
    let body = format!(
        "<h1>Sales order {id}</h1>\n{notices}\
         <p>Status: {badge} · Total EUR {total}</p>\n\
         <form method=\"post\" action=\"/orders/{id}/submit\">\n\
         <fieldset data-anchor-region=\"header\"><legend>Order header</legend>\n<div class=\"row\">\n\
         <div class=\"field\"><label for=\"order-customer\">Customer</label>\
         <select id=\"order-customer\" name=\"customer\" data-anchor=\"order.customer\">\
         {customers}</select></div>\n\
         <div class=\"field\"><label for=\"order-po\">PO reference</label>\
         <input type=\"text\" id=\"order-po\" name=\"po_number\" value=\"{po}\" \
         data-anchor=\"order.po-number\"></div>\n\
         <div class=\"field\"><label for=\"order-delivery\">Delivery date</label>\
         <input type=\"date\" id=\"order-delivery\" name=\"delivery_date\" value=\"{delivery}\" \
         data-anchor=\"order.delivery-date\"></div>\n\
         </div>\n</fieldset>\n\
         <section class=\"card\" data-anchor-region=\"lines\" aria-labelledby=\"lines-title\">\n\
         <h2 id=\"lines-title\">Lines</h2>\n\
         <table id=\"order-lines\">\n<thead><tr><th>Line</th><th>SKU</th><th>Description</th>\
         <th class=\"num\">Unit price</th><th>Quantity</th><th></th></tr></thead>\n\
         <tbody data-next-line=\"{next_line}\">\n{lines}</tbody>\n</table>\n{add_in_lines}\
         </section>\n\
         <div class=\"actions\" data-anchor-region=\"actions\">\n{add_in_actions}\
         <button type=\"submit\" formaction=\"/orders/{id}/draft\" \
         data-anchor=\"order.save-draft\">Save draft</button>\n\
         <button type=\"submit\" class=\"primary\" data-anchor=\"order.submit\">Submit Order</button>\n\
         </div>\n</form>\n{LINES_JS}\n",
        notices = notice.html(),
        badge = status_badge(o.status),
        total = money(o.total_cents()),
        po = esc(&o.po_number),
        delivery = esc(&o.delivery_date),
    );
    html(page(
        state.layout,
        &format!("Sales order {id}"),
        Nav::Orders,
        &body,
    ))
}

/// Applies a posted order form: header fields, and the lines still on screen (`qty_N`);
/// lines removed in the page go, lines added there arrive as new items.
fn apply(order: &mut Order, fields: &[(String, String)]) {
    let mut lines = Vec::new();
    for (name, value) in fields {
        match name.as_str() {
            "customer" => {
                if let Some((v, _)) = CUSTOMERS.iter().find(|(v, _)| v == value) {
                    order.customer = v;
                }
            }
            "po_number" => order.po_number = value.trim().to_string(),
            "delivery_date" => order.delivery_date = value.trim().to_string(),
            _ => {
                let Some(no) = name
                    .strip_prefix("qty_")
                    .and_then(|n| n.parse::<u32>().ok())
                else {
                    continue;
                };
                let qty = value.trim().parse::<u32>().unwrap_or(0);
                let line = match order.lines.iter().position(|l| l.no == no) {
                    Some(at) => {
                        let old = &order.lines[at];
                        OrderLine {
                            no,
                            sku: old.sku.clone(),
                            description: old.description.clone(),
                            qty,
                            unit_cents: old.unit_cents,
                        }
                    }
                    None => OrderLine {
                        no,
                        sku: "NEW".into(),
                        description: "New item".into(),
                        qty,
                        unit_cents: 0,
                    },
                };
                lines.push(line);
            }
        }
    }
    lines.sort_by_key(|l| l.no);
    lines.dedup_by_key(|l| l.no);
    order.lines = lines;
}

/// `POST /orders/{id}/draft`: keeps the edits, the order stays a draft.
pub(crate) async fn save_draft(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Form(fields): Form<Vec<(String, String)>>,
) -> Response {
    let mut store = state.lock();
    let Some(at) = find(&store.orders, &id) else {
        return not_found(state.layout);
    };
    let order = &mut store.orders[at];
    apply(order, &fields);
    let id = order.id;
    store.record_save("order.save-draft");
    see_other(&format!("/orders/{id}"), Some("Draft saved"))
}

/// `POST /orders/{id}/submit`: keeps the edits and submits the order.
pub(crate) async fn submit(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Form(fields): Form<Vec<(String, String)>>,
) -> Response {
    let mut store = state.lock();
    let Some(at) = find(&store.orders, &id) else {
        return not_found(state.layout);
    };
    let order = &mut store.orders[at];
    apply(order, &fields);
    order.status = OrderStatus::Submitted;
    let id = order.id;
    store.record_save("order.submit");
    see_other(&format!("/orders/{id}/confirmation"), None)
}

/// `GET /orders/{id}/confirmation` (order-confirmation).
pub(crate) async fn confirmation(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Response {
    let store = state.lock();
    let Some(at) = find(&store.orders, &id) else {
        return not_found(state.layout);
    };
    let o = &store.orders[at];
    let id = o.id;
    if o.status != OrderStatus::Submitted {
        return see_other(
            &format!("/orders/{id}"),
            Some("This order is still a draft"),
        );
    }
    let po = if o.po_number.is_empty() {
        "none".to_string()
    } else {
        esc(&o.po_number).to_string()
    };
    let body = format!(
        "<h1>Order {id} submitted</h1>\n\
         <p role=\"status\" class=\"flash\">Order {id} submitted to the warehouse.</p>\n\
         <section class=\"card\" aria-label=\"Summary\"><dl class=\"summary\">\
         <dt>Customer</dt><dd>{customer}</dd><dt>PO reference</dt><dd>{po}</dd>\
         <dt>Delivery date</dt><dd>{delivery}</dd><dt>Lines</dt><dd>{lines}</dd>\
         <dt>Total</dt><dd>EUR {total}</dd></dl></section>\n\
         <p class=\"actions\" data-anchor-region=\"actions\">\
         <a href=\"/orders\" data-anchor=\"confirmation.back\">Back to orders</a></p>\n",
        customer = esc(o.customer_name()),
        delivery = esc(&o.delivery_date),
        lines = o.lines.len(),
        total = money(o.total_cents()),
    );
    html(page(
        state.layout,
        &format!("Order {id} submitted"),
        Nav::Orders,
        &body,
    ))
}

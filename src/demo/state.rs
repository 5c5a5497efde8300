//! In-memory server state of the demo app, seeded fresh on every start, with the save
//! counter that tests read to prove a form was (or was not) submitted.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::Layout;
use super::seed;

/// The state every handler shares.
pub(crate) type AppState = Arc<Shared>;

/// The store behind one lock (no handler holds it across an await), and the layout every
/// screen is drawn in.
pub(crate) struct Shared {
    store: Mutex<Store>,
    /// The layout the app serves, fixed for its lifetime.
    pub(crate) layout: Layout,
}

impl Shared {
    /// A fresh state with the seeded data, drawn in `layout`.
    pub(crate) fn seeded(layout: Layout) -> AppState {
        Arc::new(Shared {
            store: Mutex::new(Store::seed()),
            layout,
        })
    }

    /// The store; a panic in another handler does not make it unusable.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Everything the demo app remembers.
pub(crate) struct Store {
    pub(crate) claims: Vec<Claim>,
    pub(crate) orders: Vec<Order>,
    pub(crate) accounts: Vec<Account>,
    pub(crate) jobs: Vec<Job>,
    pub(crate) returns: Vec<ReturnRequest>,
    pub(crate) saves: u64,
    pub(crate) by_form: BTreeMap<&'static str, u64>,
}

impl Store {
    /// Counts one state-changing POST, under the anchor of the control that submits it.
    pub(crate) fn record_save(&mut self, form: &'static str) {
        self.saves += 1;
        *self.by_form.entry(form).or_default() += 1;
    }

    fn seed() -> Store {
        Store {
            claims: seed::claims(),
            orders: seed::orders(),
            accounts: seed::accounts(),
            jobs: seed::jobs(),
            returns: Vec::new(),
            saves: 0,
            by_form: BTreeMap::new(),
        }
    }
}

/// Where a claim is in review.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClaimStatus {
    Open,
    Approved,
    Rejected,
}

impl ClaimStatus {
    pub(crate) fn label(self) -> &'static str {
        match self {
            ClaimStatus::Open => "Open",
            ClaimStatus::Approved => "Approved",
            ClaimStatus::Rejected => "Rejected",
        }
    }
}

/// An insurance claim awaiting review.
pub(crate) struct Claim {
    pub(crate) id: u32,
    pub(crate) claimant: String,
    pub(crate) policy: String,
    pub(crate) amount_cents: u64,
    pub(crate) filed: &'static str,
    pub(crate) status: ClaimStatus,
    pub(crate) note: String,
    pub(crate) reject_reason: String,
}

/// The customers an order can be for: (form value, name).
pub(crate) const CUSTOMERS: [(&str, &str); 3] = [
    ("northwind", "Northwind Traders"),
    ("contoso", "Contoso Ltd"),
    ("globex", "Globex Corporation"),
];

/// Whether a sales order was sent.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum OrderStatus {
    Draft,
    Submitted,
}

impl OrderStatus {
    pub(crate) fn label(self) -> &'static str {
        match self {
            OrderStatus::Draft => "Draft",
            OrderStatus::Submitted => "Submitted",
        }
    }
}

/// A sales order with its lines.
pub(crate) struct Order {
    pub(crate) id: u32,
    pub(crate) customer: &'static str,
    pub(crate) po_number: String,
    pub(crate) delivery_date: String,
    pub(crate) status: OrderStatus,
    pub(crate) lines: Vec<OrderLine>,
}

impl Order {
    pub(crate) fn customer_name(&self) -> &'static str {
        CUSTOMERS
            .iter()
            .find(|(value, _)| *value == self.customer)
            .map_or("Unknown customer", |(_, name)| name)
    }

    pub(crate) fn total_cents(&self) -> u64 {
        self.lines
            .iter()
            .map(|l| u64::from(l.qty) * l.unit_cents)
            .sum()
    }
}

/// One line of a sales order; `no` is its key on screen.
pub(crate) struct OrderLine {
    pub(crate) no: u32,
    pub(crate) sku: String,
    pub(crate) description: String,
    pub(crate) qty: u32,
    pub(crate) unit_cents: u64,
}

/// A customer account with its pricing history.
pub(crate) struct Account {
    pub(crate) id: u32,
    pub(crate) name: &'static str,
    pub(crate) city: &'static str,
    pub(crate) rules: Vec<PricingRule>,
}

impl Account {
    /// The rate of the latest rule, as entered.
    pub(crate) fn current_rate(&self) -> &str {
        self.rules.last().map_or("0", |r| r.rate.as_str())
    }
}

/// One discount rate, effective from a date.
pub(crate) struct PricingRule {
    pub(crate) effective: String,
    pub(crate) rate: String,
    pub(crate) currency: String,
    pub(crate) set_by: String,
}

/// The drivers a job can go to: (form value, name).
pub(crate) const DRIVERS: [(&str, &str); 4] = [
    ("ana", "Ana Silva"),
    ("ben", "Ben Carter"),
    ("chloe", "Chloe Martin"),
    ("dev", "Dev Patel"),
];

/// The two days the dispatch board shows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Day {
    Today,
    Tomorrow,
}

impl Day {
    pub(crate) fn value(self) -> &'static str {
        match self {
            Day::Today => "today",
            Day::Tomorrow => "tomorrow",
        }
    }

    pub(crate) fn parse(s: &str) -> Option<Day> {
        match s {
            "today" => Some(Day::Today),
            "tomorrow" => Some(Day::Tomorrow),
            _ => None,
        }
    }
}

/// A field-service job on the dispatch board.
pub(crate) struct Job {
    pub(crate) id: &'static str,
    pub(crate) title: &'static str,
    pub(crate) window: &'static str,
    pub(crate) day: Day,
    pub(crate) driver: Option<&'static str>,
}

/// A submitted return request.
pub(crate) struct ReturnRequest {
    pub(crate) id: u32,
    pub(crate) order_number: String,
    pub(crate) reason: String,
    pub(crate) detail: String,
    pub(crate) condition: String,
    pub(crate) refund_method: String,
}

/// The first return request's number.
pub(crate) const FIRST_RETURN: u32 = 5001;

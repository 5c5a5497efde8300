//! In-memory server state of the demo app, seeded fresh on every start, with the save
//! counter that tests read to prove a form was (or was not) submitted.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The state every handler shares.
pub(crate) type AppState = Arc<Shared>;

/// The store behind one lock; no handler holds it across an await.
pub(crate) struct Shared {
    store: Mutex<Store>,
}

impl Shared {
    /// A fresh state with the seeded data.
    pub(crate) fn seeded() -> AppState {
        Arc::new(Shared {
            store: Mutex::new(Store::seed()),
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
            claims: seed_claims(),
            orders: seed_orders(),
            accounts: seed_accounts(),
            jobs: seed_jobs(),
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

fn seed_claims() -> Vec<Claim> {
    let rows: [(&str, &str, u64, ClaimStatus); 10] = [
        ("Maria Keller", "POL-88120", 125_050, ClaimStatus::Open),
        ("Tom Becker", "POL-88134", 48_000, ClaimStatus::Approved),
        ("Aisha Rahman", "POL-88197", 312_075, ClaimStatus::Open),
        ("Jonas Weber", "POL-88203", 9_990, ClaimStatus::Open),
        ("Li Wei", "POL-88240", 760_000, ClaimStatus::Open),
        ("Sofia Rossi", "POL-88251", 21_500, ClaimStatus::Rejected),
        ("Daniel O'Brien", "POL-88266", 154_320, ClaimStatus::Open),
        ("Emma Schmidt", "POL-88302", 67_800, ClaimStatus::Open),
        ("Noah Fischer", "POL-88317", 230_000, ClaimStatus::Approved),
        ("Olivia Brown", "POL-88345", 39_900, ClaimStatus::Open),
    ];
    let filed = [
        "2024-05-02",
        "2024-05-03",
        "2024-05-06",
        "2024-05-06",
        "2024-05-08",
        "2024-05-09",
        "2024-05-13",
        "2024-05-14",
        "2024-05-15",
        "2024-05-17",
    ];
    rows.into_iter()
        .zip(filed)
        .zip(1040..)
        .map(
            |(((claimant, policy, amount_cents, status), filed), id)| Claim {
                id,
                claimant: claimant.into(),
                policy: policy.into(),
                amount_cents,
                filed,
                status,
                note: String::new(),
                reject_reason: String::new(),
            },
        )
        .collect()
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

fn line(no: u32, sku: &str, description: &str, qty: u32, unit_cents: u64) -> OrderLine {
    OrderLine {
        no,
        sku: sku.into(),
        description: description.into(),
        qty,
        unit_cents,
    }
}

fn seed_orders() -> Vec<Order> {
    vec![
        Order {
            id: 41,
            customer: "contoso",
            po_number: "PO-77120".into(),
            delivery_date: "2024-07-08".into(),
            status: OrderStatus::Draft,
            lines: vec![line(1, "SKU-10442", "Office chair, mesh", 4, 18_900)],
        },
        Order {
            id: 42,
            customer: "northwind",
            po_number: String::new(),
            delivery_date: "2024-07-15".into(),
            status: OrderStatus::Draft,
            lines: vec![
                line(1, "SKU-20115", "Copy paper A4, 5 reams", 10, 2_450),
                line(2, "SKU-20871", "Toner cartridge, black", 3, 8_990),
                line(3, "SKU-31004", "Desk lamp, LED", 2, 3_475),
            ],
        },
        Order {
            id: 43,
            customer: "globex",
            po_number: "GX-4471".into(),
            delivery_date: "2024-07-22".into(),
            status: OrderStatus::Draft,
            lines: vec![
                line(1, "SKU-50210", "Standing desk frame", 2, 42_000),
                line(2, "SKU-50233", "Desk top, oak 160 cm", 2, 21_500),
            ],
        },
    ]
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

fn rule(effective: &str, rate: &str, currency: &str, set_by: &str) -> PricingRule {
    PricingRule {
        effective: effective.into(),
        rate: rate.into(),
        currency: currency.into(),
        set_by: set_by.into(),
    }
}

fn seed_accounts() -> Vec<Account> {
    vec![
        Account {
            id: 7,
            name: "Northwind Traders",
            city: "Seattle",
            rules: vec![
                rule("2023-01-01", "3.5", "EUR", "R. Novak"),
                rule("2024-01-01", "4.5", "EUR", "R. Novak"),
            ],
        },
        Account {
            id: 12,
            name: "Contoso Ltd",
            city: "London",
            rules: vec![rule("2023-07-01", "2.0", "GBP", "M. Patel")],
        },
        Account {
            id: 31,
            name: "Globex Corporation",
            city: "Springfield",
            rules: vec![
                rule("2022-04-01", "5.0", "USD", "A. Lopez"),
                rule("2023-04-01", "5.5", "USD", "A. Lopez"),
                rule("2024-04-01", "6.0", "USD", "J. Doe"),
            ],
        },
    ]
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

fn seed_jobs() -> Vec<Job> {
    let job = |id, title, window, day, driver| Job {
        id,
        title,
        window,
        day,
        driver,
    };
    use Day::{Today, Tomorrow};
    vec![
        job(
            "J-101",
            "Leak repair, 3 Mill Lane",
            "08:00–10:00",
            Today,
            None,
        ),
        job(
            "J-102",
            "Meter reading, 88 High St",
            "13:00–15:00",
            Today,
            None,
        ),
        job(
            "J-103",
            "Radiator swap, 5 Oak Rd",
            "08:00–11:00",
            Today,
            Some("ana"),
        ),
        job(
            "J-104",
            "Gas safety check, 19 Park Ave",
            "10:00–12:00",
            Today,
            Some("ben"),
        ),
        job(
            "J-105",
            "Thermostat install, 7 Bay Ct",
            "14:00–16:00",
            Today,
            Some("ana"),
        ),
        job(
            "J-201",
            "Boiler service, 14 Elm St",
            "08:00–10:00",
            Tomorrow,
            None,
        ),
        job(
            "J-202",
            "Pipe inspection, 2 River Walk",
            "09:00–11:00",
            Tomorrow,
            None,
        ),
        job(
            "J-203",
            "Heat pump survey, 41 Hill Rd",
            "10:00–13:00",
            Tomorrow,
            None,
        ),
        job(
            "J-204",
            "Boiler repair, 9 Station Sq",
            "12:00–14:00",
            Tomorrow,
            None,
        ),
        job(
            "J-205",
            "Valve replacement, 60 Kings Way",
            "13:00–15:00",
            Tomorrow,
            None,
        ),
        job(
            "J-206",
            "Annual service, 27 Church St",
            "15:00–17:00",
            Tomorrow,
            None,
        ),
        job(
            "J-207",
            "Tank flush, 11 Green Ln",
            "08:00–09:30",
            Tomorrow,
            Some("ana"),
        ),
        job(
            "J-208",
            "Filter change, 4 Quay St",
            "09:00–10:00",
            Tomorrow,
            Some("ben"),
        ),
        job(
            "J-209",
            "Pressure test, 33 Mill Rd",
            "11:00–12:30",
            Tomorrow,
            Some("chloe"),
        ),
    ]
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

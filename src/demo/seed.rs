//! The data every fresh demo app starts with: ten claims, three orders, three accounts
//! and a day's worth of dispatch jobs for today and tomorrow.

use super::state::{
    Account, Claim, ClaimStatus, Day, Job, Order, OrderLine, OrderStatus, PricingRule,
};

/// Claims 1040..=1049, most of them open.
pub(crate) fn claims() -> Vec<Claim> {
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

fn line(no: u32, sku: &str, description: &str, qty: u32, unit_cents: u64) -> OrderLine {
    OrderLine {
        no,
        sku: sku.into(),
        description: description.into(),
        qty,
        unit_cents,
    }
}

/// Draft orders 41, 42 and 43.
pub(crate) fn orders() -> Vec<Order> {
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

fn rule(effective: &str, rate: &str, currency: &str, set_by: &str) -> PricingRule {
    PricingRule {
        effective: effective.into(),
        rate: rate.into(),
        currency: currency.into(),
        set_by: set_by.into(),
    }
}

/// Accounts 7, 12 and 31 with their rate history.
pub(crate) fn accounts() -> Vec<Account> {
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

/// Jobs `J-1xx` for today and `J-2xx` for tomorrow; some already have a driver.
pub(crate) fn jobs() -> Vec<Job> {
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

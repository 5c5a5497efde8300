//! `waymark profile import-cookies`: a person brings one domain's cookies from their own
//! browser's export into a profile. Names and counts are printed, never a value.

use std::path::Path;

use crate::control::cookies::Profile;
use crate::exit::Exit;

/// Imports `domain`'s cookies from the export at `from` into `profile` under `home`; the
/// exit code.
pub fn import_cookies(home: Option<&Path>, profile: &str, domain: &str, from: &Path) -> Exit {
    let imported = Profile::named(home, profile).and_then(|p| p.import_cookies(domain, from));
    match imported {
        Ok(report) => {
            crate::out::outln!("{report}");
            Exit::Passed
        }
        Err(e) => {
            eprintln!("error: {e}");
            e.exit()
        }
    }
}

//! The browser context flags (`--http-credentials`, `--header`, `--locale`, `--timezone`):
//! what every tab of every journey tells the app about the person, set before its first
//! request. Credentials and header values are secrets: neither is ever printed.

use clap::Args;

use crate::browser::{ContextSettings, Credentials, ExtraHeaders};

/// What every journey's browser context says.
#[derive(Debug, Clone, Args)]
pub(crate) struct ContextFlags {
    /// Answer servers' HTTP authentication challenges (basic, digest) with USER:PASS.
    #[arg(long, global = true, env = "WAYMARK_HTTP_CREDENTIALS", value_name = "USER:PASS",
          value_parser = credentials, hide_env_values = true, help_heading = "Browser context")]
    http_credentials: Option<Credentials>,
    /// A header every request carries, as "Name: value" (given as often as needed;
    /// WAYMARK_HEADER takes one a line).
    #[arg(long = "header", global = true, env = "WAYMARK_HEADER", value_name = "NAME: VALUE",
          value_parser = header, value_delimiter = '\n', hide_env_values = true,
          help_heading = "Browser context")]
    headers: Vec<(String, String)>,
    /// The locale pages see (`navigator.language`, `Intl`, `Accept-Language`), e.g. `de-DE`.
    #[arg(
        long,
        global = true,
        env = "WAYMARK_LOCALE",
        value_name = "LOCALE",
        help_heading = "Browser context"
    )]
    locale: Option<String>,
    /// The time zone pages see (`Date`, `Intl`), e.g. `Europe/Berlin`.
    #[arg(
        long,
        global = true,
        env = "WAYMARK_TIMEZONE",
        value_name = "ZONE",
        help_heading = "Browser context"
    )]
    timezone: Option<String>,
}

impl ContextFlags {
    /// The context settings they make.
    pub(crate) fn settings(&self) -> ContextSettings {
        ContextSettings {
            credentials: self.http_credentials.clone(),
            headers: ExtraHeaders(self.headers.clone()),
            locale: self.locale.clone(),
            timezone: self.timezone.clone(),
        }
    }
}

/// `USER:PASS` (the password may hold colons); the error never repeats it.
fn credentials(text: &str) -> Result<Credentials, String> {
    match text.split_once(':') {
        Some((user, pass)) if !user.is_empty() => Ok(Credentials {
            user: user.to_string(),
            pass: pass.to_string(),
        }),
        _ => Err("give the credentials as USER:PASS".to_string()),
    }
}

/// `Name: value`; the error names the header, never its value.
fn header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once(':')
        .ok_or("give a header as \"Name: value\"")?;
    let name = name.trim();
    let token = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    if !token {
        return Err("give a header as \"Name: value\", its name a token (`X-Tenant`)".into());
    }
    Ok((name.to_string(), value.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_headers_are_read_and_their_errors_repeat_no_secret() {
        let c = credentials("ada:pa:ss").unwrap();
        assert_eq!((c.user.as_str(), c.pass.as_str()), ("ada", "pa:ss"));
        assert!(
            !credentials("nocolon-secret")
                .unwrap_err()
                .contains("secret")
        );
        assert_eq!(
            header("X-Tenant:  acme ").unwrap(),
            ("X-Tenant".to_string(), "acme".to_string())
        );
        assert!(!header("Bad Name: hidden").unwrap_err().contains("hidden"));
    }
}

//! The exports a person's browser can give: Netscape `cookies.txt` and JSON arrays, read
//! into [`Cookie`]s. Errors say where (file, line or entry) and what, and never quote the
//! file: any field of a malformed line may hold a value.

use serde_json::Value;

use super::{Cookie, CookieError, SameSite};

/// Every cookie of an export: JSON when it starts with `[` or `{`, else Netscape.
pub(super) fn parse(file: &str, text: &str) -> Result<Vec<Cookie>, CookieError> {
    let text = text.trim_start_matches('\u{feff}');
    match text.trim_start().chars().next() {
        Some('[' | '{') => parse_json(file, text),
        _ => parse_netscape(file, text),
    }
}

/// A cookie's domain as exported: host-only unless it had a leading dot (or said so).
fn normalized(domain: &str) -> (String, bool) {
    let lower = domain.trim().to_ascii_lowercase();
    match lower.strip_prefix('.') {
        Some(rest) => (rest.to_string(), false),
        None => (lower, true),
    }
}

/// Netscape `cookies.txt` (curl, wget, browser extensions): per line, seven fields separated
/// by tabs — domain, include-subdomains, path, secure, expiry, name, value. `#HttpOnly_`
/// before the domain marks an HttpOnly cookie; other `#` lines are comments.
fn parse_netscape(file: &str, text: &str) -> Result<Vec<Cookie>, CookieError> {
    let mut cookies = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        let (line, http_only) = match line.strip_prefix("#HttpOnly_") {
            Some(rest) => (rest, true),
            None => (line, false),
        };
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        // Messages name fields by position, never quote them: a malformed line may hold
        // a value anywhere.
        let bad = |why: String| CookieError::Format {
            file: file.to_string(),
            place: (index + 1).to_string(),
            why,
        };
        let fields: Vec<&str> = line.splitn(7, '\t').collect();
        let [domain, subdomains, path, secure, expiry, name, value] = fields[..] else {
            return Err(bad(format!(
                "expected 7 tab-separated fields, found {}",
                fields.len()
            )));
        };
        let flag = |field: &str, what: &str| match field {
            "TRUE" => Ok(true),
            "FALSE" => Ok(false),
            _ => Err(bad(format!("field {what} must be `TRUE` or `FALSE`"))),
        };
        let include_subdomains = flag(subdomains, "2 (include subdomains)")?;
        let secure = flag(secure, "4 (secure)")?;
        let expiry: f64 = expiry
            .trim()
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite())
            .ok_or_else(|| bad("field 5 (expiry) must be seconds since 1970".into()))?;
        let (domain, _) = normalized(domain);
        if domain.is_empty() || name.is_empty() {
            return Err(bad(
                "the domain (field 1) and name (field 6) must not be empty".into(),
            ));
        }
        cookies.push(Cookie {
            name: name.to_string(),
            value: value.to_string(),
            domain,
            host_only: !include_subdomains,
            path: if path.is_empty() {
                "/".into()
            } else {
                path.to_string()
            },
            secure,
            http_only,
            expires: (expiry > 0.0).then_some(expiry),
            same_site: None,
        });
    }
    Ok(cookies)
}

/// A JSON export: an array of `{name, value, domain, path, secure, httpOnly,
/// expirationDate | expires, hostOnly?, session?, sameSite?}` (Cookie-Editor, EditThisCookie,
/// DevTools), or an object with such a `cookies` array (Playwright's storage state).
fn parse_json(file: &str, text: &str) -> Result<Vec<Cookie>, CookieError> {
    // Parsed to a `Value` first: its syntax errors say where, never what; a typed
    // deserializer's data errors could quote a value.
    let json: Value = serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        let why = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(why, _)| why);
        CookieError::Format {
            file: file.to_string(),
            place: format!("{}:{}", e.line(), e.column()),
            why: format!("not valid JSON: {why}"),
        }
    })?;
    let entries = match &json {
        Value::Array(entries) => Some(entries),
        Value::Object(o) => match o.get("cookies") {
            Some(Value::Array(entries)) => Some(entries),
            _ => None,
        },
        _ => None,
    }
    .ok_or_else(|| CookieError::Format {
        file: file.to_string(),
        place: "1".into(),
        why: "expected an array of cookies, or an object with a `cookies` array".into(),
    })?;
    entries
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            json_cookie(entry).map_err(|why| CookieError::Format {
                file: file.to_string(),
                place: format!("entry {}", i + 1),
                why,
            })
        })
        .collect()
}

fn json_cookie(entry: &Value) -> Result<Cookie, String> {
    let Value::Object(o) = entry else {
        return Err("expected an object".into());
    };
    let text = |key: &str| match o.get(key) {
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        None | Some(Value::Null) => Ok(None),
        Some(_) => Err(format!("`{key}` must be a string")),
    };
    let flag = |key: &str| match o.get(key) {
        Some(Value::Bool(b)) => Ok(Some(*b)),
        None | Some(Value::Null) => Ok(None),
        Some(_) => Err(format!("`{key}` must be true or false")),
    };
    let number = |key: &str| match o.get(key) {
        Some(Value::Number(n)) => Ok(n.as_f64()),
        None | Some(Value::Null) => Ok(None),
        Some(_) => Err(format!("`{key}` must be a number of seconds since 1970")),
    };
    let name = text("name")?.ok_or("`name` is missing")?;
    let value = text("value")?.ok_or("`value` is missing")?;
    let domain = text("domain")?.ok_or("`domain` is missing")?;
    let (domain, dotless) = normalized(domain);
    if domain.is_empty() || name.is_empty() {
        return Err("`domain` and `name` must not be empty".into());
    }
    let expires = match number("expirationDate")? {
        Some(t) => Some(t),
        None => number("expires")?,
    };
    let session = flag("session")?.unwrap_or(false);
    let same_site = match text("sameSite")?.map(str::to_ascii_lowercase).as_deref() {
        Some("strict") => Some(SameSite::Strict),
        Some("lax") => Some(SameSite::Lax),
        Some("none" | "no_restriction") => Some(SameSite::None),
        _ => None,
    };
    Ok(Cookie {
        name: name.to_string(),
        value: value.to_string(),
        domain,
        host_only: flag("hostOnly")?.unwrap_or(dotless),
        path: text("path")?.unwrap_or("/").to_string(),
        secure: flag("secure")?.unwrap_or(false),
        http_only: flag("httpOnly")?.unwrap_or(false),
        // Playwright writes -1 for a session cookie.
        expires: expires.filter(|t| !session && *t > 0.0),
        same_site,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "s3cr3t-value";

    #[test]
    fn netscape_lines_parse_with_httponly_comments_and_crlf() {
        let text = format!(
            "# Netscape HTTP Cookie File\r\n\r\n.example.com\tTRUE\t/\tFALSE\t0\tsid\t{SECRET}\r\n#HttpOnly_app.example.com\tFALSE\t/x\tTRUE\t4102444800\ttok\t\r\n"
        );
        let cookies = parse("cookies.txt", &text).unwrap();
        assert_eq!(cookies.len(), 2);
        assert_eq!(cookies[0].domain, "example.com");
        assert!(!cookies[0].host_only && cookies[0].expires.is_none());
        assert!(cookies[1].http_only && cookies[1].secure && cookies[1].host_only);
        assert_eq!(cookies[1].value, "");
        assert!(
            !format!("{cookies:?}").contains(SECRET),
            "Debug redacts values"
        );
    }

    #[test]
    fn a_bad_line_names_file_line_and_field_never_its_content() {
        let text = format!("a.com\tTRUE\t/\n\nb.com\tYES\t/\tFALSE\t0\tn\t{SECRET}\n");
        let e = parse("cookies.txt", &text).unwrap_err().to_string();
        assert_eq!(e, "cookies.txt:1: expected 7 tab-separated fields, found 3");
        let e = parse("c.txt", &text[text.find("b.com").unwrap()..])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("c.txt:1: field 2"), "{e}");
        let e = parse("c.txt", &format!("b.com\tTRUE\t/\tFALSE\t{SECRET}\tn\tv\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("field 5") && !e.contains(SECRET), "{e}");
    }

    #[test]
    fn json_exports_parse_and_their_errors_quote_no_value() {
        let text = format!(
            r#"[{{"name":"sid","value":"{SECRET}","domain":".example.com","path":"/","secure":true,"httpOnly":true,"expirationDate":4102444800.5,"sameSite":"no_restriction"}},
               {{"name":"s","value":"v","domain":"example.com","session":true,"expirationDate":1}}]"#
        );
        let cookies = parse("c.json", &text).unwrap();
        assert_eq!(cookies[0].same_site, Some(SameSite::None));
        assert!(!cookies[0].host_only && cookies[0].expires.is_some());
        assert!(cookies[1].host_only && cookies[1].expires.is_none());
        let state = r#"{"cookies":[{"name":"a","value":"b","domain":"x.org","expires":-1}]}"#;
        assert_eq!(parse("state.json", state).unwrap().len(), 1);
        let wrong = format!(r#"[{{"name":"a","value":"v","domain":"x.org","secure":"{SECRET}"}}]"#);
        let e = parse("c.json", &wrong).unwrap_err().to_string();
        assert_eq!(e, "c.json:entry 1: `secure` must be true or false");
        let broken = format!(r#"[{{"name":"a","value":"{SECRET}"#);
        let e = parse("c.json", &broken).unwrap_err().to_string();
        assert!(e.starts_with("c.json:1:") && !e.contains(SECRET), "{e}");
    }
}

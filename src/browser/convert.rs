//! What crosses between our types and CDP's by value: a profile's cookie as CDP sets it,
//! and CDP's base64 of binary results.

use std::net::IpAddr;

use chromiumoxide::cdp::browser_protocol::network::{CookieParam, CookieSameSite, TimeSinceEpoch};

use crate::protocol::{Cookie, SameSite};

/// A profile's cookie as CDP takes it.
pub(super) fn cookie_param(cookie: &Cookie) -> CookieParam {
    let (url, domain) = cdp_url_or_domain(cookie);
    let mut param = CookieParam::new(cookie.name.clone(), cookie.value.clone());
    param.url = url;
    param.domain = domain;
    param.path = Some(cookie.path.clone());
    param.secure = Some(cookie.secure);
    param.http_only = Some(cookie.http_only);
    param.expires = cookie.expires.map(TimeSinceEpoch::new);
    param.same_site = cookie.same_site.map(|s| match s {
        SameSite::Strict => CookieSameSite::Strict,
        SameSite::Lax => CookieSameSite::Lax,
        SameSite::None => CookieSameSite::None,
    });
    param
}

/// A cookie as Chromium's CDP takes it: host-only cookies by URL (a `domain` would make
/// them domain cookies), others by a dotted domain.
fn cdp_url_or_domain(cookie: &Cookie) -> (Option<String>, Option<String>) {
    let is_ip = cookie.domain.parse::<IpAddr>().is_ok();
    if cookie.host_only || is_ip {
        let scheme = if cookie.secure { "https" } else { "http" };
        (
            Some(format!("{scheme}://{}{}", cookie.domain, cookie.path)),
            None,
        )
    } else {
        (None, Some(format!(".{}", cookie.domain)))
    }
}

/// Decodes standard base64 (CDP's encoding of binary results); `None` when it is not.
/// Lenient as CDP's readers are: padding is optional and unused trailing bits are ignored.
pub(super) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    LENIENT.decode(text).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_decodes_padded_and_unpadded_and_refuses_other_text() {
        assert_eq!(
            super::base64_decode("iVBORw0KGgo=").unwrap(),
            b"\x89PNG\r\n\x1a\n"
        );
        assert_eq!(super::base64_decode("YQ==").unwrap(), b"a");
        assert_eq!(super::base64_decode("YWI").unwrap(), b"ab");
        assert_eq!(super::base64_decode("").unwrap(), b"");
        assert!(super::base64_decode("a$b=").is_none());
        assert!(super::base64_decode("YWJjZ").is_none());
    }
}

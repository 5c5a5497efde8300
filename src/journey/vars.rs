//! The journey's variables: values a run gives its scripts (`--var NAME=VALUE`,
//! `WAYMARK_VAR_NAME`, and `--secret-var NAME=VALUE` for those never to be written down),
//! resolved once with the other settings and read by `var("NAME")`. A secret variable's
//! value is redacted wherever a secret field's value is (the trace, and so the reports; what
//! a script prints).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::protocol::ErrorCode;

use crate::tools::trace::redact;

/// The variables of a run, by name; which of them are secret.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vars {
    values: BTreeMap<String, String>,
    secret: BTreeSet<String>,
}

impl Vars {
    /// The variables from the environment's `WAYMARK_VAR_*` (by the name after the prefix),
    /// then `--var`, then `--secret-var`, each later one winning over an earlier of the
    /// same name (a flag over the environment, as for every setting).
    pub fn resolve(
        env: &BTreeMap<String, String>,
        given: &[(String, String)],
        secret: &[(String, String)],
    ) -> Vars {
        let mut vars = Vars::default();
        for (name, value) in env.iter().chain(given.iter().map(|(n, v)| (n, v))) {
            vars.secret.remove(name);
            vars.values.insert(name.clone(), value.clone());
        }
        for (name, value) in secret {
            vars.secret.insert(name.clone());
            vars.values.insert(name.clone(), value.clone());
        }
        vars
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// The names there are, for a message naming them (never their values).
    pub fn names(&self) -> Vec<&str> {
        self.values.keys().map(String::as_str).collect()
    }

    /// The values of the secret variables (an empty one hides nothing), longest first, so
    /// that one holding another is redacted whole.
    pub fn secret_values(&self) -> Vec<String> {
        let mut values: Vec<String> = self
            .secret
            .iter()
            .filter_map(|name| self.values.get(name))
            .filter(|v| !v.is_empty())
            .cloned()
            .collect();
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values
    }

    /// `text` with every secret value in it replaced by [`REDACTED`].
    pub fn redact(&self, text: &str) -> String {
        redact(text, &self.secret_values())
    }
}

/// Registers `var(name)`, `var_or(name, default)` and `base_url()`. An unknown variable
/// without a default fails the journey with `invalid_argument`, naming those there are.
/// `var` is one of Rhai's reserved keywords, so `var(…)` is a syntax of its own rather than
/// a function.
pub(super) fn register_vars(engine: &mut rhai::Engine, vars: &Arc<Vars>, base: &url::Url) {
    register_var(engine, Arc::clone(vars));
    let v = Arc::clone(vars);
    engine.register_fn("var_or", move |name: &str, default: &str| {
        v.get(name).unwrap_or(default).to_string()
    });
    let base = base.as_str().to_string();
    engine.register_fn("base_url", move || base.clone());
}

/// Registers `var(name)`, reading `v`.
pub(super) fn register_var(engine: &mut rhai::Engine, v: Arc<Vars>) {
    let registered = engine.register_custom_syntax(
        ["var", "(", "$expr$", ")"],
        false,
        move |context, inputs| {
            let name = context.eval_expression_tree(&inputs[0])?;
            let name = name.into_string().map_err(|t| {
                super::engine::fail_map(
                    ErrorCode::InvalidArgument,
                    &format!("`var` takes a variable's name, not a {t}"),
                )
            })?;
            v.get(&name).map(|value| value.to_string().into()).ok_or_else(|| {
                let names = v.names().join(", ");
                let known = if names.is_empty() {
                    "none is set".to_string()
                } else {
                    format!("those set: {names}")
                };
                super::engine::fail_map(
                    ErrorCode::InvalidArgument,
                    &format!(
                        "no variable `{0}`: give it with `--var {0}=VALUE` or `WAYMARK_VAR_{0}` ({known})",
                        crate::protocol::quoted(&name)
                    ),
                )
            })
        },
    );
    // The syntax is fixed and valid: registering it cannot fail.
    debug_assert!(registered.is_ok());
}

/// `NAME=VALUE` as a variable, or why not: a name is letters, digits and `_`, not starting
/// with a digit.
pub fn parse_var(given: &str) -> Result<(String, String), String> {
    let (name, value) = given
        .split_once('=')
        .ok_or_else(|| format!("`{given}` is not NAME=VALUE"))?;
    let named = name.chars().next().is_some_and(|c| !c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !named {
        return Err(format!(
            "`{name}` is not a variable's name: letters, digits and `_`, not starting with a digit"
        ));
    }
    Ok((name.to_string(), value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_the_environment_and_a_secret_is_redacted_whole() {
        let env = BTreeMap::from([
            ("USER".to_string(), "env-user".to_string()),
            ("REGION".to_string(), "eu".to_string()),
        ]);
        let given = [parse_var("USER=ada").unwrap()];
        let secret = [
            parse_var("PASSWORD=hunter2").unwrap(),
            parse_var("PIN=hunter").unwrap(),
        ];
        let vars = Vars::resolve(&env, &given, &secret);
        assert_eq!(vars.get("USER"), Some("ada"));
        assert_eq!(vars.get("REGION"), Some("eu"));
        assert_eq!(vars.get("NOPE"), None);
        assert_eq!(vars.names(), ["PASSWORD", "PIN", "REGION", "USER"]);
        assert_eq!(
            vars.redact("typed hunter2 then hunter, as ada"),
            "typed [redacted] then [redacted], as ada"
        );
        assert!(parse_var("A-B=1").is_err());
        assert!(parse_var("1A=1").is_err());
        assert!(parse_var("NOEQUALS").is_err());
        assert_eq!(parse_var("A=b=c").unwrap(), ("A".into(), "b=c".into()));
    }
}

//! The classes of action (docs/design.md's `read`, `navigate`, `act`, `type`, `pause`, `end`):
//! what an allowed set permits and a guardrail rule names.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// What kind of move an action is; the allowed set is a set of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionClass {
    /// Reading the screen.
    Read,
    /// Opening a route.
    Navigate,
    /// Pressing a control or a key on it (`invoke`, `press`).
    Act,
    /// Typing into a field (`fill`).
    Type,
    /// Waiting, or handing the tab to a person.
    Pause,
    /// Finishing the journey.
    End,
}

impl ActionClass {
    /// Every class, in the order they are listed.
    pub const ALL: [ActionClass; 6] = [
        ActionClass::Read,
        ActionClass::Navigate,
        ActionClass::Act,
        ActionClass::Type,
        ActionClass::Pause,
        ActionClass::End,
    ];

    /// The class as written in scripts and traces (`act`).
    pub fn as_str(self) -> &'static str {
        match self {
            ActionClass::Read => "read",
            ActionClass::Navigate => "navigate",
            ActionClass::Act => "act",
            ActionClass::Type => "type",
            ActionClass::Pause => "pause",
            ActionClass::End => "end",
        }
    }

    pub(crate) fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for ActionClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not an action class.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an action class (classes: read, navigate, act, type, pause, end)")]
pub struct UnknownClass(pub String);

impl FromStr for ActionClass {
    type Err = UnknownClass;

    fn from_str(s: &str) -> Result<ActionClass, UnknownClass> {
        ActionClass::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownClass(s.to_string()))
    }
}

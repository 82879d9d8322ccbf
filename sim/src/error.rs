//! Configuration errors: every impossible value is reported with the name of
//! the field that holds it.

use std::fmt;

/// An invalid configuration value, naming the offending field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted field name as written in a config file, e.g. `counter_bank.rows`.
    pub field: String,
    /// What is wrong and what would be accepted.
    pub message: String,
}

impl ConfigError {
    /// An error about `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self { field: field.into(), message: message.into() }
    }

    /// The same error for a field nested under `outer` (`outer.field`).
    pub fn within(self, outer: &str) -> Self {
        Self { field: format!("{outer}.{}", self.field), message: self.message }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid config: `{}`: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Checks that `value` is one of `allowed`, naming `field` otherwise.
pub fn check_one_of(field: &str, value: usize, allowed: &[usize]) -> Result<(), ConfigError> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        let list: Vec<String> = allowed.iter().map(|v| v.to_string()).collect();
        Err(ConfigError::new(field, format!("{value} is not supported; supported: {}", list.join(", "))))
    }
}

/// Reads a config file (TOML, or JSON when the name ends in `.json`) into `T`.
/// Unknown fields are errors, so a typo never silently falls back to a default.
pub fn load_config<T: serde::de::DeserializeOwned>(path: &std::path::Path) -> Result<T, ConfigError> {
    let field = path.display().to_string();
    let text = crate::files::read_input_text(path).map_err(|e| ConfigError::new(field.clone(), e))?;
    if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(&text).map_err(|e| ConfigError::new(field, format!("bad JSON: {e}")))
    } else {
        toml::from_str(&text).map_err(|e| ConfigError::new(field, format!("bad TOML: {e}")))
    }
}

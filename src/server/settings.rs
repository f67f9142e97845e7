//! What the client says in `initializationOptions`, each with its default:
//!
//! ```json
//! { "refusals": true, "debounceMs": 300, "args": ["--target", "cl3.0"] }
//! ```
//!
//! `refusals`: show why a declaration stays (a reason code; `suppressed`,
//! what `// clasp: keep` asked for, never). `debounceMs`: how long after an
//! edit the file is analysed again. `args`: `clasp migrate` options for every
//! analysis (`--target`, `-D`, `--compile-commands FILE`, `--config FILE`, ...),
//! resolved as on the command line from the server's working directory (the
//! workspace's root, as editors start it).

use std::time::Duration;

/// The server's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub refusals: bool,
    pub debounce: Duration,
    pub args: Vec<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { refusals: true, debounce: Duration::from_millis(300), args: Vec::new() }
    }
}

impl Settings {
    /// The settings `initializationOptions` gives (absent or `null`: the
    /// defaults), or what is wrong with them.
    pub fn from_options(options: Option<&serde_json::Value>) -> Result<Settings, String> {
        let mut settings = Settings::default();
        let Some(options) = options.filter(|o| !o.is_null()) else { return Ok(settings) };
        let object = options.as_object().ok_or("initializationOptions must be an object")?;
        for (key, value) in object {
            match key.as_str() {
                "refusals" => settings.refusals = value.as_bool().ok_or("`refusals` must be true or false")?,
                "debounceMs" => {
                    let ms = value.as_u64().ok_or("`debounceMs` must be a number of milliseconds")?;
                    settings.debounce = Duration::from_millis(ms);
                }
                "args" => {
                    let words = value.as_array().ok_or("`args` must be a list of strings")?;
                    settings.args = words
                        .iter()
                        .map(|w| w.as_str().map(str::to_string).ok_or("`args` must be a list of strings"))
                        .collect::<Result<_, _>>()?;
                }
                other => return Err(format!("unknown initializationOptions key `{other}` (refusals, debounceMs, args)")),
            }
        }
        Ok(settings)
    }

    /// Whether the analyses run on the list of `--compile-commands` (then no path is given).
    pub fn compile_commands(&self) -> bool {
        self.args.iter().any(|a| a == "--compile-commands" || a.starts_with("--compile-commands="))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_and_checked() {
        assert_eq!(Settings::from_options(None).unwrap(), Settings::default());
        assert_eq!(Settings::from_options(Some(&serde_json::Value::Null)).unwrap(), Settings::default());
        let read = Settings::from_options(Some(&serde_json::json!({"refusals": false, "debounceMs": 50, "args": ["-DN=4"]})));
        assert_eq!(read.unwrap(), Settings { refusals: false, debounce: Duration::from_millis(50), args: vec!["-DN=4".into()] });
        assert!(Settings::from_options(Some(&serde_json::json!({"refusal": true}))).unwrap_err().contains("unknown"));
        assert!(Settings::from_options(Some(&serde_json::json!({"args": [1]}))).is_err());
        assert!(Settings { args: vec!["--compile-commands=b/cc.json".into()], ..Settings::default() }.compile_commands());
    }
}

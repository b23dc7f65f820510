//! A job file that could not be read, and where. What an error quotes of the file is shown
//! with its control characters escaped.

use crate::input::text::escaped;

/// A job file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum JobFileError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// `location` is `file:line`, `file:line:column` or `file: $.Jobs["1.srv"].walltime`.
    #[error("{}: {}", escaped(location), escaped(message))]
    Invalid { location: String, message: String },
}

pub(super) fn json_syntax(name: &str, e: &serde_json::Error) -> JobFileError {
    JobFileError::Invalid {
        location: format!("{name}:{}:{}", e.line(), e.column()),
        message: format!("invalid JSON: {e}"),
    }
}

pub(super) fn invalid(location: String, message: impl Into<String>) -> JobFileError {
    JobFileError::Invalid {
        location,
        message: message.into(),
    }
}

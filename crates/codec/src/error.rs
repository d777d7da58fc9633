//! The one error type of the codec crate.

use std::fmt;

/// What kind of failure an [`Error`] is.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input bytes are malformed: truncated, inconsistent or out of range.
    Corrupt,
    /// The input is valid but uses something this build cannot handle (e.g. a codec).
    Unsupported,
    /// A checksum (page CRC32) did not match.
    Checksum,
    /// The caller passed an argument that cannot work (e.g. a bit width above 64).
    InvalidArgument,
    /// Decoding metadata (a page header) failed; see the source error.
    Metadata,
    /// Decoding would grow an output past a limit the caller set (or past what its
    /// offsets can address); the input may be valid.
    LimitExceeded,
    /// An encrypted module failed authentication (its AES-GCM tag did not verify):
    /// the key, the AAD prefix or the module's bytes are wrong.
    Decryption,
    /// An encrypted module needs a key that was not given (footer key, a column's key
    /// or an AAD prefix the file does not store).
    KeyRequired,
}

/// An encoding, compression or page error: what went wrong and where.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

/// Result alias of the codec crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error of the given kind with a message that says what and where.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// Malformed input.
    pub fn corrupt(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Corrupt, message)
    }

    /// Valid input this build does not handle.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }

    /// A checksum mismatch.
    pub fn checksum(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Checksum, message)
    }

    /// An output that would grow past a limit.
    pub fn limit_exceeded(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::LimitExceeded, message)
    }

    /// A bad argument from the caller.
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidArgument, message)
    }

    /// A module that failed authentication (wrong key, wrong AAD prefix or tampered
    /// bytes).
    pub fn decryption(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Decryption, message)
    }

    /// A key (or AAD prefix) that is needed but was not given.
    pub fn key_required(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::KeyRequired, message)
    }

    /// Attaches the underlying cause.
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// Prefixes the message with where the error happened (e.g. `page 3 of column a.b`).
    pub fn context(mut self, location: impl fmt::Display) -> Self {
        self.message = format!("{location}: {}", self.message);
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, without the source.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(source) = &self.source {
            write!(f, ": {source}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_prefixes_location_and_keeps_kind() {
        let e = Error::corrupt("run length 9 exceeds 8 remaining values").context("page 3");
        assert_eq!(e.kind(), ErrorKind::Corrupt);
        assert_eq!(
            e.to_string(),
            "page 3: run length 9 exceeds 8 remaining values"
        );
    }
}

//! The one error type of the arrow-bridge crate.

use std::fmt;

/// What kind of failure an [`Error`] is.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The Parquet schema cannot be mapped to Arrow (e.g. a malformed `LIST` or `MAP`
    /// group, a decimal wider than `Decimal256`), or an `ARROW:schema` hint is malformed.
    Schema,
    /// The caller asked for something impossible (e.g. a projection index out of range).
    InvalidArgument,
    /// The file's metadata is invalid (see the source error).
    Format,
    /// An Arrow operation failed (see the source error).
    Arrow,
    /// The column data (pages, levels, values) is malformed.
    Corrupt,
    /// The file uses something this version cannot read yet (named in the message).
    Unsupported,
    /// The file (or a column) is encrypted and the key it needs was not given.
    Encrypted,
    /// An encrypted module did not authenticate: a wrong key, a wrong AAD prefix or
    /// altered bytes.
    Decryption,
    /// Reading the file's bytes failed.
    Io,
    /// A limit set on the reader was reached (e.g. the memory of one batch, see
    /// `ParquetRecordBatchReaderBuilder::with_batch_memory_limit`), or a batch does not
    /// fit the 32-bit offsets of its Arrow type. The file may be valid.
    LimitExceeded,
}

/// An arrow-bridge error: what went wrong and where (column path, field).
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

/// Result alias of the arrow-bridge crate.
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

    /// A schema that cannot be mapped.
    pub fn schema(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Schema, message)
    }

    /// A bad argument from the caller.
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidArgument, message)
    }

    /// Malformed column data.
    pub fn corrupt(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Corrupt, message)
    }

    /// Something this version cannot read yet.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }

    /// The same error with `context` (e.g. the column path and row group) put in front
    /// of its message.
    pub fn context(mut self, context: impl std::fmt::Display) -> Self {
        self.message = format!("{context}: {}", self.message);
        self
    }

    /// Attaches the underlying cause.
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
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

impl From<herringbone_format::Error> for Error {
    fn from(e: herringbone_format::Error) -> Self {
        Error::new(ErrorKind::Format, "invalid Parquet metadata").with_source(e)
    }
}

impl From<herringbone_codec::Error> for Error {
    fn from(e: herringbone_codec::Error) -> Self {
        // A page reader fetching its chunk from the input passes the input's own error
        // on (an I/O error stays one).
        let fetch_failed = std::error::Error::source(&e)
            .and_then(|s| s.downcast_ref::<Error>())
            .map(Error::kind);
        if let Some(ErrorKind::Io) = fetch_failed {
            return Error::new(ErrorKind::Io, "I/O error reading column data").with_source(e);
        }
        let (kind, message) = match e.kind() {
            herringbone_codec::ErrorKind::Unsupported => {
                (ErrorKind::Unsupported, "cannot decode column data")
            }
            herringbone_codec::ErrorKind::LimitExceeded => {
                (ErrorKind::LimitExceeded, "cannot decode column data")
            }
            herringbone_codec::ErrorKind::KeyRequired => (ErrorKind::Encrypted, "key required"),
            herringbone_codec::ErrorKind::Decryption => {
                (ErrorKind::Decryption, "decryption failed")
            }
            _ => (ErrorKind::Corrupt, "cannot decode column data"),
        };
        Error::new(kind, message).with_source(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io, "I/O error").with_source(e)
    }
}

impl From<Error> for arrow_schema::ArrowError {
    fn from(e: Error) -> Self {
        arrow_schema::ArrowError::ExternalError(Box::new(e))
    }
}

impl From<arrow_schema::ArrowError> for Error {
    fn from(e: arrow_schema::ArrowError) -> Self {
        Error::new(ErrorKind::Arrow, "Arrow error").with_source(e)
    }
}

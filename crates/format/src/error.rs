//! The one error type of the format crate: what was wrong, in which structure and
//! field, and at which byte offset.

use std::borrow::Cow;
use std::fmt;

/// What kind of failure an [`Error`] is.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input ended before the value being decoded was complete.
    Truncated,
    /// The input is malformed: a wrong wire type, a missing required field, a bad
    /// magic number, invalid UTF-8, an inconsistent schema, ...
    Invalid,
    /// The input exceeds a safety limit (nesting depth, container size).
    LimitExceeded,
    /// The footer is encrypted (`PARE`) and no keys were supplied.
    Encrypted,
    /// Valid input that this version does not handle.
    Unsupported,
    /// Reading the input failed.
    Io,
}

impl ErrorKind {
    fn label(self) -> &'static str {
        match self {
            ErrorKind::Truncated => "truncated input",
            ErrorKind::Invalid => "invalid metadata",
            ErrorKind::LimitExceeded => "limit exceeded",
            ErrorKind::Encrypted => "encrypted",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Io => "I/O error",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A metadata error: its kind, a message, the structure/field path being decoded
/// (e.g. `FileMetaData.row_groups[3].columns[7].meta_data.codec`) and the byte offset.
///
/// ```
/// use herringbone_format::{Error, ErrorKind};
/// let e = Error::invalid("bad value").with_offset(12).in_field("ColumnChunk", "meta_data");
/// assert_eq!(e.kind(), ErrorKind::Invalid);
/// assert_eq!(e.path(), "ColumnChunk.meta_data");
/// assert_eq!(e.to_string(), "invalid metadata: bad value (in ColumnChunk.meta_data, at byte offset 12)");
/// ```
pub struct Error {
    // Boxed so that `Result<T>` stays small on the hot decode paths.
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    message: Cow<'static, str>,
    /// Outermost structure name of the path, set by the last `in_field`.
    root: Option<&'static str>,
    /// Path segments, innermost first (`.field` or `[index]`).
    segments: Vec<Segment>,
    offset: Option<u64>,
    context: Vec<String>,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

enum Segment {
    Field(&'static str),
    Index(usize),
}

/// Result alias of the format crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error of the given kind with a message saying what was wrong.
    pub fn new(kind: ErrorKind, message: impl Into<Cow<'static, str>>) -> Self {
        Error {
            inner: Box::new(Inner {
                kind,
                message: message.into(),
                root: None,
                segments: Vec::new(),
                offset: None,
                context: Vec::new(),
                source: None,
            }),
        }
    }

    /// The input ended early.
    pub fn truncated(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::Truncated, message)
    }

    /// Malformed input.
    pub fn invalid(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::Invalid, message)
    }

    /// A safety limit was exceeded.
    pub fn limit_exceeded(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::LimitExceeded, message)
    }

    /// Encrypted content and no keys.
    pub fn encrypted(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::Encrypted, message)
    }

    /// Valid input this version does not handle.
    pub fn unsupported(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }

    /// An I/O failure, keeping the original error as the source.
    pub fn io(error: std::io::Error) -> Self {
        let mut e = Self::new(ErrorKind::Io, error.to_string());
        e.inner.source = Some(Box::new(error));
        e
    }

    /// Records the byte offset where the problem was found (kept if already set,
    /// since the innermost offset is the precise one).
    pub fn with_offset(mut self, offset: u64) -> Self {
        if self.inner.offset.is_none() {
            self.inner.offset = Some(offset);
        }
        self
    }

    /// Moves the reported offset by `base` (used when a buffer was decoded out of a
    /// larger file, so offsets become file offsets).
    pub fn shift_offset(mut self, base: u64) -> Self {
        if let Some(offset) = self.inner.offset.as_mut() {
            *offset = offset.saturating_add(base);
        }
        self
    }

    /// Adds one level to the path: the error happened inside field `field` of
    /// structure `structure`.
    pub fn in_field(mut self, structure: &'static str, field: &'static str) -> Self {
        self.inner.root = Some(structure);
        self.inner.segments.push(Segment::Field(field));
        self
    }

    /// Adds a list index to the path: the error happened in element `index`.
    pub fn at_index(mut self, index: usize) -> Self {
        self.inner.segments.push(Segment::Index(index));
        self
    }

    /// Names the structure being decoded when the error is about the structure
    /// itself (e.g. a missing required field).
    pub fn in_struct(mut self, structure: &'static str) -> Self {
        if self.inner.root.is_none() {
            self.inner.root = Some(structure);
        }
        self
    }

    /// Adds free-form context, outermost last (e.g. `"column index of row group 2 column 5"`).
    pub fn context(mut self, context: impl Into<String>) -> Self {
        self.inner.context.push(context.into());
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The message, without path or offset.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The path of the structure and field being decoded, outermost first, e.g.
    /// `FileMetaData.row_groups[3].columns[7].meta_data`; empty when unknown.
    pub fn path(&self) -> String {
        let mut out = String::new();
        if let Some(root) = self.inner.root {
            out.push_str(root);
        }
        for segment in self.inner.segments.iter().rev() {
            match segment {
                Segment::Field(name) => {
                    out.push('.');
                    out.push_str(name);
                }
                Segment::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        out
    }

    /// The byte offset in the decoded buffer (or file) where the problem was found.
    pub fn offset(&self) -> Option<u64> {
        self.inner.offset
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for context in self.inner.context.iter().rev() {
            write!(f, "{context}: ")?;
        }
        write!(f, "{}: {}", self.inner.kind, self.inner.message)?;
        let path = self.path();
        match (path.is_empty(), self.inner.offset) {
            (false, Some(offset)) => write!(f, " (in {path}, at byte offset {offset})"),
            (false, None) => write!(f, " (in {path})"),
            (true, Some(offset)) => write!(f, " (at byte offset {offset})"),
            (true, None) => Ok(()),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.inner.kind)
            .field("message", &self.inner.message)
            .field("path", &self.path())
            .field("offset", &self.inner.offset)
            .field("context", &self.inner.context)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner
            .source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<std::io::Error> for Error {
    fn from(error: std::io::Error) -> Self {
        Error::io(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_is_built_outward() {
        let e = Error::invalid("unknown wire type 14")
            .with_offset(99)
            .in_field("ColumnMetaData", "codec")
            .in_field("ColumnChunk", "meta_data")
            .at_index(7)
            .in_field("RowGroup", "columns")
            .at_index(3)
            .in_field("FileMetaData", "row_groups");
        assert_eq!(
            e.path(),
            "FileMetaData.row_groups[3].columns[7].meta_data.codec"
        );
        assert_eq!(e.offset(), Some(99));
        assert_eq!(
            e.to_string(),
            "invalid metadata: unknown wire type 14 (in FileMetaData.row_groups[3].columns[7].meta_data.codec, at byte offset 99)"
        );
    }

    #[test]
    fn context_and_shift() {
        let e = Error::truncated("need 4 bytes")
            .with_offset(3)
            .shift_offset(100)
            .context("offset index of column 2");
        assert_eq!(e.offset(), Some(103));
        assert_eq!(
            e.to_string(),
            "offset index of column 2: truncated input: need 4 bytes (at byte offset 103)"
        );
        assert!(e.path().is_empty());
    }

    #[test]
    fn is_send_sync_static() {
        fn check<T: std::error::Error + Send + Sync + 'static>() {}
        check::<Error>();
        assert!(std::mem::size_of::<Result<u64>>() <= 16);
    }
}

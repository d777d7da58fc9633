//! Which decryptor the modules of a column chunk need. One answer for every reader of
//! those modules: the page reader (page headers and bodies) and the pruner (column
//! index, offset index, Bloom filter).
//!
//! A chunk is read in plaintext when it is not encrypted; an encrypted chunk of a file
//! opened without keys (a plaintext footer makes its metadata readable) is an
//! [`ErrorKind::Encrypted`] error naming the column; otherwise the file's
//! [`FileDecryptor`] gives the chunk's [`ColumnDecryptor`], with the row group ordinal
//! the AADs use (the row group's `ordinal` when the file stores one).

use herringbone_codec::crypto::{ColumnDecryptor, FileDecryptor};
use herringbone_format::metadata::FileMetaData;

use crate::error::{Error, ErrorKind, Result};

/// The decryptor of the chunk of leaf column `column` (dotted path `path`) in row group
/// `row_group`: `None` for a plaintext chunk (or a row group without that column).
///
/// Errors: an encrypted chunk without `decryptor` ([`ErrorKind::Encrypted`]), a column
/// key that was not given ([`ErrorKind::Encrypted`], naming the column), a row group out
/// of range or with a negative ordinal.
pub fn chunk_decryptor(
    decryptor: Option<&FileDecryptor>,
    metadata: &FileMetaData,
    row_group: usize,
    column: usize,
    path: &str,
) -> Result<Option<ColumnDecryptor>> {
    chunk_decryptor_named_by(decryptor, metadata, row_group, column, || path.to_owned())
}

/// [`chunk_decryptor`] with the column's dotted path built by `path` only when it is
/// needed (a decryptor, or an error): a reader asks for every chunk it opens, and
/// plaintext files are the common case.
pub(crate) fn chunk_decryptor_named_by(
    decryptor: Option<&FileDecryptor>,
    metadata: &FileMetaData,
    row_group: usize,
    column: usize,
    path: impl FnOnce() -> String,
) -> Result<Option<ColumnDecryptor>> {
    let group = metadata
        .row_groups
        .get(row_group)
        .ok_or_else(|| Error::invalid_argument(format!("row group {row_group} out of range")))?;
    let Some(chunk) = group.columns.get(column) else {
        return Ok(None);
    };
    let Some(decryptor) = decryptor else {
        if chunk.crypto_metadata.is_some() {
            return Err(Error::new(
                ErrorKind::Encrypted,
                format!("encrypted: keys required (column {} is encrypted)", path()),
            ));
        }
        return Ok(None);
    };
    let ordinal = match group.ordinal {
        Some(o) => usize::try_from(o).map_err(|_| {
            Error::corrupt(format!("row group {row_group} has a negative ordinal {o}"))
        })?,
        None => row_group,
    };
    decryptor
        .column(&path(), chunk.crypto_metadata.as_deref(), ordinal, column)
        .map_err(|e| Error::from(e).context(format!("row group {row_group}")))
}

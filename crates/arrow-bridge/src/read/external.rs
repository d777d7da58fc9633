//! Column chunks stored in other files: a chunk whose `file_path` is set holds its pages
//! in that file, named relative to the file holding the metadata (Spark's and pyarrow's
//! `_metadata` summary files point at their data files this way).
//!
//! The reader opens those files through an [`ExternalFiles`]; [`DirectoryFiles`] opens
//! them in one folder and refuses any path that would leave it.

use std::path::{Component, Path, PathBuf};

use super::ChunkReader;
use crate::error::{Error, Result};

/// Opens the files that column chunks name in their `file_path`.
///
/// `Send + Sync`, so that one instance serves every reader of a dataset.
pub trait ExternalFiles: Send + Sync + std::fmt::Debug {
    /// The file a chunk names `path` (as the metadata spells it: relative, with `/`
    /// between folders).
    fn open(&self, path: &str) -> Result<Box<dyn ChunkReader>>;
}

/// The files of one folder (the folder of the metadata file): a `file_path` is taken
/// relative to it, and one that is absolute, has a `..` part, or leads outside it
/// through a symbolic link is refused.
///
/// ```no_run
/// # use std::sync::Arc;
/// use herringbone_arrow_bridge::read::{DirectoryFiles, ParquetRecordBatchReaderBuilder};
///
/// let path = std::path::Path::new("dataset/_metadata");
/// let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path)?)?
///     .with_external_files(Arc::new(DirectoryFiles::beside(path)))
///     .build()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct DirectoryFiles {
    base: PathBuf,
}

impl DirectoryFiles {
    /// The files under folder `base`.
    pub fn new(base: impl Into<PathBuf>) -> Self {
        Self { base: base.into() }
    }

    /// The files beside `metadata_file` (its folder; the current folder for a bare name).
    pub fn beside(metadata_file: &Path) -> Self {
        let base = match metadata_file.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Self { base }
    }

    /// The folder files are opened in.
    pub fn base(&self) -> &Path {
        &self.base
    }
}

impl ExternalFiles for DirectoryFiles {
    fn open(&self, path: &str) -> Result<Box<dyn ChunkReader>> {
        let relative = relative_path(path)?;
        let refused = |why: String| Error::invalid_argument(format!("file_path {path:?}: {why}"));
        let base = self
            .base
            .canonicalize()
            .map_err(|e| refused(format!("folder {}: {e}", self.base.display())))?;
        let full = base
            .join(relative)
            .canonicalize()
            .map_err(|e| refused(e.to_string()))?;
        // A symbolic link inside the folder may point anywhere.
        if !full.starts_with(&base) {
            return Err(refused(format!(
                "leads outside {} (to {})",
                base.display(),
                full.display()
            )));
        }
        let file = std::fs::File::open(&full).map_err(|e| refused(e.to_string()))?;
        Ok(Box::new(file))
    }
}

/// `path` as a relative path of plain names: absolute paths, `..`, drive prefixes and
/// NUL bytes are refused, so that it cannot name a file outside the folder it is
/// joined to.
pub(crate) fn relative_path(path: &str) -> Result<PathBuf> {
    let refused = |why: &str| Error::invalid_argument(format!("file_path {path:?}: {why}"));
    if path.is_empty() {
        return Err(refused("empty"));
    }
    if path.contains('\0') {
        return Err(refused("contains a NUL byte"));
    }
    let mut relative = PathBuf::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(name) => relative.push(name),
            Component::CurDir => {}
            Component::ParentDir => return Err(refused("has a `..` part")),
            Component::RootDir | Component::Prefix(_) => return Err(refused("is absolute")),
        }
    }
    if relative.as_os_str().is_empty() {
        return Err(refused("names no file"));
    }
    Ok(relative)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_of_plain_names_pass() {
        assert_eq!(
            relative_path("part-0.parquet").unwrap(),
            PathBuf::from("part-0.parquet")
        );
        assert_eq!(
            relative_path("./year=2024/part-1.parquet").unwrap(),
            PathBuf::from("year=2024/part-1.parquet")
        );
    }

    #[test]
    fn escaping_paths_are_refused() {
        for (path, why) in [
            ("", "empty"),
            ("/etc/passwd", "is absolute"),
            ("../secret.parquet", "has a `..` part"),
            ("data/../../secret.parquet", "has a `..` part"),
            (".", "names no file"),
            ("a\0b", "contains a NUL byte"),
        ] {
            let message = relative_path(path).unwrap_err().to_string();
            assert!(message.contains(why), "{path:?}: {message}");
        }
    }
}

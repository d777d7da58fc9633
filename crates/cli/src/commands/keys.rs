//! Encryption keys on the command line: `--footer-key HEX`, `--column-key PATH=HEX`
//! (repeatable) and `--aad-prefix TEXT` for every command that reads, plus
//! `--encryption-algorithm`, `--plaintext-footer` and `--store-aad-prefix` for writing.

use herringbone::encryption::{Algorithm, FileDecryptionProperties, FileEncryptionProperties};

/// Keys to read (and, for `convert`, to write) an encrypted file.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct KeyArgs {
    /// Footer key in hex (32, 48 or 64 digits: AES-128, -192, -256); also the key of
    /// every column encrypted with the footer key.
    #[arg(long, value_name = "HEX")]
    pub footer_key: Option<String>,
    /// Key of one column in hex, by dotted path (`lst.list.element=HEX`); repeatable.
    #[arg(long = "column-key", value_name = "PATH=HEX")]
    pub column_keys: Vec<String>,
    /// AAD prefix, for files written without storing it (checked against a stored one).
    #[arg(long, value_name = "TEXT")]
    pub aad_prefix: Option<String>,
}

/// Encryption settings of the Parquet file `convert` writes.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct EncryptArgs {
    /// Encryption algorithm when a footer key is given: gcm (AES_GCM_V1, the default)
    /// or gcm-ctr (AES_GCM_CTR_V1: pages in AES-CTR).
    #[arg(long, value_enum, value_name = "gcm|gcm-ctr")]
    pub encryption_algorithm: Option<AlgorithmArg>,
    /// Leave the footer in plaintext (signed with the footer key): readers without keys
    /// can read the plaintext columns.
    #[arg(long)]
    pub plaintext_footer: bool,
    /// Store the AAD prefix in the file (by default a prefix given with --aad-prefix is
    /// not stored, and readers must supply it).
    #[arg(long)]
    pub store_aad_prefix: bool,
}

/// `--encryption-algorithm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AlgorithmArg {
    /// AES_GCM_V1.
    Gcm,
    /// AES_GCM_CTR_V1.
    GcmCtr,
}

fn hex_key(option: &str, hex: &str) -> Result<Vec<u8>, String> {
    let hex = hex.trim();
    let bad = || {
        format!(
            "{option}: expected 32, 48 or 64 hex digits (a 128-, 192- or 256-bit key), got {} characters",
            hex.len()
        )
    };
    if !matches!(hex.len(), 32 | 48 | 64) {
        return Err(bad());
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad()))
        .collect()
}

/// `(path, key)` of each `--column-key`.
fn column_keys(specs: &[String]) -> Result<Vec<(String, Vec<u8>)>, String> {
    specs
        .iter()
        .map(|spec| {
            let (path, hex) = spec
                .rsplit_once('=')
                .filter(|(path, _)| !path.is_empty())
                .ok_or_else(|| format!("--column-key {spec}: expected PATH=HEX"))?;
            Ok((
                path.to_string(),
                hex_key(&format!("--column-key {path}"), hex)?,
            ))
        })
        .collect()
}

impl KeyArgs {
    /// Whether any key or prefix was given.
    pub fn any(&self) -> bool {
        self.footer_key.is_some() || !self.column_keys.is_empty() || self.aad_prefix.is_some()
    }

    /// Decryption properties, `None` when nothing was given. Plaintext files are
    /// accepted (the keys then go unused).
    pub fn decryption(&self) -> Result<Option<FileDecryptionProperties>, String> {
        if !self.any() {
            return Ok(None);
        }
        let mut builder = FileDecryptionProperties::builder().with_allow_plaintext_files(true);
        if let Some(hex) = &self.footer_key {
            builder = builder.with_footer_key(hex_key("--footer-key", hex)?);
        }
        for (path, key) in column_keys(&self.column_keys)? {
            builder = builder.with_column_key(path, key);
        }
        if let Some(prefix) = &self.aad_prefix {
            builder = builder.with_aad_prefix(prefix.as_bytes().to_vec());
        }
        builder.build().map(Some).map_err(|e| e.to_string())
    }

    /// Encryption properties for writing, `None` without a footer key. With column keys,
    /// only those columns are encrypted; without, every column uses the footer key.
    pub fn encryption(
        &self,
        args: &EncryptArgs,
    ) -> Result<Option<FileEncryptionProperties>, String> {
        let Some(hex) = &self.footer_key else {
            if !self.column_keys.is_empty()
                || args.plaintext_footer
                || args.encryption_algorithm.is_some()
            {
                return Err(
                    "encrypting needs --footer-key (the key of the footer, or of its signature)"
                        .to_string(),
                );
            }
            return Ok(None);
        };
        let mut builder = FileEncryptionProperties::builder(hex_key("--footer-key", hex)?)
            .with_plaintext_footer(args.plaintext_footer)
            .with_algorithm(match args.encryption_algorithm {
                Some(AlgorithmArg::GcmCtr) => Algorithm::AesGcmCtrV1,
                Some(AlgorithmArg::Gcm) | None => Algorithm::AesGcmV1,
            });
        for (path, key) in column_keys(&self.column_keys)? {
            builder = builder.with_column_key(path, key);
        }
        if let Some(prefix) = &self.aad_prefix {
            builder = builder
                .with_aad_prefix(prefix.as_bytes().to_vec())
                .with_store_aad_prefix(args.store_aad_prefix);
        } else if args.store_aad_prefix {
            return Err("--store-aad-prefix needs --aad-prefix".to_string());
        }
        builder.build().map(Some).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_from_hex() {
        let args = KeyArgs {
            footer_key: Some("30313233343536373839303132333435".into()),
            column_keys: vec!["a.b=31323334353637383930313233343530".into()],
            aad_prefix: Some("tester".into()),
        };
        let d = args.decryption().unwrap().unwrap();
        assert_eq!(d.footer_key().unwrap().as_bytes(), b"0123456789012345");
        assert_eq!(d.column_key("a.b").unwrap().as_bytes(), b"1234567890123450");
        assert_eq!(d.aad_prefix(), Some(&b"tester"[..]));
        let e = args
            .encryption(&EncryptArgs {
                encryption_algorithm: Some(AlgorithmArg::GcmCtr),
                plaintext_footer: true,
                store_aad_prefix: true,
            })
            .unwrap()
            .unwrap();
        assert_eq!(e.algorithm(), Algorithm::AesGcmCtrV1);
        assert!(e.plaintext_footer() && e.store_aad_prefix());
        assert!(e.column_key("a.b").is_some());
    }

    #[test]
    fn bad_keys_say_what_is_expected() {
        let args = KeyArgs {
            footer_key: Some("abc".into()),
            ..Default::default()
        };
        let e = args.decryption().unwrap_err();
        assert!(
            e.starts_with("--footer-key: expected 32, 48 or 64 hex digits"),
            "{e}"
        );
        let args = KeyArgs {
            column_keys: vec!["nokey".into()],
            ..Default::default()
        };
        assert_eq!(
            args.decryption().unwrap_err(),
            "--column-key nokey: expected PATH=HEX"
        );
        let args = KeyArgs {
            column_keys: vec!["x=zz".to_string() + &"0".repeat(30)],
            ..Default::default()
        };
        assert!(
            args.decryption()
                .unwrap_err()
                .starts_with("--column-key x: expected")
        );
        assert!(KeyArgs::default().decryption().unwrap().is_none());
        let e = KeyArgs::default()
            .encryption(&EncryptArgs {
                plaintext_footer: true,
                ..Default::default()
            })
            .unwrap_err();
        assert!(e.contains("needs --footer-key"), "{e}");
    }
}

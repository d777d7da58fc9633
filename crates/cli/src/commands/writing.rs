//! Writer options shared by the commands that write Parquet (`hb convert`).

use clap::Args;
use herringbone::encryption::FileEncryptionProperties;
use herringbone::variant::{ShreddedType, VariantShredding};
use herringbone::write::{
    Codec, DataPageVersion, Encoding, StatisticsLevel, WriterProperties, WriterPropertiesBuilder,
};

/// How to write Parquet.
#[derive(Debug, Clone, Default, Args)]
pub struct WriteArgs {
    /// Codec: uncompressed, snappy, gzip[:LEVEL], brotli[:QUALITY], lz4, lz4_raw, lzo,
    /// zstd[:LEVEL].
    #[arg(long, value_name = "CODEC[:LEVEL]")]
    pub compression: Option<String>,
    /// Encoding of one column (dotted path), e.g. `price=BYTE_STREAM_SPLIT`; repeatable.
    #[arg(long = "encoding", value_name = "COL=ENCODING")]
    pub encodings: Vec<String>,
    /// Dictionary encoding: on or off.
    #[arg(long, value_name = "on|off")]
    pub dictionary: Option<String>,
    /// Data page version: 1 or 2.
    #[arg(long, value_name = "1|2")]
    pub page_version: Option<u8>,
    /// Rows per row group.
    #[arg(long, value_name = "ROWS")]
    pub row_group_size: Option<usize>,
    /// Data page size limit in bytes.
    #[arg(long, value_name = "BYTES")]
    pub page_size: Option<usize>,
    /// Statistics: none, chunk or page.
    #[arg(long, value_name = "none|chunk|page")]
    pub statistics: Option<String>,
    /// A Bloom filter on a column (dotted path), with a false-positive rate (default
    /// 0.01); repeatable.
    #[arg(long = "bloom-filter", value_name = "COL[:FPP]")]
    pub bloom_filters: Vec<String>,
    /// Store a CRC32 in every page header.
    #[arg(long)]
    pub crc: bool,
    /// How to store a Variant column: `COL=auto` (shredded to a shape inferred from the
    /// first rows), `COL=none` (unshredded), or a shape such as `COL=a:int64,b:string`
    /// or `COL={a:int64,tags:[string]}`; repeatable.
    #[arg(long = "shred", value_name = "COL=auto|none|SHAPE")]
    pub shred: Vec<String>,
}

impl WriteArgs {
    /// The writer properties these options ask for, encrypting with `encryption`;
    /// `rows` (the rows to be written) sizes the Bloom filters.
    pub fn properties(
        &self,
        rows: u64,
        encryption: Option<FileEncryptionProperties>,
    ) -> Result<WriterProperties, String> {
        let mut builder = self.builder(rows)?;
        if let Some(encryption) = encryption {
            builder = builder.set_encryption(encryption);
        }
        Ok(builder.build())
    }

    /// Whether any option was given (else the writer's defaults apply).
    pub fn is_default(&self) -> bool {
        self.compression.is_none()
            && self.encodings.is_empty()
            && self.dictionary.is_none()
            && self.page_version.is_none()
            && self.row_group_size.is_none()
            && self.page_size.is_none()
            && self.statistics.is_none()
            && self.bloom_filters.is_empty()
            && !self.crc
    }

    /// [`WriteArgs::properties`] still open for more settings.
    pub fn builder(&self, rows: u64) -> Result<WriterPropertiesBuilder, String> {
        let mut builder = WriterProperties::builder();
        if let Some(codec) = &self.compression {
            builder = builder.set_compression(parse_codec(codec)?);
        }
        for spec in &self.encodings {
            let (column, name) = spec
                .split_once('=')
                .ok_or_else(|| format!("--encoding {spec}: expected COL=ENCODING"))?;
            builder = builder.set_column_encoding(column, parse_encoding(name)?);
        }
        if let Some(on) = &self.dictionary {
            builder = builder.set_dictionary_enabled(parse_switch("--dictionary", on)?);
        }
        if let Some(version) = self.page_version {
            builder = builder.set_data_page_version(match version {
                1 => DataPageVersion::V1,
                2 => DataPageVersion::V2,
                other => return Err(format!("--page-version {other}: expected 1 or 2")),
            });
        }
        if let Some(rows) = self.row_group_size {
            if rows == 0 {
                return Err("--row-group-size 0: expected at least 1 row".to_string());
            }
            builder = builder.set_max_row_group_rows(rows);
        }
        if let Some(bytes) = self.page_size {
            if bytes == 0 {
                return Err("--page-size 0: expected at least 1 byte".to_string());
            }
            builder = builder.set_data_page_size_limit(bytes);
        }
        if let Some(level) = &self.statistics {
            builder = builder.set_statistics(match level.to_ascii_lowercase().as_str() {
                "none" => StatisticsLevel::None,
                "chunk" => StatisticsLevel::Chunk,
                "page" => StatisticsLevel::Page,
                _ => {
                    return Err(format!(
                        "--statistics {level}: expected none, chunk or page"
                    ));
                }
            });
        }
        for spec in &self.bloom_filters {
            let (column, fpp) = match spec.split_once(':') {
                Some((column, fpp)) => {
                    let fpp: f64 = fpp
                        .parse()
                        .ok()
                        .filter(|p| *p > 0.0 && *p < 1.0)
                        .ok_or_else(|| {
                            format!("--bloom-filter {spec}: the rate must be between 0 and 1")
                        })?;
                    (column, fpp)
                }
                None => (spec.as_str(), 0.01),
            };
            builder = builder.set_bloom_filter(column, fpp, rows.max(1));
        }
        for spec in &self.shred {
            let (column, shape) = spec.split_once('=').ok_or_else(|| {
                format!("--shred {spec}: expected COL=auto, COL=none or COL=SHAPE")
            })?;
            let shredding = match shape.trim() {
                "auto" => VariantShredding::Auto,
                "none" => VariantShredding::Unshredded,
                shape => VariantShredding::Shape(
                    ShreddedType::parse(shape).map_err(|e| format!("--shred {spec}: {e}"))?,
                ),
            };
            builder = builder.set_variant_shredding(column.trim(), shredding);
        }
        Ok(builder.set_write_crc(self.crc))
    }
}

fn parse_switch(option: &str, value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" => Ok(true),
        "off" | "false" | "no" => Ok(false),
        _ => Err(format!("{option} {value}: expected on or off")),
    }
}

/// `zstd`, `zstd:9`, `gzip:6`, ...
pub fn parse_codec(spec: &str) -> Result<Codec, String> {
    let (name, level) = match spec.split_once(':') {
        Some((name, level)) => {
            let level: i32 = level
                .parse()
                .map_err(|_| format!("--compression {spec}: the level must be a number"))?;
            (name, Some(level))
        }
        None => (spec, None),
    };
    let unsigned = |default: u32, max: u32| -> Result<u32, String> {
        match level {
            None => Ok(default),
            Some(l) if (0..=max as i32).contains(&l) => Ok(l as u32),
            Some(l) => Err(format!(
                "--compression {spec}: level {l} is not in 0..={max}"
            )),
        }
    };
    let no_level = |codec: Codec| match level {
        None => Ok(codec),
        Some(_) => Err(format!("--compression {spec}: {name} takes no level")),
    };
    match name.to_ascii_lowercase().as_str() {
        "uncompressed" | "none" => no_level(Codec::Uncompressed),
        "snappy" => no_level(Codec::Snappy),
        "lz4" => no_level(Codec::Lz4),
        "lzo" => no_level(Codec::Lzo),
        "lz4_raw" | "lz4-raw" => no_level(Codec::Lz4Raw),
        "gzip" => Ok(Codec::Gzip {
            level: unsigned(6, 9)?,
        }),
        "brotli" => Ok(Codec::Brotli {
            quality: unsigned(1, 11)?,
        }),
        "zstd" => match level {
            None => Ok(Codec::Zstd { level: 3 }),
            Some(l) if (-7..=22).contains(&l) => Ok(Codec::Zstd { level: l }),
            Some(l) => Err(format!("--compression {spec}: level {l} is not in -7..=22")),
        },
        _ => Err(format!(
            "--compression {spec}: unknown codec; expected uncompressed, snappy, gzip, brotli, \
             lz4, lz4_raw or zstd"
        )),
    }
}

/// An encoding by its specification name (case-insensitive).
pub fn parse_encoding(name: &str) -> Result<Encoding, String> {
    const CHOICES: [Encoding; 6] = [
        Encoding::PLAIN,
        Encoding::RLE,
        Encoding::DELTA_BINARY_PACKED,
        Encoding::DELTA_LENGTH_BYTE_ARRAY,
        Encoding::DELTA_BYTE_ARRAY,
        Encoding::BYTE_STREAM_SPLIT,
    ];
    CHOICES
        .into_iter()
        .find(|e| e.name().is_some_and(|n| n.eq_ignore_ascii_case(name)))
        .ok_or_else(|| {
            format!(
                "--encoding {name}: unknown encoding; expected one of {}",
                CHOICES
                    .iter()
                    .filter_map(|e| e.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

//! `hb pages FILE [--json]`: every page of every column chunk as it lies in the file:
//! offset, type, encoding, sizes, values, nulls, rows, statistics, CRC.

use std::io::Write;
use std::path::Path;

use herringbone::layout::{CrcStatus, PageSpan, PageWalker};
use herringbone::metadata::{ColumnChunk, PageType, Statistics};
use herringbone::schema::ColumnDescriptor;
use serde_json::{Value, json};

use super::ParquetFile;
use super::meta::{value_text, write_table};

pub fn run(
    path: &Path,
    as_json: bool,
    keys: &super::keys::KeyArgs,
    out: &mut dyn Write,
) -> Result<(), String> {
    // With keys, the page headers of encrypted chunks are decrypted as they are walked.
    let file = ParquetFile::open(path, keys)?;
    let mut groups = Vec::new();
    for (g, group) in file.metadata.row_groups.iter().enumerate() {
        let mut chunks = Vec::new();
        for (c, chunk) in group.columns.iter().enumerate() {
            let descr = file.schema.column(c);
            chunks.push(chunk_pages(&file, g, c, chunk, descr));
        }
        groups.push(chunks);
    }
    if as_json {
        let value: Vec<Value> = groups
            .iter()
            .enumerate()
            .map(|(g, chunks)| {
                json!({
                    "row_group": g,
                    "columns": chunks.iter().map(|c| c.json()).collect::<Vec<_>>(),
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
        return writeln!(out, "{text}").map_err(|e| e.to_string());
    }
    let write = |out: &mut dyn Write| -> std::io::Result<()> {
        for (g, chunks) in groups.iter().enumerate() {
            for chunk in chunks {
                writeln!(
                    out,
                    "row group {g}, column {} ({}, {}){}",
                    chunk.path,
                    chunk.physical,
                    chunk.codec,
                    chunk
                        .range
                        .as_ref()
                        .map_or(String::new(), |r| format!(", bytes {}..{}", r.start, r.end))
                )?;
                if !chunk.rows.is_empty() {
                    write_table(
                        out,
                        &[
                            "page", "offset", "type", "encoding", "header", "stored", "raw",
                            "values", "nulls", "rows", "min", "max", "crc",
                        ],
                        &chunk.rows,
                    )?;
                }
                if let Some(problem) = &chunk.problem {
                    writeln!(out, "  {problem}")?;
                }
            }
        }
        Ok(())
    };
    write(out).map_err(|e| e.to_string())
}

/// The pages of one chunk, as table rows and JSON.
struct ChunkPages {
    path: String,
    physical: String,
    codec: String,
    range: Option<std::ops::Range<u64>>,
    rows: Vec<Vec<String>>,
    json: Vec<Value>,
    problem: Option<String>,
}

impl ChunkPages {
    fn json(&self) -> Value {
        json!({
            "column": self.path,
            "physical_type": self.physical,
            "codec": self.codec,
            "start": self.range.as_ref().map(|r| r.start),
            "end": self.range.as_ref().map(|r| r.end),
            "pages": self.json,
            "problem": self.problem,
        })
    }
}

fn chunk_pages(
    file: &ParquetFile,
    g: usize,
    c: usize,
    chunk: &ColumnChunk,
    descr: Option<&ColumnDescriptor>,
) -> ChunkPages {
    let path = descr.map_or_else(|| format!("#{c}"), |d| d.path().dotted());
    let mut result = ChunkPages {
        path,
        physical: String::new(),
        codec: String::new(),
        range: None,
        rows: Vec::new(),
        json: Vec::new(),
        problem: None,
    };
    let encrypted = chunk.crypto_metadata.is_some() || chunk.encrypted_column_metadata.is_some();
    let decryptor = match (&file.decryptor, encrypted) {
        (Some(file_decryptor), true) => {
            match herringbone_arrow_bridge::decryption::chunk_decryptor(
                Some(file_decryptor),
                &file.metadata,
                g,
                c,
                &result.path,
            ) {
                Ok(decryptor) => decryptor,
                Err(e) => {
                    result.problem = Some(format!("encrypted column: {e}"));
                    return result;
                }
            }
        }
        (None, true) => {
            result.problem = Some("encrypted column: keys required".to_string());
            return result;
        }
        _ => None,
    };
    let Some(meta) = &chunk.meta_data else {
        result.problem = Some("no column metadata".to_string());
        return result;
    };
    result.physical = format!("{:?}", meta.type_);
    result.codec = format!("{:?}", meta.codec);
    let range = match herringbone_codec::page::column_chunk_range(
        meta,
        file.metadata.created_by.as_deref(),
        file.bytes.len() as u64,
    ) {
        Ok(range) => range,
        Err(e) => {
            result.problem = Some(format!("row group {g}: {e}"));
            return result;
        }
    };
    result.range = Some(range.clone());
    let bytes = file.bytes.slice(range.start as usize..range.end as usize);
    let max_rep = descr.map_or(0, |d| d.max_rep_level());
    let mut values_left = u64::try_from(meta.num_values).unwrap_or(0);
    let mut walker = PageWalker::new(bytes, range.start);
    if let Some(decryptor) = decryptor {
        let dictionary_first = matches!(
            meta.dictionary_page_offset,
            Some(d) if d > 0 && d < meta.data_page_offset
        );
        walker = walker.with_decryptor(decryptor, dictionary_first);
    }
    for (i, span) in walker.enumerate() {
        let span = match span {
            Ok(span) => span,
            Err(e) => {
                result.problem = Some(format!("page {i}: {e}"));
                break;
            }
        };
        let values = span.num_values();
        let (row, json) = page_row(i, &span, descr, max_rep);
        result.rows.push(row);
        result.json.push(json);
        if span.is_data() {
            values_left =
                values_left.saturating_sub(values.and_then(|v| u64::try_from(v).ok()).unwrap_or(0));
            if values_left == 0 {
                // Old parquet-mr chunk ranges run past the last page (see column_chunk_range).
                break;
            }
        }
    }
    result
}

fn page_row(
    i: usize,
    span: &PageSpan,
    descr: Option<&ColumnDescriptor>,
    max_rep: i16,
) -> (Vec<String>, Value) {
    let h = &span.header;
    let (nulls, rows) = match h.type_ {
        PageType::DATA_PAGE_V2 => {
            let v2 = h.data_page_header_v2.as_ref();
            (
                v2.map(|d| i64::from(d.num_nulls)),
                v2.map(|d| i64::from(d.num_rows)),
            )
        }
        PageType::DATA_PAGE => (
            span.statistics().and_then(|s| s.null_count),
            (max_rep == 0)
                .then(|| span.num_values().map(i64::from))
                .flatten(),
        ),
        _ => (None, None),
    };
    let (min, max) = bounds(span.statistics(), descr);
    let crc = match span.crc_status() {
        CrcStatus::Absent => "-".to_string(),
        CrcStatus::Valid => "ok".to_string(),
        CrcStatus::Invalid { .. } => "BAD".to_string(),
    };
    let kind = match h.type_ {
        PageType::DATA_PAGE => "data v1".to_string(),
        PageType::DATA_PAGE_V2 => "data v2".to_string(),
        PageType::DICTIONARY_PAGE => "dictionary".to_string(),
        PageType::INDEX_PAGE => "index".to_string(),
        other => format!("{other:?}"),
    };
    let encoding = span
        .encoding()
        .map_or("-".to_string(), |e| format!("{e:?}"));
    let opt = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
    let row = vec![
        i.to_string(),
        span.offset.to_string(),
        kind.clone(),
        encoding.clone(),
        span.header_len.to_string(),
        span.compressed_len.to_string(),
        span.uncompressed_len.to_string(),
        opt(span.num_values().map(i64::from)),
        opt(nulls),
        opt(rows),
        min.clone().unwrap_or_else(|| "-".into()),
        max.clone().unwrap_or_else(|| "-".into()),
        crc.clone(),
    ];
    let json = json!({
        "page": i,
        "offset": span.offset,
        "type": kind,
        "encoding": encoding,
        "header_size": span.header_len,
        "compressed_size": span.compressed_len,
        "uncompressed_size": span.uncompressed_len,
        "num_values": span.num_values(),
        "num_nulls": nulls,
        "num_rows": rows,
        "min": min,
        "max": max,
        "crc": crc,
    });
    (row, json)
}

fn bounds(
    stats: Option<&Statistics>,
    descr: Option<&ColumnDescriptor>,
) -> (Option<String>, Option<String>) {
    let (Some(stats), Some(descr)) = (stats, descr) else {
        return (None, None);
    };
    let (min, max) = if stats.min_value.is_some() || stats.max_value.is_some() {
        (stats.min_value.as_deref(), stats.max_value.as_deref())
    } else {
        (stats.min.as_deref(), stats.max.as_deref())
    };
    let text = |b: Option<&[u8]>| b.map(|b| shorten(&value_text(descr, b)));
    (text(min), text(max))
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= 24 {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(23).collect();
        s.push('…');
        s
    }
}

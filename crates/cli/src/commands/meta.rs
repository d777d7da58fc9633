//! `hb meta [--json] FILE`: the file metadata as readable tables, or as JSON.

use std::io::Write;
use std::path::Path;

use herringbone::metadata::{
    ColumnChunk, FileMetaData, GeospatialStatistics, KeyValue, LogicalType, RowGroup, Statistics,
    TimeUnit, Type,
};
use herringbone::schema::{ColumnDescriptor, SchemaDescriptor};
use serde_json::{Value, json};

use herringbone_codec::variant::text::{
    format_date, format_decimal, format_time_of_day, format_timestamp, format_uuid,
};

use super::reading::FileFooter;

pub fn run(
    path: &Path,
    as_json: bool,
    keys: &super::keys::KeyArgs,
    out: &mut dyn Write,
) -> Result<(), String> {
    let file = FileFooter::open(path, keys)?;
    if as_json {
        let mut value = metadata_json(&file.metadata, &file.schema);
        let variants = file.variant_columns();
        if !variants.is_empty() {
            value["variant_columns"] = variants
                .into_iter()
                .map(|(path, shredding)| json!({"path": path, "shredding": shredding}))
                .collect::<Vec<_>>()
                .into();
        }
        let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
        writeln!(out, "{text}").map_err(|e| e.to_string())
    } else {
        run_tables(&file, out).map_err(|e| e.to_string())
    }
}

/// The JSON form of the metadata (`hb meta --json`).
pub fn metadata_json(metadata: &FileMetaData, schema: &SchemaDescriptor) -> Value {
    json!({
        "version": metadata.version,
        "num_rows": metadata.num_rows,
        "num_row_groups": metadata.row_groups.len(),
        "num_columns": schema.num_columns(),
        "created_by": metadata.created_by.as_deref(),
        "schema": schema.to_text(),
        "key_value_metadata": key_values_json(metadata.key_value_metadata.as_deref()),
        "row_groups": metadata
            .row_groups
            .iter()
            .enumerate()
            .map(|(i, rg)| row_group_json(i, rg, schema))
            .collect::<Vec<_>>(),
    })
}

fn key_values_json(kvs: Option<&[KeyValue]>) -> Value {
    let mut map = serde_json::Map::new();
    for kv in kvs.unwrap_or_default() {
        map.insert(
            kv.key.to_string(),
            kv.value.as_deref().map_or(Value::Null, Value::from),
        );
    }
    Value::Object(map)
}

fn row_group_json(index: usize, rg: &RowGroup, schema: &SchemaDescriptor) -> Value {
    json!({
        "index": index,
        "num_rows": rg.num_rows,
        "total_byte_size": rg.total_byte_size,
        "total_compressed_size": rg.total_compressed_size,
        "file_offset": rg.file_offset,
        "sorting_columns": rg.sorting_columns.as_ref().map(|cols| cols.iter().map(|c| json!({
            "column_idx": c.column_idx,
            "descending": c.descending,
            "nulls_first": c.nulls_first,
        })).collect::<Vec<_>>()),
        "columns": rg
            .columns
            .iter()
            .enumerate()
            .map(|(i, chunk)| column_json(chunk, schema.column(i)))
            .collect::<Vec<_>>(),
    })
}

fn column_json(chunk: &ColumnChunk, descr: Option<&ColumnDescriptor>) -> Value {
    let Some(meta) = &chunk.meta_data else {
        // Encrypted column metadata or a malformed chunk: say what is there.
        return json!({
            "path": descr.map(|d| d.path().dotted()),
            "meta_data": Value::Null,
            "encrypted": chunk.crypto_metadata.is_some(),
        });
    };
    let path = meta
        .path_in_schema
        .iter()
        .map(|p| p.as_str())
        .collect::<Vec<_>>()
        .join(".");
    json!({
        "path": path,
        "physical_type": meta.type_.to_string(),
        "logical_type": descr.and_then(logical_text),
        "converted_type": descr.and_then(|d| d.converted_type()).map(|c| c.to_string()),
        "encodings": meta.encodings.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
        "compression": meta.codec.to_string(),
        "total_compressed_size": meta.total_compressed_size,
        "total_uncompressed_size": meta.total_uncompressed_size,
        "num_values": meta.num_values,
        "data_page_offset": meta.data_page_offset,
        "dictionary_page_offset": meta.dictionary_page_offset,
        "column_index_offset": chunk.column_index_offset,
        "offset_index_offset": chunk.offset_index_offset,
        "bloom_filter_offset": meta.bloom_filter_offset,
        "bloom_filter_length": meta.bloom_filter_length,
        "statistics": meta.statistics.as_ref().map(|s| statistics_json(s, descr)),
        "geospatial_statistics": meta.geospatial_statistics.as_deref().map(geo_json),
    })
}

/// `GeospatialStatistics` as JSON: the box's bounds (null where absent; non-finite
/// bounds as strings, which JSON numbers cannot hold) and the type codes.
fn geo_json(geo: &GeospatialStatistics) -> Value {
    let num = |v: Option<f64>| match v {
        Some(v) if v.is_finite() => json!(v),
        Some(v) => json!(v.to_string()),
        None => Value::Null,
    };
    json!({
        "bbox": geo.bbox.as_ref().map(|b| json!({
            "xmin": num(Some(b.xmin)), "xmax": num(Some(b.xmax)),
            "ymin": num(Some(b.ymin)), "ymax": num(Some(b.ymax)),
            "zmin": num(b.zmin), "zmax": num(b.zmax),
            "mmin": num(b.mmin), "mmax": num(b.mmax),
        })),
        "geospatial_types": geo.geospatial_types,
    })
}

/// `GeospatialStatistics` as one line: `x [a, b] y [c, d] (z, m) types [1, 3]`;
/// `xmin > xmax` wraps the antimeridian.
fn geo_text(geo: &GeospatialStatistics) -> String {
    let mut out = String::new();
    match &geo.bbox {
        Some(b) => {
            out.push_str(&format!(
                "x [{}, {}] y [{}, {}]",
                b.xmin, b.xmax, b.ymin, b.ymax
            ));
            if let (Some(lo), Some(hi)) = (b.zmin, b.zmax) {
                out.push_str(&format!(" z [{lo}, {hi}]"));
            }
            if let (Some(lo), Some(hi)) = (b.mmin, b.mmax) {
                out.push_str(&format!(" m [{lo}, {hi}]"));
            }
            if b.xmin > b.xmax {
                out.push_str(" (wraps the antimeridian)");
            }
        }
        None => out.push_str("no bounding box"),
    }
    match &geo.geospatial_types {
        Some(types) => out.push_str(&format!(" types {types:?}")),
        None => out.push_str(" no type list"),
    }
    out
}

fn statistics_json(stats: &Statistics, descr: Option<&ColumnDescriptor>) -> Value {
    let (min, max, legacy) = min_max(stats);
    let render = |v: Option<&[u8]>| match (v, descr) {
        (Some(bytes), Some(d)) => Value::from(value_text(d, bytes)),
        (Some(bytes), None) => Value::from(hex(bytes)),
        (None, _) => Value::Null,
    };
    json!({
        "null_count": stats.null_count,
        "distinct_count": stats.distinct_count,
        "nan_count": stats.nan_count,
        "min": render(min),
        "max": render(max),
        "is_min_value_exact": stats.is_min_value_exact,
        "is_max_value_exact": stats.is_max_value_exact,
        "legacy_min_max": legacy,
    })
}

/// The statistics bounds: `min_value`/`max_value`, else the deprecated `min`/`max`
/// (flagged, because old writers used signed byte order for them).
fn min_max(stats: &Statistics) -> (Option<&[u8]>, Option<&[u8]>, bool) {
    if stats.min_value.is_some() || stats.max_value.is_some() {
        (
            stats.min_value.as_deref(),
            stats.max_value.as_deref(),
            false,
        )
    } else {
        let legacy = stats.min.is_some() || stats.max.is_some();
        (stats.min.as_deref(), stats.max.as_deref(), legacy)
    }
}

fn logical_text(descr: &ColumnDescriptor) -> Option<String> {
    descr.logical_type().map(|l| l.to_string())
}

/// A statistics value as text, read by the column's physical and logical type.
pub fn value_text(descr: &ColumnDescriptor, bytes: &[u8]) -> String {
    let logical = descr.logical_type();
    let scale = descr.scale().unwrap_or(0);
    let decimal = matches!(logical, Some(LogicalType::Decimal { .. }));
    match descr.physical_type() {
        Type::BOOLEAN => match bytes {
            [0] => "false".into(),
            [1] => "true".into(),
            _ => hex(bytes),
        },
        Type::INT32 => match <[u8; 4]>::try_from(bytes) {
            Ok(b) => {
                let v = i32::from_le_bytes(b);
                match logical {
                    Some(LogicalType::Integer {
                        is_signed: false, ..
                    }) => (v as u32).to_string(),
                    _ if decimal => decimal_text_for(i128::from(v), scale),
                    Some(LogicalType::Date) => format_date(v),
                    Some(LogicalType::Time {
                        unit: TimeUnit::Millis,
                        ..
                    }) => {
                        format_time_of_day(i64::from(v), 1_000, 3).unwrap_or_else(|| v.to_string())
                    }
                    _ => v.to_string(),
                }
            }
            Err(_) => hex(bytes),
        },
        Type::INT64 => match <[u8; 8]>::try_from(bytes) {
            Ok(b) => {
                let v = i64::from_le_bytes(b);
                match logical {
                    Some(LogicalType::Integer {
                        is_signed: false, ..
                    }) => (v as u64).to_string(),
                    _ if decimal => decimal_text_for(i128::from(v), scale),
                    Some(LogicalType::Time { unit, .. }) => {
                        let (per_second, digits) = unit_scale(*unit);
                        format_time_of_day(v, per_second, digits).unwrap_or_else(|| v.to_string())
                    }
                    Some(LogicalType::Timestamp {
                        unit,
                        is_adjusted_to_utc,
                    }) => {
                        let (per_second, digits) = unit_scale(*unit);
                        format_timestamp(v, per_second, digits, *is_adjusted_to_utc)
                    }
                    _ => v.to_string(),
                }
            }
            Err(_) => hex(bytes),
        },
        Type::FLOAT => match <[u8; 4]>::try_from(bytes) {
            Ok(b) => f32::from_le_bytes(b).to_string(),
            Err(_) => hex(bytes),
        },
        Type::DOUBLE => match <[u8; 8]>::try_from(bytes) {
            Ok(b) => f64::from_le_bytes(b).to_string(),
            Err(_) => hex(bytes),
        },
        Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY => match logical {
            Some(LogicalType::String | LogicalType::Enum | LogicalType::Json) => {
                match std::str::from_utf8(bytes) {
                    Ok(s) => s.to_string(),
                    Err(_) => hex(bytes),
                }
            }
            Some(LogicalType::Decimal { .. }) if !bytes.is_empty() && bytes.len() <= 16 => {
                decimal_text_for(be_signed(bytes), scale)
            }
            Some(LogicalType::Uuid) => match <&[u8; 16]>::try_from(bytes) {
                Ok(b) => format_uuid(b),
                Err(_) => hex(bytes),
            },
            Some(LogicalType::Float16) if bytes.len() == 2 => {
                f16_to_f64(u16::from_le_bytes([bytes[0], bytes[1]])).to_string()
            }
            _ => hex(bytes),
        },
        _ => hex(bytes),
    }
}

/// Units per second and fraction digits of a TIME / TIMESTAMP unit.
fn unit_scale(unit: TimeUnit) -> (i64, usize) {
    match unit {
        TimeUnit::Millis => (1_000, 3),
        TimeUnit::Micros => (1_000_000, 6),
        TimeUnit::Nanos => (1_000_000_000, 9),
    }
}

/// Parquet decimal scales are 0..=precision (the schema validates them), so any scale
/// fits the shared formatter; an out-of-range one falls back to the unscaled integer.
fn decimal_text_for(unscaled: i128, scale: i32) -> String {
    u8::try_from(scale).map_or_else(|_| unscaled.to_string(), |s| format_decimal(unscaled, s))
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 + bytes.len() * 2);
    s.push_str("0x");
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Big-endian two's complement (at most 16 bytes) as i128.
fn be_signed(bytes: &[u8]) -> i128 {
    let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut buf = [fill; 16];
    buf[16 - bytes.len()..].copy_from_slice(bytes);
    i128::from_be_bytes(buf)
}

fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

pub fn run_tables(file: &FileFooter, out: &mut dyn Write) -> std::io::Result<()> {
    let meta = &file.metadata;
    writeln!(out, "file size:       {} bytes", file.file_len)?;
    writeln!(
        out,
        "created by:      {}",
        meta.created_by.as_deref().unwrap_or("(not recorded)")
    )?;
    writeln!(out, "format version:  {}", meta.version)?;
    writeln!(out, "rows:            {}", meta.num_rows)?;
    writeln!(out, "row groups:      {}", meta.row_groups.len())?;
    writeln!(out, "leaf columns:    {}", file.schema.num_columns())?;
    let variants = file.variant_columns();
    if !variants.is_empty() {
        writeln!(out, "variant columns:")?;
        for (path, shredding) in variants {
            writeln!(out, "  {path}: {shredding}")?;
        }
    }
    if let Some(kvs) = &meta.key_value_metadata {
        writeln!(out, "key-value metadata:")?;
        for kv in kvs {
            let value = kv.value.as_deref().unwrap_or("(no value)");
            writeln!(out, "  {}: {}", kv.key.as_str(), shorten(value, 60))?;
        }
    }
    for (i, rg) in meta.row_groups.iter().enumerate() {
        writeln!(out)?;
        writeln!(
            out,
            "row group {i}: {} rows, {} bytes uncompressed{}",
            rg.num_rows,
            rg.total_byte_size,
            rg.total_compressed_size
                .map(|c| format!(", {c} bytes compressed"))
                .unwrap_or_default()
        )?;
        let header = [
            "column",
            "physical",
            "logical",
            "encodings",
            "codec",
            "compressed",
            "uncompressed",
            "values",
            "nulls",
            "min",
            "max",
        ];
        let rows: Vec<Vec<String>> = rg
            .columns
            .iter()
            .enumerate()
            .map(|(c, chunk)| column_row(chunk, file.schema.column(c)))
            .collect();
        write_table(out, &header, &rows)?;
        for (c, chunk) in rg.columns.iter().enumerate() {
            if let Some(geo) = chunk
                .meta_data
                .as_ref()
                .and_then(|m| m.geospatial_statistics.as_deref())
            {
                let path = file.schema.column(c).map(|d| d.path().dotted());
                writeln!(
                    out,
                    "  {} geospatial: {}",
                    path.unwrap_or_default(),
                    geo_text(geo)
                )?;
            }
        }
    }
    Ok(())
}

fn column_row(chunk: &ColumnChunk, descr: Option<&ColumnDescriptor>) -> Vec<String> {
    let path = descr.map(|d| d.path().dotted()).unwrap_or_default();
    let Some(meta) = &chunk.meta_data else {
        let mut row = vec![path, "(encrypted or missing metadata)".to_string()];
        row.resize(11, String::new());
        return row;
    };
    let (min, max, nulls) = match &meta.statistics {
        Some(stats) => {
            let (min, max, _) = min_max(stats);
            let render = |v: Option<&[u8]>| match (v, descr) {
                (Some(b), Some(d)) => shorten(&value_text(d, b), 24),
                (Some(b), None) => shorten(&hex(b), 24),
                (None, _) => "-".to_string(),
            };
            (
                render(min),
                render(max),
                stats
                    .null_count
                    .map_or_else(|| "-".to_string(), |n| n.to_string()),
            )
        }
        None => ("-".into(), "-".into(), "-".into()),
    };
    vec![
        path,
        meta.type_.to_string(),
        descr.and_then(logical_text).unwrap_or_else(|| "-".into()),
        meta.encodings
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join(","),
        meta.codec.to_string(),
        meta.total_compressed_size.to_string(),
        meta.total_uncompressed_size.to_string(),
        meta.num_values.to_string(),
        nulls,
        min,
        max,
    ]
}

fn shorten(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        s.replace('\n', " ")
    } else {
        let mut t: String = s.chars().take(max_chars - 1).collect();
        t.push('…');
        t.replace('\n', " ")
    }
}

/// Writes rows as an aligned text table under a header line.
pub fn write_table(
    out: &mut dyn Write,
    header: &[&str],
    rows: &[Vec<String>],
) -> std::io::Result<()> {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| -> String {
        let mut s = String::from(" ");
        for (cell, w) in cells.zip(&widths) {
            s.push(' ');
            s.push_str(cell);
            s.extend(std::iter::repeat_n(' ', w - cell.chars().count() + 1));
        }
        s.trim_end().to_string()
    };
    writeln!(out, "{}", line(&mut header.iter().copied()))?;
    for row in rows {
        writeln!(out, "{}", line(&mut row.iter().map(String::as_str)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_dates_and_halves_render_exactly() {
        assert_eq!(decimal_text_for(-5, 2), "-0.05");
        assert_eq!(decimal_text_for(12345, 2), "123.45");
        assert_eq!(decimal_text_for(7, 0), "7");
        assert_eq!(be_signed(&[0xff, 0x38]), -200);
        assert_eq!(format_date(0), "1970-01-01");
        assert_eq!(format_date(19_723), "2024-01-01");
        assert_eq!(format_date(-1), "1969-12-31");
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0xc000), -2.0);
        assert!(f16_to_f64(0x7e00).is_nan());
        assert_eq!(
            format_uuid(&[
                0xf2, 0x4f, 0x9b, 0x64, 0x81, 0xfa, 0x49, 0xd1, 0xb7, 0x4e, 0x8c, 0x09, 0xa6, 0xe3,
                0x1c, 0x56
            ]),
            "f24f9b64-81fa-49d1-b74e-8c09a6e31c56"
        );
    }

    #[test]
    fn times_and_timestamps_render_in_their_unit() {
        let schema = herringbone::schema::parse_schema(
            "message m { required int32 t (TIME(MILLIS,false)); \
             required int64 u (TIME(NANOS,true)); \
             required int64 ts (TIMESTAMP(MICROS,true)); \
             required int64 local (TIMESTAMP(MILLIS,false)); }",
        )
        .unwrap();
        let text = |column: usize, bytes: &[u8]| value_text(schema.column(column).unwrap(), bytes);
        assert_eq!(text(0, &3_723_004i32.to_le_bytes()), "01:02:03.004");
        // Outside one day: the number, not a wrapped time.
        assert_eq!(text(0, &(-1i32).to_le_bytes()), "-1");
        assert_eq!(
            text(1, &1_000_000_001i64.to_le_bytes()),
            "00:00:01.000000001"
        );
        assert_eq!(
            text(2, &1_577_836_800_000_001i64.to_le_bytes()),
            "2020-01-01T00:00:00.000001+00:00"
        );
        assert_eq!(text(3, &(-1i64).to_le_bytes()), "1969-12-31T23:59:59.999");
    }
}

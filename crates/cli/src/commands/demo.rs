//! `hb demo`: Herringbone end to end on a generated dataset, with no input files.
//!
//! It generates a deterministic table of orders (flat, dictionary, decimal, timestamp,
//! list, nested struct and map columns, with nulls), writes it with [`ArrowWriter`] into
//! memory (ZSTD, several row groups, page statistics, a Bloom filter), reads it back with
//! a projection that includes a nested leaf and every other row group, prints the schema,
//! a preview, sizes and throughput, and checks that the rows read back equal the
//! generated ones.
//!
//! Every row is generated from its own index ([`Rng::for_row`]), so any range of rows can
//! be generated again to verify a read without holding the whole table in memory.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::builder::{ListBuilder, MapBuilder, StringBuilder};
use arrow_array::types::Int8Type;
use arrow_array::{
    Array, ArrayRef, Decimal128Array, DictionaryArray, Float64Array, Int8Array, Int32Array,
    Int64Array, RecordBatch, StringArray, StructArray, TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use bytes::Bytes;
use herringbone::{
    ArrowWriter, Codec, ParquetRecordBatchReaderBuilder, Projection, StatisticsLevel,
    WriterProperties,
};
use herringbone_codec::bloom::SplitBlockBloomFilter;
use herringbone_format::footer;

use super::ParquetFile;
use super::progress::thousands;

/// Rows generated and written per batch.
const BATCH_ROWS: usize = 65_536;
/// Row groups the file is cut into (at most).
const ROW_GROUPS: usize = 8;
/// The columns read back: whole top-level fields and one leaf inside two structs.
const PROJECTION: &[&str] = &[
    "order_id",
    "ts",
    "customer",
    "amount",
    "tags",
    "address.geo.lat",
];

pub fn run(rows: usize, out: &mut dyn Write) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    let generator = Generator::new();
    writeln!(
        out,
        "Herringbone demo: {} generated orders, written and read back in memory (no input files)",
        thousands(rows as u64)
    )
    .map_err(io)?;

    // Write.
    let properties = WriterProperties::builder()
        .set_compression(Codec::Zstd { level: 1 })
        .set_max_row_group_rows(rows.div_ceil(ROW_GROUPS).max(1))
        .set_statistics(StatisticsLevel::Page)
        .set_bloom_filter("customer", 0.01, generator.customers.len() as u64)
        .build();
    let schema = Generator::schema();
    let arrow_failed = |e: herringbone::Error| format!("writing: {e}");
    let mut writer =
        ArrowWriter::try_new(Vec::new(), schema.clone(), Some(properties)).map_err(arrow_failed)?;
    let (mut arrow_bytes, mut write_time) = (0usize, Duration::ZERO);
    let mut start_row = 0;
    while start_row < rows {
        let n = BATCH_ROWS.min(rows - start_row);
        let batch = generator.batch(start_row as u64, n)?;
        arrow_bytes += batch.get_array_memory_size();
        let started = Instant::now();
        writer.write(&batch).map_err(arrow_failed)?;
        write_time += started.elapsed();
        start_row += n;
    }
    let started = Instant::now();
    writer.finish().map_err(arrow_failed)?;
    write_time += started.elapsed();
    let bytes = Bytes::from(writer.into_inner());
    let file = ParquetFile::from_bytes(bytes.clone())?;

    writeln!(out, "\n== schema (as `hb schema` prints it)").map_err(io)?;
    write!(out, "{}", file.schema.to_text()).map_err(io)?;

    writeln!(out, "\n== file").map_err(io)?;
    let groups: Vec<(usize, usize)> = {
        let mut first = 0usize;
        file.metadata
            .row_groups
            .iter()
            .map(|rg| {
                let n = usize::try_from(rg.num_rows).unwrap_or(0);
                first += n;
                (first - n, n)
            })
            .collect()
    };
    writeln!(
        out,
        "  {} rows in {} row groups, ZSTD, page statistics, column and offset index, \
         Bloom filter on `customer`",
        thousands(file.metadata.num_rows.max(0) as u64),
        groups.len()
    )
    .map_err(io)?;
    writeln!(
        out,
        "  file size {} (in-memory Arrow size {}): compression ratio {:.2}x",
        megabytes(bytes.len()),
        megabytes(arrow_bytes),
        arrow_bytes as f64 / bytes.len().max(1) as f64
    )
    .map_err(io)?;
    writeln!(
        out,
        "  write: {}",
        throughput(rows, arrow_bytes, write_time)
    )
    .map_err(io)?;

    // Read back every other row group, a few columns.
    let selected: Vec<usize> = (0..groups.len()).step_by(2).collect();
    let started = Instant::now();
    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
        .map_err(|e| format!("reading: {e}"))?;
    let projection = Projection::from_paths(builder.parquet_schema(), PROJECTION)
        .map_err(|e| format!("reading: {e}"))?;
    let reader = builder
        .with_projection(projection)
        .with_row_groups(selected.clone())
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| format!("reading: {e}"))?;
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("reading: {e}"))?;
    let read_time = started.elapsed();
    let read_rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let read_bytes: usize = batches.iter().map(|b| b.get_array_memory_size()).sum();

    writeln!(
        out,
        "\n== read back: columns {} of row groups {:?}",
        PROJECTION.join(", "),
        selected
    )
    .map_err(io)?;
    writeln!(
        out,
        "  read: {}",
        throughput(read_rows, read_bytes, read_time)
    )
    .map_err(io)?;
    writeln!(
        out,
        "\n== preview (first 5 rows read, as `hb cat` prints them)"
    )
    .map_err(io)?;
    let preview = match batches.first() {
        Some(first) => vec![first.slice(0, first.num_rows().min(5))],
        None => vec![RecordBatch::new_empty(batches_schema(&batches, &schema))],
    };
    let table = super::cat::render_table(&preview).map_err(|e| e.to_string())?;
    writeln!(out, "{table}").map_err(io)?;

    // Check.
    let expected_rows: usize = selected.iter().map(|&g| groups[g].1).sum();
    if read_rows != expected_rows {
        return Err(format!(
            "check failed: read {read_rows} rows, the selected row groups hold {expected_rows}"
        ));
    }
    let checked = verify(&generator, &batches, &selected, &groups)?;
    writeln!(
        out,
        "\n== check: {} rows x {} columns read back equal the generated ones: verified",
        thousands(read_rows as u64),
        checked
    )
    .map_err(io)?;

    footer_and_bloom(&bytes, &file, &generator, out)
}

/// The schema of the read batches, or the projected file schema when none were read.
fn batches_schema(batches: &[RecordBatch], fallback: &SchemaRef) -> SchemaRef {
    batches
        .first()
        .map(|b| b.schema())
        .unwrap_or_else(|| fallback.clone())
}

/// Compares the read batches, column by column, with the generated rows of the
/// selected row groups; returns the number of columns compared.
fn verify(
    generator: &Generator,
    batches: &[RecordBatch],
    selected: &[usize],
    groups: &[(usize, usize)],
) -> Result<usize, String> {
    let Some(first) = batches.first() else {
        return Ok(0);
    };
    let read_schema = first.schema();
    // The expected rows, in read order, as a queue of generated batches.
    let mut expected = selected.iter().flat_map(|&g| {
        let (start, len) = groups[g];
        (0..len)
            .step_by(BATCH_ROWS)
            .map(move |offset| (start + offset, BATCH_ROWS.min(len - offset)))
    });
    let mut current: Option<(RecordBatch, usize)> = None;
    let mut row = 0usize;
    for batch in batches {
        let mut done = 0;
        while done < batch.num_rows() {
            let (want, offset) = match current.take() {
                Some(c) if c.1 < c.0.num_rows() => c,
                _ => {
                    let (start, len) = expected
                        .next()
                        .ok_or("check failed: more rows read than generated")?;
                    let generated = generator.batch(start as u64, len)?;
                    (project_like(&generated, &read_schema)?, 0)
                }
            };
            let n = (batch.num_rows() - done).min(want.num_rows() - offset);
            let got = batch.slice(done, n);
            let wanted = want.slice(offset, n);
            for (i, field) in read_schema.fields().iter().enumerate() {
                if got.column(i).as_ref() != wanted.column(i).as_ref() {
                    return Err(format!(
                        "check failed: column `{}` differs in rows {}..{} of those read",
                        field.name(),
                        row,
                        row + n
                    ));
                }
            }
            done += n;
            row += n;
            current = Some((want, offset + n));
        }
    }
    Ok(read_schema.fields().len())
}

/// The generated columns the reader returns for [`PROJECTION`]: whole fields, and
/// `address` pruned to `address.geo.lat` (structs keep their own validity).
fn project_like(batch: &RecordBatch, read_schema: &SchemaRef) -> Result<RecordBatch, String> {
    let mut columns: Vec<ArrayRef> = Vec::new();
    for field in read_schema.fields() {
        let column = batch
            .column_by_name(field.name())
            .ok_or_else(|| format!("check failed: no generated column `{}`", field.name()))?;
        columns.push(prune(column, field.data_type())?);
    }
    RecordBatch::try_new(read_schema.clone(), columns).map_err(|e| format!("check failed: {e}"))
}

/// `array` with only the struct children `shape` names, recursively.
fn prune(array: &ArrayRef, shape: &DataType) -> Result<ArrayRef, String> {
    let DataType::Struct(fields) = shape else {
        return Ok(array.clone());
    };
    let parent = array
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or("check failed: a struct was expected")?;
    let children = fields
        .iter()
        .map(|f| {
            let child = parent
                .column_by_name(f.name())
                .ok_or_else(|| format!("check failed: no generated field `{}`", f.name()))?;
            prune(child, f.data_type())
        })
        .collect::<Result<Vec<_>, String>>()?;
    let pruned = StructArray::try_new(fields.clone(), children, parent.nulls().cloned())
        .map_err(|e| format!("check failed: {e}"))?;
    Ok(Arc::new(pruned))
}

/// The footer decode time and Bloom filter probes on the written file.
fn footer_and_bloom(
    bytes: &Bytes,
    file: &ParquetFile,
    generator: &Generator,
    out: &mut dyn Write,
) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    writeln!(out, "\n== footer and Bloom filter").map_err(io)?;
    let footer_len = footer::footer_range(bytes)
        .map_err(|e| e.to_string())?
        .len();
    let decode = time_per_call(|| footer::read_metadata(bytes).map(|m| m.row_groups.len()))?;
    writeln!(
        out,
        "  footer ({footer_len} bytes): {:.1} us per decode",
        decode.as_secs_f64() * 1e6
    )
    .map_err(io)?;
    let Some(customer) = file
        .schema
        .columns()
        .iter()
        .position(|c| c.path().dotted() == "customer")
    else {
        return Ok(());
    };
    let Some(chunk) = file
        .metadata
        .row_groups
        .first()
        .and_then(|rg| rg.columns.get(customer))
    else {
        return Ok(());
    };
    let Some(location) =
        footer::read_bloom_filter_header(bytes, chunk).map_err(|e| e.to_string())?
    else {
        return Ok(());
    };
    let range = usize::try_from(location.bitset.start).map_err(|e| e.to_string())?
        ..usize::try_from(location.bitset.end).map_err(|e| e.to_string())?;
    let bitset = bytes
        .get(range)
        .ok_or("the Bloom filter lies outside the file")?;
    let filter = SplitBlockBloomFilter::from_bitset(bitset, 1 << 27).map_err(|e| e.to_string())?;
    let present = generator.customers[generator.customer_of(0)].as_str();
    let probes = [present, "Nobody Q. Atlantis"]
        .iter()
        .map(|name| {
            let verdict = if filter.check(name.as_bytes()) {
                "maybe present"
            } else {
                "absent"
            };
            format!("{name}: {verdict}")
        })
        .collect::<Vec<_>>()
        .join(", ");
    writeln!(
        out,
        "  `customer` in row group 0 ({} bytes): {probes}",
        filter.num_bytes()
    )
    .map_err(io)
}

fn megabytes(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn throughput(rows: usize, bytes: usize, time: Duration) -> String {
    let seconds = time.as_secs_f64().max(1e-9);
    format!(
        "{} rows in {:.3} s: {} rows/s, {:.0} MB/s of Arrow data",
        thousands(rows as u64),
        seconds,
        thousands((rows as f64 / seconds) as u64),
        bytes as f64 / 1e6 / seconds
    )
}

/// Average time of `f` over repeated calls (at least 20 ms of work).
fn time_per_call<T, E: std::fmt::Display>(
    mut f: impl FnMut() -> Result<T, E>,
) -> Result<Duration, String> {
    let mut calls = 0u32;
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(20) || calls < 5 {
        std::hint::black_box(f().map_err(|e| e.to_string())?);
        calls += 1;
    }
    Ok(start.elapsed() / calls)
}

/// SplitMix64: a tiny deterministic generator, plenty for demo data.
struct Rng(u64);

impl Rng {
    /// The generator of one row: independent of every other row.
    fn for_row(row: u64, salt: u64) -> Self {
        let mut rng = Rng(row.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt);
        rng.next();
        rng
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// Uniform in `0.0..1.0`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const FIRST: &[&str] = &[
    "Ada",
    "Alan",
    "Grace",
    "Edsger",
    "Barbara",
    "Donald",
    "Frances",
    "John",
    "Margaret",
    "Ken",
    "Radia",
    "Dennis",
    "Sophie",
    "Tim",
    "Hedy",
    "Linus",
    "Karen",
    "Niklaus",
    "Shafi",
    "Leslie",
    "Anita",
    "Bjarne",
    "Jean",
    "Guido",
    "Lynn",
    "Robin",
    "Yukihiro",
    "Evelyn",
    "Whitfield",
    "Annie",
    "Carl",
    "Mary",
    "Ivan",
    "Adele",
    "Fran",
    "Butler",
    "Cynthia",
    "Martin",
    "Joan",
    "Peter",
];
const LAST: &[&str] = &[
    "Lovelace",
    "Turing",
    "Hopper",
    "Dijkstra",
    "Liskov",
    "Knuth",
    "Allen",
    "McCarthy",
    "Hamilton",
    "Thompson",
    "Perlman",
    "Ritchie",
    "Wilson",
    "Berners-Lee",
    "Lamarr",
    "Torvalds",
    "Jones",
    "Wirth",
    "Goldwasser",
    "Lamport",
    "Borg",
    "Stroustrup",
    "Sammet",
    "van Rossum",
    "Conway",
    "Milner",
    "Matsumoto",
    "Berezin",
    "Diffie",
    "Easley",
    "Hewitt",
    "Keller",
    "Sutherland",
    "Goldberg",
    "Bilas",
    "Lampson",
    "Dwork",
    "Fowler",
    "Clarke",
    "Naur",
    "Backus",
    "Kay",
    "Engelbart",
    "Floyd",
    "Hoare",
    "Rivest",
    "Shamir",
    "Adleman",
    "Cerf",
    "Kahn",
];
/// City, postal code prefix, latitude, longitude.
const CITIES: &[(&str, &str, f64, f64)] = &[
    ("Oslo", "01", 59.91, 10.75),
    ("Lisbon", "11", 38.72, -9.14),
    ("Berlin", "10", 52.52, 13.40),
    ("Paris", "75", 48.86, 2.35),
    ("Madrid", "28", 40.42, -3.70),
    ("Rome", "00", 41.90, 12.50),
    ("Vienna", "12", 48.21, 16.37),
    ("Prague", "11", 50.08, 14.44),
    ("Warsaw", "00", 52.23, 21.01),
    ("Dublin", "D0", 53.35, -6.26),
    ("Helsinki", "00", 60.17, 24.94),
    ("Athens", "10", 37.98, 23.73),
    ("Amsterdam", "10", 52.37, 4.90),
    ("Stockholm", "11", 59.33, 18.07),
    ("Copenhagen", "12", 55.68, 12.57),
    ("Zurich", "80", 47.38, 8.54),
];
const STATUSES: &[&str] = &[
    "pending",
    "paid",
    "shipped",
    "delivered",
    "cancelled",
    "returned",
];
const TAGS: &[&str] = &[
    "gift", "express", "fragile", "bulk", "promo", "eco", "priority", "intl",
];
const CHANNELS: &[&str] = &["web", "app", "store", "phone"];
const NOTES: &[&str] = &[
    "leave at the door",
    "call before delivery",
    "customer asked for an invoice",
    "address checked by phone",
];
/// 2024-01-01T00:00:00Z in microseconds.
const EPOCH_2024_US: i64 = 1_704_067_200_000_000;

/// The orders table: its schema and any range of its rows.
struct Generator {
    customers: Vec<String>,
}

impl Generator {
    fn new() -> Self {
        let mut customers = Vec::with_capacity(FIRST.len() * LAST.len() * 3);
        for first in FIRST {
            for initial in ["A", "K", "M"] {
                for last in LAST {
                    customers.push(format!("{first} {initial}. {last}"));
                }
            }
        }
        Self { customers }
    }

    fn geo_fields() -> Fields {
        Fields::from(vec![
            Field::new("lat", DataType::Float64, false),
            Field::new("lon", DataType::Float64, false),
        ])
    }

    fn address_fields() -> Fields {
        Fields::from(vec![
            Field::new("city", DataType::Utf8, false),
            Field::new("zip", DataType::Utf8, false),
            Field::new("geo", DataType::Struct(Self::geo_fields()), true),
        ])
    }

    fn schema() -> SchemaRef {
        let tags = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
        let entries = Field::new(
            "entries",
            DataType::Struct(Fields::from(vec![
                Field::new("keys", DataType::Utf8, false),
                Field::new("values", DataType::Utf8, true),
            ])),
            false,
        );
        Arc::new(Schema::new(vec![
            Field::new("order_id", DataType::Int64, false),
            Field::new(
                "ts",
                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                false,
            ),
            Field::new("customer", DataType::Utf8, false),
            Field::new(
                "status",
                DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8)),
                false,
            ),
            Field::new("amount", DataType::Decimal128(12, 2), false),
            Field::new("quantity", DataType::Int32, true),
            Field::new("discount", DataType::Float64, false),
            Field::new("tags", tags, false),
            Field::new("address", DataType::Struct(Self::address_fields()), true),
            Field::new("attributes", DataType::Map(Arc::new(entries), false), true),
            Field::new("note", DataType::Utf8, true),
        ]))
    }

    /// The customer of a row (the same draw [`Generator::batch`] makes).
    fn customer_of(&self, row: u64) -> usize {
        Rng::for_row(row, 0xC0FFEE).below(self.customers.len() as u64) as usize
    }

    /// Rows `start..start + n`.
    fn batch(&self, start: u64, n: usize) -> Result<RecordBatch, String> {
        use std::fmt::Write as _;
        let mut order_id = Vec::with_capacity(n);
        let mut ts = Vec::with_capacity(n);
        let mut customer = StringBuilder::with_capacity(n, n * 20);
        let mut status = Vec::with_capacity(n);
        let mut amount = Vec::with_capacity(n);
        let mut quantity = Vec::with_capacity(n);
        let mut discount = Vec::with_capacity(n);
        let mut tags = ListBuilder::new(StringBuilder::new());
        let mut city = StringBuilder::with_capacity(n, n * 8);
        let mut zip = StringBuilder::with_capacity(n, n * 5);
        let (mut lat, mut lon) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut geo_valid, mut address_valid) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut attributes = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
        let mut note = StringBuilder::new();
        for row in start..start + n as u64 {
            let mut rng = Rng::for_row(row, 0xDA7A);
            order_id.push(1_000_000 + row as i64);
            // About one order every 1.3 s, with jitter.
            ts.push(EPOCH_2024_US + row as i64 * 1_300_000 + rng.below(1_000_000) as i64);
            customer.append_value(&self.customers[self.customer_of(row)]);
            // Most orders are delivered; few are returned.
            status.push(match rng.below(100) {
                0..=4 => 0,
                5..=14 => 1,
                15..=29 => 2,
                30..=91 => 3,
                92..=96 => 4,
                _ => 5,
            });
            // Skewed towards small amounts: 1.00 .. 5000.00.
            let u = rng.unit();
            amount.push(100 + (u * u * u * 499_900.0) as i128);
            quantity.push((!rng.chance(5)).then(|| 1 + rng.below(20) as i32));
            discount.push(if rng.chance(70) {
                0.0
            } else {
                rng.below(31) as f64 / 100.0
            });
            for _ in 0..rng.below(5) {
                tags.values()
                    .append_value(TAGS[rng.below(TAGS.len() as u64) as usize]);
            }
            tags.append(true);
            let has_address = !rng.chance(2);
            let has_geo = has_address && !rng.chance(10);
            let (name, prefix, base_lat, base_lon) =
                CITIES[rng.below(CITIES.len() as u64) as usize];
            if has_address {
                city.append_value(name);
                let _ = write!(zip, "{prefix}{:03}", rng.below(1000));
                zip.append_value("");
            } else {
                city.append_null();
                zip.append_null();
            }
            if has_geo {
                lat.push(Some(base_lat + (rng.unit() - 0.5) * 0.2));
                lon.push(Some(base_lon + (rng.unit() - 0.5) * 0.2));
            } else {
                lat.push(None);
                lon.push(None);
            }
            geo_valid.push(has_geo);
            address_valid.push(has_address);
            if rng.chance(90) {
                attributes.keys().append_value("channel");
                attributes
                    .values()
                    .append_value(CHANNELS[rng.below(CHANNELS.len() as u64) as usize]);
                if rng.chance(20) {
                    attributes.keys().append_value("coupon");
                    let _ = write!(attributes.values(), "SAVE{}", 5 * (1 + rng.below(6)));
                    attributes.values().append_value("");
                }
                if rng.chance(10) {
                    attributes.keys().append_value("gift_wrap");
                    attributes.values().append_null();
                }
                attributes.append(true).map_err(|e| e.to_string())?;
            } else {
                attributes.append(false).map_err(|e| e.to_string())?;
            }
            if rng.chance(5) {
                note.append_value(NOTES[rng.below(NOTES.len() as u64) as usize]);
            } else {
                note.append_null();
            }
        }
        let statuses = DictionaryArray::<Int8Type>::try_new(
            Int8Array::from(status),
            Arc::new(StringArray::from(STATUSES.to_vec())),
        )
        .map_err(|e| e.to_string())?;
        let geo = StructArray::try_new(
            Self::geo_fields(),
            vec![
                Arc::new(Float64Array::from(lat)) as ArrayRef,
                Arc::new(Float64Array::from(lon)),
            ],
            Some(geo_valid.into()),
        )
        .map_err(|e| e.to_string())?;
        let address = StructArray::try_new(
            Self::address_fields(),
            vec![
                Arc::new(city.finish()) as ArrayRef,
                Arc::new(zip.finish()),
                Arc::new(geo),
            ],
            Some(address_valid.into()),
        )
        .map_err(|e| e.to_string())?;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(order_id)),
            Arc::new(TimestampMicrosecondArray::from(ts).with_timezone("UTC")),
            Arc::new(customer.finish()),
            Arc::new(statuses),
            Arc::new(
                Decimal128Array::from(amount)
                    .with_precision_and_scale(12, 2)
                    .map_err(|e| e.to_string())?,
            ),
            Arc::new(Int32Array::from(quantity)),
            Arc::new(Float64Array::from(discount)),
            Arc::new(tags.finish()),
            Arc::new(address),
            Arc::new(attributes.finish()),
            Arc::new(note.finish()),
        ];
        RecordBatch::try_new(Self::schema(), columns).map_err(|e| e.to_string())
    }
}

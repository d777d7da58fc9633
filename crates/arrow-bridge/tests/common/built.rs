//! Parquet files built page by page from the codec's encoders: any schema, any page
//! layout, any header values (honest or not). Also included by the CLI's tests (by
//! path), so it names the crates it uses in full.

use herringbone_codec::compression::Codec;
use herringbone_codec::page::{DataPageV1, DataPageV2, PageWriter};
use herringbone_codec::rle::{LengthPrefix, RleEncoder};
use herringbone_format::footer::encode_footer;
use herringbone_format::metadata::{
    ColumnChunk, ColumnMetaData, Encoding, FileMetaData, PageType, RowGroup,
};
use herringbone_format::schema::{SchemaDescriptor, parse_message_type};

/// Levels RLE-encoded, with the 4-byte length prefix of a v1 page (`prefixed`) or
/// without (v2 pages).
pub fn levels(values: &[u16], bit_width: usize, prefixed: bool) -> Vec<u8> {
    let mut encoder = RleEncoder::new(bit_width);
    for &v in values {
        encoder.put(u64::from(v));
    }
    let mut out = Vec::new();
    let prefix = if prefixed {
        LengthPrefix::With
    } else {
        LengthPrefix::Without
    };
    encoder.append_to(&mut out, prefix);
    out
}

/// `count` copies of `level` as one RLE run.
pub fn level_run(level: u16, count: usize, bit_width: usize, prefixed: bool) -> Vec<u8> {
    let mut encoder = RleEncoder::new(bit_width);
    encoder.put_run(u64::from(level), count);
    let mut out = Vec::new();
    let prefix = if prefixed {
        LengthPrefix::With
    } else {
        LengthPrefix::Without
    };
    encoder.append_to(&mut out, prefix);
    out
}

/// Dictionary indices of one value repeated `count` times: the bit width byte, then
/// one RLE run.
pub fn index_run(index: u32, count: usize, bit_width: u8) -> Vec<u8> {
    let mut out = vec![bit_width];
    let mut encoder = RleEncoder::new(usize::from(bit_width));
    encoder.put_run(u64::from(index), count);
    encoder.append_to(&mut out, LengthPrefix::Without);
    out
}

/// The pages of one column chunk, written in order.
#[derive(Debug)]
pub struct Chunk {
    writer: PageWriter,
    bytes: Vec<u8>,
    num_values: i64,
    dictionary: bool,
    encodings: Vec<Encoding>,
}

impl Chunk {
    /// An empty chunk compressed with `codec`.
    pub fn new(codec: Codec) -> Self {
        Self {
            writer: PageWriter::new(codec),
            bytes: Vec::new(),
            num_values: 0,
            dictionary: false,
            encodings: Vec::new(),
        }
    }

    fn note(&mut self, encoding: Encoding) {
        if !self.encodings.contains(&encoding) {
            self.encodings.push(encoding);
        }
    }

    /// Appends the dictionary page (PLAIN values).
    pub fn dictionary(mut self, values: &[u8], num_values: usize) -> Self {
        self.writer
            .write_dictionary_page(&mut self.bytes, values, num_values, false)
            .expect("dictionary page");
        self.dictionary = true;
        self.note(Encoding::PLAIN);
        self
    }

    /// Appends a v1 data page: `rep` and `def` as stored (length-prefixed RLE, or empty
    /// for a column without those levels), then the values.
    pub fn v1(
        mut self,
        rep: &[u8],
        def: &[u8],
        values: &[u8],
        num_values: usize,
        encoding: Encoding,
    ) -> Self {
        self.writer
            .write_data_page_v1(
                &mut self.bytes,
                &DataPageV1 {
                    rep_levels: rep,
                    def_levels: def,
                    values,
                    num_values,
                    num_rows: 0,
                    encoding,
                    def_level_encoding: Encoding::RLE,
                    rep_level_encoding: Encoding::RLE,
                    statistics: None,
                },
            )
            .expect("v1 page");
        self.num_values += num_values as i64;
        self.note(encoding);
        self
    }

    /// Appends a v2 data page (levels without length prefixes).
    #[allow(clippy::too_many_arguments)]
    pub fn v2(
        mut self,
        rep: &[u8],
        def: &[u8],
        values: &[u8],
        num_values: usize,
        num_nulls: usize,
        num_rows: usize,
        encoding: Encoding,
    ) -> Self {
        self.writer
            .write_data_page_v2(
                &mut self.bytes,
                &DataPageV2 {
                    rep_levels: rep,
                    def_levels: def,
                    values,
                    num_values,
                    num_nulls,
                    num_rows,
                    encoding,
                    statistics: None,
                },
            )
            .expect("v2 page");
        self.num_values += num_values as i64;
        self.note(encoding);
        self
    }
}

/// A file of one row group of `num_rows` rows with `schema` (the textual `message`
/// form) and one chunk per leaf column, in order.
pub fn file(schema: &str, num_rows: i64, chunks: Vec<Chunk>) -> Vec<u8> {
    let elements = parse_message_type(schema).expect("schema text");
    let descriptor = SchemaDescriptor::new(&elements).expect("schema");
    assert_eq!(
        descriptor.num_columns(),
        chunks.len(),
        "one chunk per leaf column"
    );
    let mut out = b"PAR1".to_vec();
    let mut columns = Vec::new();
    let mut total = 0i64;
    for (i, chunk) in chunks.into_iter().enumerate() {
        let column = descriptor.column(i).expect("column");
        let start = out.len() as i64;
        let size = chunk.bytes.len() as i64;
        out.extend_from_slice(&chunk.bytes);
        total += size;
        let mut encodings = chunk.encodings.clone();
        encodings.push(Encoding::RLE);
        let (dictionary_page_offset, data_page_offset) = if chunk.dictionary {
            (Some(start), start + first_page_len(&chunk.bytes))
        } else {
            (None, start)
        };
        columns.push(ColumnChunk {
            file_offset: start,
            meta_data: Some(ColumnMetaData {
                type_: column.physical_type(),
                encodings: encodings.into(),
                path_in_schema: column
                    .path()
                    .parts()
                    .iter()
                    .map(|p| p.as_str().into())
                    .collect(),
                codec: chunk.writer.codec().compression_codec(),
                num_values: chunk.num_values,
                total_uncompressed_size: size,
                total_compressed_size: size,
                data_page_offset,
                dictionary_page_offset,
                ..Default::default()
            }),
            ..Default::default()
        });
    }
    let metadata = FileMetaData {
        version: 1,
        schema: elements,
        num_rows,
        row_groups: vec![RowGroup {
            columns,
            total_byte_size: total,
            num_rows,
            ..Default::default()
        }],
        created_by: Some("herringbone test builder".into()),
        ..Default::default()
    };
    encode_footer(&metadata, &mut out);
    out
}

/// The length (header and body) of the first page of `chunk`.
fn first_page_len(chunk: &[u8]) -> i64 {
    use herringbone_format::metadata::PageHeader;
    use herringbone_format::thrift::{CompactReader, ThriftStruct};
    let mut reader = CompactReader::new(chunk);
    let header = PageHeader::read(&mut reader).expect("page header");
    assert_eq!(header.type_, PageType::DICTIONARY_PAGE);
    (reader.position() + header.compressed_page_size as usize) as i64
}

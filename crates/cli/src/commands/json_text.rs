//! Variant columns as JSON in the text outputs (`hb cat`, `hb convert` to CSV or JSON
//! lines): each Variant column becomes its JSON text
//! (`herringbone::arrow::variant::variants_as_json`, a string column marked
//! `arrow.json`); tables and CSV print that text, and the JSON-lines writer embeds it as
//! a JSON value rather than a quoted string ([`EmbedJsonText`]).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch, StringArray};
use arrow_json::writer::{Encoder, EncoderFactory, EncoderOptions, NullableEncoder};
use arrow_schema::{ArrowError, DataType, FieldRef};
use herringbone::arrow::schema::EXTENSION_NAME_KEY;
use herringbone::arrow::variant::{JSON_EXTENSION_NAME, variants_as_json};

/// `batch` with every Variant column replaced by its JSON text (unchanged without one).
pub fn with_variants_as_json(batch: &RecordBatch) -> Result<RecordBatch, String> {
    variants_as_json(batch).map_err(|e| e.to_string())
}

/// Writes the strings of `arrow.json` columns into JSON output as they are: they are
/// JSON values already.
#[derive(Debug)]
pub struct EmbedJsonText;

impl EmbedJsonText {
    /// The factory, shared by a JSON writer's encoders.
    pub fn shared() -> Arc<dyn EncoderFactory> {
        Arc::new(EmbedJsonText)
    }
}

impl EncoderFactory for EmbedJsonText {
    fn make_default_encoder<'a>(
        &self,
        field: &'a FieldRef,
        array: &'a dyn Array,
        _options: &'a EncoderOptions,
    ) -> Result<Option<NullableEncoder<'a>>, ArrowError> {
        let is_json = field.metadata().get(EXTENSION_NAME_KEY).map(String::as_str)
            == Some(JSON_EXTENSION_NAME);
        if !is_json || array.data_type() != &DataType::Utf8 {
            return Ok(None);
        }
        let strings = array.as_string::<i32>();
        Ok(Some(NullableEncoder::new(
            Box::new(RawText(strings)),
            strings.nulls().cloned(),
        )))
    }
}

/// Copies each string as raw JSON text.
struct RawText<'a>(&'a StringArray);

impl Encoder for RawText<'_> {
    fn encode(&mut self, idx: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(self.0.value(idx).as_bytes());
    }
}

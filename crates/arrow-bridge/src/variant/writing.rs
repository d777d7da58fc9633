//! What the writer does with Variant columns: each becomes the `{metadata, value,
//! typed_value?}` struct the Parquet writer writes as a `VARIANT` group, shaped as its
//! [`VariantShredding`] setting says, with every row's metadata dictionary sorted (and
//! so free of duplicates).
//!
//! The written struct has canonical types (`Binary` metadata and values, the
//! `typed_value` types of [`ShreddedType::storage_type`]), whatever binary or string
//! layout the arrays came in.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::BinaryBuilder;
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, SchemaRef};

use crate::error::{Error, Result};

use super::binary::BinaryColumn;
use super::extension::{METADATA, VALUE, unshredded_struct};
use super::infer::{DEFAULT_INFERENCE_ROWS, infer_shredding};
use super::nested::{map_batch, map_schema};
use super::shape::ShreddedType;
use super::shred::shred;
use super::unshred::{MetadataCache, unshred};

/// How the writer stores a Variant column (set per column with
/// `WriterPropertiesBuilder::set_variant_shredding`, keyed by the column's dotted
/// Arrow path).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum VariantShredding {
    /// In the shape the arrays have (shredded arrays stay shredded as they are).
    #[default]
    AsIs,
    /// Unshredded: `metadata` and `value` only.
    Unshredded,
    /// Shredded to this shape.
    Shape(ShreddedType),
    /// Shredded to a shape inferred from the first rows written (up to
    /// [`DEFAULT_INFERENCE_ROWS`] of the first batch; see [`infer_shredding`]).
    Auto,
}

/// The Variant columns of a writer's schema and the shape each is written in.
#[derive(Debug, Clone)]
pub(crate) struct VariantWritePlan {
    input: SchemaRef,
    settings: HashMap<String, VariantShredding>,
    /// Shapes of the `Auto` columns once inferred.
    inferred: HashMap<String, ShreddedType>,
    written: SchemaRef,
}

/// The shape of a Variant field's storage struct.
fn field_shape(field: &Field, path: &str) -> Result<ShreddedType> {
    let DataType::Struct(children) = field.data_type() else {
        return Err(Error::invalid_argument(format!(
            "variant column {path} is {}, not a struct",
            field.data_type()
        )));
    };
    ShreddedType::from_storage_fields(children)
        .map_err(|e| e.context(format!("variant column {path}")))
}

impl VariantWritePlan {
    /// The plan for `schema` with per-column `settings`; `None` when the schema has no
    /// Variant column. Errors when a setting names no Variant column.
    pub fn new(
        schema: &SchemaRef,
        settings: &HashMap<String, VariantShredding>,
    ) -> Result<Option<Self>> {
        let mut found = Vec::new();
        map_schema(schema, &mut |path, field| {
            found.push(path.to_string());
            Ok(field.clone())
        })?;
        if let Some(unknown) = settings.keys().find(|k| !found.contains(k)) {
            return Err(Error::invalid_argument(format!(
                "variant shredding set for `{unknown}`, which is not a Variant column (Variant \
                 columns: {})",
                if found.is_empty() {
                    "none".to_string()
                } else {
                    found.join(", ")
                }
            )));
        }
        if found.is_empty() {
            return Ok(None);
        }
        let mut plan = VariantWritePlan {
            input: schema.clone(),
            settings: settings.clone(),
            inferred: HashMap::new(),
            written: schema.clone(),
        };
        plan.written = plan.written_schema()?;
        Ok(Some(plan))
    }

    /// The shape a column is written in (`None`: as the arrays come).
    fn shape(&self, path: &str, field: &Field) -> Result<ShreddedType> {
        Ok(
            match self.settings.get(path).unwrap_or(&VariantShredding::AsIs) {
                VariantShredding::AsIs => field_shape(field, path)?,
                VariantShredding::Unshredded => ShreddedType::Variant,
                VariantShredding::Shape(shape) => shape.clone(),
                VariantShredding::Auto => self
                    .inferred
                    .get(path)
                    .cloned()
                    .unwrap_or(ShreddedType::Variant),
            },
        )
    }

    fn written_schema(&self) -> Result<SchemaRef> {
        map_schema(&self.input, &mut |path, field| {
            Ok(field
                .clone()
                .with_data_type(self.shape(path, field)?.storage_type()))
        })
    }

    /// The schema of the batches [`Self::transform`] returns (what is written).
    pub fn written(&self) -> &SchemaRef {
        &self.written
    }

    /// Whether some `Auto` column still waits for data to infer its shape.
    pub fn needs_inference(&self) -> bool {
        self.settings
            .iter()
            .any(|(path, s)| *s == VariantShredding::Auto && !self.inferred.contains_key(path))
    }

    /// Infers the shape of every `Auto` column from `batch` (the first one written).
    pub fn infer(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut inferred = HashMap::new();
        map_batch(batch, &mut |path, field, array| {
            if self.settings.get(path) == Some(&VariantShredding::Auto) {
                inferred.insert(
                    path.to_string(),
                    infer_shredding(array, DEFAULT_INFERENCE_ROWS)?,
                );
            }
            Ok((field.clone(), Arc::new(array.clone()) as ArrayRef))
        })?;
        self.inferred.extend(inferred);
        self.written = self.written_schema()?;
        Ok(())
    }

    /// `batch` (of the input schema) with every Variant column in its written form.
    pub fn transform(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let out = map_batch(batch, &mut |path, field, array| {
            let shape = self.shape(path, field)?;
            let written = write_form(array, &shape)
                .map_err(|e| e.context(format!("variant column {path}")))?;
            let field = field.clone().with_data_type(written.data_type().clone());
            Ok((field, Arc::new(written) as ArrayRef))
        })?;
        // Same types, and the written schema's field metadata.
        Ok(RecordBatch::try_new(
            self.written.clone(),
            out.columns().to_vec(),
        )?)
    }
}

/// `array` in the canonical written form of `shape`, metadata sorted per row.
fn write_form(array: &StructArray, shape: &ShreddedType) -> Result<StructArray> {
    if array.data_type() == &shape.storage_type() && all_sorted(array)? {
        return Ok(array.clone());
    }
    let plain = unshred(array)?;
    let plain = sorted_metadata(&plain)?;
    match shape {
        ShreddedType::Variant => Ok(plain),
        shape => shred(&plain, shape),
    }
}

/// Whether every row's metadata is flagged sorted (which the metadata check makes
/// strictly increasing: no duplicates).
fn all_sorted(array: &StructArray) -> Result<bool> {
    let metadata = array
        .column_by_name(METADATA)
        .ok_or_else(|| Error::invalid_argument("variant struct has no `metadata` field"))?;
    let metadata = BinaryColumn::try_new(metadata, METADATA)?;
    let mut cache = MetadataCache::default();
    for row in 0..array.len() {
        if array.is_null(row) {
            continue;
        }
        let Some(bytes) = metadata.get(row) else {
            return Err(Error::invalid_argument(format!(
                "variant row {row}: metadata is null in a non-null row"
            )));
        };
        if !cache.get(bytes, row)?.is_sorted() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// An unshredded column with `Binary` children where each row whose dictionary is not
/// sorted is re-encoded with a sorted dictionary of exactly the names its value uses.
fn sorted_metadata(plain: &StructArray) -> Result<StructArray> {
    let metadata = BinaryColumn::try_new(plain.column(0), METADATA)?;
    let value = BinaryColumn::try_new(plain.column(1), VALUE)?;
    let mut metadata_out = BinaryBuilder::with_capacity(plain.len(), 0);
    let mut value_out = BinaryBuilder::with_capacity(plain.len(), 0);
    let mut cache = MetadataCache::default();
    for row in 0..plain.len() {
        if plain.is_null(row) {
            metadata_out.append_value([0x01, 0x00, 0x00]);
            value_out.append_null();
            continue;
        }
        let (Some(m), Some(v)) = (metadata.get(row), value.get(row)) else {
            return Err(Error::invalid_argument(format!(
                "variant row {row}: metadata or value is null in a non-null row"
            )));
        };
        let parsed = cache.get(m, row)?;
        if parsed.is_sorted() {
            metadata_out.append_value(m);
            value_out.append_value(v);
            continue;
        }
        let encoded = herringbone_codec::variant::Variant::try_new(parsed, v)
            .and_then(|variant| variant.to_owned_value())
            .and_then(|owned| owned.encode())
            .map_err(|e| Error::from(e).context(format!("variant row {row}")))?;
        metadata_out.append_value(&encoded.metadata);
        value_out.append_value(&encoded.value);
    }
    unshredded_struct(
        Arc::new(metadata_out.finish()),
        Arc::new(value_out.finish()),
        plain.nulls().cloned(),
    )
}

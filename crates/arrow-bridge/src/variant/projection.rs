//! Reading one path of a Variant column: the leaf columns a `variant_get` of that path
//! needs, so the reader fetches and decodes nothing else of the column.
//!
//! Given spec-conforming data, the value at `$.a.b` of a column shredded down to `b`
//! depends only on `metadata` and the `value` / `typed_value` leaves of `b`'s level (a
//! row whose `a` is not an object has a null `typed_value` struct, which the leaves of
//! `b` show through their definition levels). Where the path leaves the shredded part,
//! the `value` of the last shredded level holds the rest of it.

use herringbone_codec::variant::{PathElement, VariantPath};
use herringbone_format::metadata::LogicalType;
use herringbone_format::schema::{Node, SchemaDescriptor};

use crate::error::{Error, Result};

use super::extension::{METADATA, TYPED_VALUE, VALUE};

fn child<'a>(descriptor: &'a SchemaDescriptor, node: &Node, name: &str) -> Option<&'a Node> {
    node.children()
        .iter()
        .filter_map(|&id| descriptor.node(id))
        .find(|c| c.name() == name)
}

fn dotted(descriptor: &SchemaDescriptor, node: &Node) -> String {
    let mut parts = vec![node.name().to_string()];
    let mut parent = node.parent();
    while let Some(id) = parent {
        match descriptor.node(id) {
            Some(p) if p.parent().is_some() => {
                parts.push(p.name().to_string());
                parent = p.parent();
            }
            _ => break,
        }
    }
    parts.reverse();
    parts.join(".")
}

/// The leaf column indices (in the file's schema) that reading `path` of the Variant
/// column at the dotted Parquet path `column` needs: its `metadata`, and the leaves of
/// the deepest shredded level on the path (or the `value` of the level where the path
/// leaves the shredded part). Use them as a [`Projection::Leaves`]
/// (together with other columns' leaves) and call
/// [`variant_get`](super::variant_get) on the column read.
///
/// Errors (kind `InvalidArgument`) when `column` is not a `VARIANT` group.
///
/// [`Projection::Leaves`]: crate::schema::Projection::Leaves
///
/// ```
/// use herringbone_arrow_bridge::variant::variant_path_columns;
/// use herringbone_codec::variant::VariantPath;
/// use herringbone_format::schema::parse_schema;
///
/// let schema = parse_schema(
///     "message m {
///        required int64 id;
///        optional group v (VARIANT(1)) {
///          required binary metadata;
///          optional binary value;
///          optional group typed_value {
///            required group a { optional binary value; optional int64 typed_value; }
///            required group b { optional binary value; optional binary typed_value (STRING); }
///          }
///        }
///      }",
/// )
/// .unwrap();
/// let path = VariantPath::parse("$.a").unwrap();
/// // v.metadata, v.typed_value.a.value, v.typed_value.a.typed_value
/// assert_eq!(variant_path_columns(&schema, "v", &path).unwrap(), vec![1, 3, 4]);
/// ```
pub fn variant_path_columns(
    descriptor: &SchemaDescriptor,
    column: &str,
    path: &VariantPath,
) -> Result<Vec<usize>> {
    let mut node = descriptor.root();
    for part in column.split('.') {
        node = child(descriptor, node, part).ok_or_else(|| {
            Error::invalid_argument(format!("variant projection: no column at path `{column}`"))
        })?;
    }
    if !matches!(node.logical_type(), Some(LogicalType::Variant { .. })) {
        return Err(Error::invalid_argument(format!(
            "variant projection: column `{column}` is not a VARIANT group"
        )));
    }
    let metadata = child(descriptor, node, METADATA).ok_or_else(|| {
        Error::invalid_argument(format!(
            "variant projection: column `{column}` has no metadata"
        ))
    })?;
    let mut prefixes = vec![dotted(descriptor, metadata)];
    let mut level = node;
    let mut complete = true;
    for element in path.elements() {
        let typed = child(descriptor, level, TYPED_VALUE).filter(|t| t.is_group());
        let next = match (element, typed) {
            (PathElement::Field(name), Some(typed))
                if !matches!(typed.logical_type(), Some(LogicalType::List)) =>
            {
                child(descriptor, typed, name)
            }
            (PathElement::Index(_), Some(typed))
                if matches!(typed.logical_type(), Some(LogicalType::List)) =>
            {
                // typed_value (LIST) -> repeated group list -> element
                typed
                    .children()
                    .first()
                    .and_then(|&id| descriptor.node(id))
                    .and_then(|list| list.children().first())
                    .and_then(|&id| descriptor.node(id))
            }
            _ => None,
        };
        match next {
            Some(next) if next.is_group() => level = next,
            _ => {
                complete = false;
                break;
            }
        }
    }
    if complete {
        prefixes.push(dotted(descriptor, level));
    } else if let Some(value) = child(descriptor, level, VALUE) {
        prefixes.push(dotted(descriptor, value));
    }
    let mut leaves: Vec<usize> = descriptor
        .columns()
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            let path = c.path().dotted();
            prefixes
                .iter()
                .any(|p| path == *p || path.starts_with(&format!("{p}.")))
        })
        .map(|(i, _)| i)
        .collect();
    leaves.sort_unstable();
    Ok(leaves)
}

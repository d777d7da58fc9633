//! Paths into a Variant (`$.a.b[2]`, `$['key with.dot'][0]`) and lookup along them.

use crate::error::{Error, Result};

use super::value::Variant;

/// One step of a [`VariantPath`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathElement {
    /// An object field by name.
    Field(String),
    /// An array element by zero-based index.
    Index(usize),
}

/// A parsed path: a sequence of field names and array indices.
///
/// Syntax: an optional leading `$`, then any number of `.name` (a name runs up to the
/// next `.` or `[`), `['name']` or `["name"]` (quoted, `\` escapes the quote or
/// itself), and `[index]` steps. A path may also start with a bare name (`a.b`). The
/// empty path and `$` address the value itself.
///
/// ```
/// use herringbone_codec::variant::{PathElement, VariantPath};
///
/// let path = VariantPath::parse("$.a['b.c'][2]").unwrap();
/// assert_eq!(path.elements(), [
///     PathElement::Field("a".into()),
///     PathElement::Field("b.c".into()),
///     PathElement::Index(2),
/// ]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VariantPath {
    elements: Vec<PathElement>,
}

impl VariantPath {
    /// A path from its steps.
    pub fn new(elements: Vec<PathElement>) -> Self {
        VariantPath { elements }
    }

    /// The steps of the path.
    pub fn elements(&self) -> &[PathElement] {
        &self.elements
    }

    /// Parses the path syntax described on [`VariantPath`].
    pub fn parse(text: &str) -> Result<VariantPath> {
        let error = |pos: usize, message: &str| {
            Error::invalid_argument(format!("variant path {text:?} at byte {pos}: {message}"))
        };
        let bytes = text.as_bytes();
        let mut pos = 0;
        let mut elements = Vec::new();
        if bytes.first() == Some(&b'$') {
            pos = 1;
        } else if !bytes.is_empty() && bytes[0] != b'.' && bytes[0] != b'[' {
            let end = name_end(bytes, 0);
            elements.push(PathElement::Field(text[..end].to_owned()));
            pos = end;
        }
        while pos < bytes.len() {
            match bytes[pos] {
                b'.' => {
                    let end = name_end(bytes, pos + 1);
                    if end == pos + 1 {
                        return Err(error(pos, "empty field name after `.`"));
                    }
                    elements.push(PathElement::Field(text[pos + 1..end].to_owned()));
                    pos = end;
                }
                b'[' => {
                    pos += 1;
                    match bytes.get(pos) {
                        Some(&quote @ (b'\'' | b'"')) => {
                            pos += 1;
                            let mut name = String::new();
                            loop {
                                let Some(ch) = text[pos..].chars().next() else {
                                    return Err(error(pos, "unterminated quoted name"));
                                };
                                pos += ch.len_utf8();
                                if ch == '\\' {
                                    let Some(escaped) = text[pos..].chars().next() else {
                                        return Err(error(pos, "unterminated escape"));
                                    };
                                    pos += escaped.len_utf8();
                                    name.push(escaped);
                                } else if ch as u32 == u32::from(quote) {
                                    break;
                                } else {
                                    name.push(ch);
                                }
                            }
                            elements.push(PathElement::Field(name));
                        }
                        Some(b'0'..=b'9') => {
                            let start = pos;
                            while let Some(b'0'..=b'9') = bytes.get(pos) {
                                pos += 1;
                            }
                            let index = text[start..pos]
                                .parse::<usize>()
                                .map_err(|_| error(start, "array index out of range"))?;
                            elements.push(PathElement::Index(index));
                        }
                        _ => {
                            return Err(error(pos, "expected an index or a quoted name after `[`"));
                        }
                    }
                    if bytes.get(pos) != Some(&b']') {
                        return Err(error(pos, "expected `]`"));
                    }
                    pos += 1;
                }
                _ => return Err(error(pos, "expected `.` or `[`")),
            }
        }
        Ok(VariantPath { elements })
    }
}

fn name_end(bytes: &[u8], start: usize) -> usize {
    bytes[start..]
        .iter()
        .position(|&b| b == b'.' || b == b'[')
        .map_or(bytes.len(), |offset| start + offset)
}

impl<'m, 'v> Variant<'m, 'v> {
    /// Follows `path` (see [`VariantPath`] for the syntax) and returns the value there,
    /// or `None` when a field is missing, an index is past the end, or a step meets a
    /// value of the wrong kind. Only the objects and arrays on the way are touched:
    /// field lookups are binary searches, array steps are O(1).
    pub fn get_path(&self, path: &str) -> Result<Option<Variant<'m, 'v>>> {
        self.get_by_path(&VariantPath::parse(path)?)
    }

    /// Follows an already parsed path (see [`get_path`](Self::get_path)).
    pub fn get_by_path(&self, path: &VariantPath) -> Result<Option<Variant<'m, 'v>>> {
        let mut current = *self;
        for element in path.elements() {
            let next = match (element, &current) {
                (PathElement::Field(name), Variant::Object(object)) => object.get(name)?,
                (PathElement::Index(index), Variant::Array(array)) if *index < array.len() => {
                    Some(array.get(*index)?)
                }
                _ => None,
            };
            match next {
                Some(value) => current = value,
                None => return Ok(None),
            }
        }
        Ok(Some(current))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{VariantMetadata, VariantValue};

    #[test]
    fn parses_every_step_kind() {
        let field = |s: &str| PathElement::Field(s.into());
        assert_eq!(VariantPath::parse("").unwrap().elements(), []);
        assert_eq!(VariantPath::parse("$").unwrap().elements(), []);
        assert_eq!(
            VariantPath::parse("a.b[3]").unwrap().elements(),
            [field("a"), field("b"), PathElement::Index(3)]
        );
        assert_eq!(
            VariantPath::parse(r#"$["x\"y"]['it\'s'][0].z"#)
                .unwrap()
                .elements(),
            [
                field("x\"y"),
                field("it's"),
                PathElement::Index(0),
                field("z")
            ]
        );
        assert_eq!(VariantPath::parse("$.é").unwrap().elements(), [field("é")]);
        for bad in [
            "$.",
            "$[",
            "$[x]",
            "$['a'",
            "$['a']x",
            "$[1",
            "$..a",
            "$[99999999999999999999999]",
        ] {
            assert!(VariantPath::parse(bad).is_err(), "accepted {bad:?}");
        }
    }

    #[test]
    fn follows_paths_and_reports_missing() {
        let encoded = VariantValue::from_json(r#"{"a": {"b": [1, {"c.d": "deep"}]}, "e": 5}"#)
            .unwrap()
            .encode()
            .unwrap();
        let metadata = VariantMetadata::try_new(&encoded.metadata).unwrap();
        let variant = Variant::try_new(metadata, &encoded.value).unwrap();
        assert_eq!(
            variant.get_path("$.a.b[1]['c.d']").unwrap(),
            Some(Variant::String("deep"))
        );
        assert_eq!(variant.get_path("e").unwrap(), Some(Variant::Int8(5)));
        assert_eq!(variant.get_path("$.a.b[2]").unwrap(), None);
        assert_eq!(variant.get_path("$.a.x").unwrap(), None);
        assert_eq!(variant.get_path("$.e.f").unwrap(), None);
        assert_eq!(variant.get_path("$[0]").unwrap(), None);
        assert_eq!(variant.get_path("$").unwrap(), Some(variant));
    }
}

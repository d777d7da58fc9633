//! JSON text to and from Variants, with a small JSON reader that keeps number text
//! exact.

use std::fmt::Write;

use base64::Engine;

use crate::error::{Error, Result};

use super::MAX_DEPTH;
use super::owned::VariantValue;
use super::text::{
    decimal_digits, format_date, format_decimal, format_time_micros, format_timestamp, format_uuid,
    parse_exact_decimal,
};
use super::value::{Variant, check_depth};

/// A parsed JSON document. Numbers keep their exact text (validated against the JSON
/// grammar); objects keep their members in document order, duplicates included.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonValue {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<JsonValue>),
    /// An object's members in document order.
    Object(Vec<(String, JsonValue)>),
}

impl JsonValue {
    /// Parses strict RFC 8259 JSON (one value, surrounding whitespace allowed), nesting at
    /// most [`MAX_DEPTH`] deep.
    pub fn parse(text: &str) -> Result<JsonValue> {
        Parser::new(text, false).parse_document()
    }

    /// Like [`parse`](Self::parse) but accepting a trailing comma after the last member
    /// of an array or object (as some hand-written test files have).
    pub fn parse_lenient(text: &str) -> Result<JsonValue> {
        Parser::new(text, true).parse_document()
    }
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
    trailing_commas: bool,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, trailing_commas: bool) -> Self {
        Parser {
            bytes: text.as_bytes(),
            pos: 0,
            trailing_commas,
        }
    }

    fn error(&self, message: impl std::fmt::Display) -> Error {
        Error::invalid_argument(format!("JSON at byte {}: {message}", self.pos))
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn expect_literal(&mut self, literal: &str) -> Result<()> {
        if self.bytes[self.pos..].starts_with(literal.as_bytes()) {
            self.pos += literal.len();
            Ok(())
        } else {
            Err(self.error(format!("expected `{literal}`")))
        }
    }

    fn parse_document(mut self) -> Result<JsonValue> {
        self.skip_whitespace();
        let value = self.parse_value(0)?;
        self.skip_whitespace();
        if self.pos != self.bytes.len() {
            return Err(self.error("unexpected text after the JSON value"));
        }
        Ok(value)
    }

    fn parse_value(&mut self, depth: usize) -> Result<JsonValue> {
        match self.peek() {
            None => Err(self.error("unexpected end of input, expected a value")),
            Some(b'n') => self.expect_literal("null").map(|_| JsonValue::Null),
            Some(b't') => self.expect_literal("true").map(|_| JsonValue::Bool(true)),
            Some(b'f') => self.expect_literal("false").map(|_| JsonValue::Bool(false)),
            Some(b'"') => self.parse_string().map(JsonValue::String),
            Some(b'-' | b'0'..=b'9') => self.parse_number().map(JsonValue::Number),
            Some(b'[') => {
                self.enter(depth)?;
                let mut elements = Vec::new();
                self.parse_sequence(b']', |parser| {
                    elements.push(parser.parse_value(depth + 1)?);
                    Ok(())
                })?;
                Ok(JsonValue::Array(elements))
            }
            Some(b'{') => {
                self.enter(depth)?;
                let mut members = Vec::new();
                self.parse_sequence(b'}', |parser| {
                    if parser.peek() != Some(b'"') {
                        return Err(parser.error("expected a string key"));
                    }
                    let key = parser.parse_string()?;
                    parser.skip_whitespace();
                    if parser.peek() != Some(b':') {
                        return Err(parser.error("expected `:` after an object key"));
                    }
                    parser.pos += 1;
                    parser.skip_whitespace();
                    members.push((key, parser.parse_value(depth + 1)?));
                    Ok(())
                })?;
                Ok(JsonValue::Object(members))
            }
            Some(other) => Err(self.error(format!("unexpected character {:?}", other as char))),
        }
    }

    fn enter(&mut self, depth: usize) -> Result<()> {
        if depth >= MAX_DEPTH {
            return Err(self.error(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        self.pos += 1;
        Ok(())
    }

    /// Parses `item (, item)*` up to `close`, the opening bracket already consumed.
    fn parse_sequence(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Result<()>,
    ) -> Result<()> {
        self.skip_whitespace();
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(());
        }
        loop {
            self.skip_whitespace();
            item(self)?;
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_whitespace();
                    if self.trailing_commas && self.peek() == Some(close) {
                        self.pos += 1;
                        return Ok(());
                    }
                }
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => {
                    return Err(self.error(format!("expected `,` or `{}`", close as char)));
                }
            }
        }
    }

    fn parse_number(&mut self) -> Result<String> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.skip_digits(),
            _ => return Err(self.error("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("expected a digit after `.`"));
            }
            self.skip_digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("expected a digit in the exponent"));
            }
            self.skip_digits();
        }
        // The grammar above only accepts ASCII, so this slice is valid UTF-8.
        Ok(String::from_utf8_lossy(&self.bytes[start..self.pos]).into_owned())
    }

    fn skip_digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    fn parse_hex4(&mut self) -> Result<u32> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error("truncated \\u escape"))?;
        let mut value = 0u32;
        for &digit in digits {
            let nibble = (digit as char)
                .to_digit(16)
                .ok_or_else(|| self.error("invalid hex digit in \\u escape"))?;
            value = value * 16 + nibble;
        }
        self.pos += 4;
        Ok(value)
    }

    fn parse_string(&mut self) -> Result<String> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        loop {
            let run_start = self.pos;
            while let Some(&b) = self.bytes.get(self.pos) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // The input is a &str and the run stops only at ASCII bytes: whole characters.
            out.push_str(&String::from_utf8_lossy(&self.bytes[run_start..self.pos]));
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let escape = self.peek().ok_or_else(|| self.error("truncated escape"))?;
                    self.pos += 1;
                    match escape {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let unit = self.parse_hex4()?;
                            let code = if (0xd800..0xdc00).contains(&unit) {
                                if !self.bytes[self.pos..].starts_with(b"\\u") {
                                    return Err(self.error("unpaired high surrogate"));
                                }
                                self.pos += 2;
                                let low = self.parse_hex4()?;
                                if !(0xdc00..0xe000).contains(&low) {
                                    return Err(self.error("invalid low surrogate"));
                                }
                                0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)
                            } else {
                                unit
                            };
                            let ch = char::from_u32(code)
                                .ok_or_else(|| self.error("unpaired low surrogate"))?;
                            out.push(ch);
                        }
                        other => {
                            return Err(self.error(format!("invalid escape \\{}", other as char)));
                        }
                    }
                }
                Some(_) => return Err(self.error("unescaped control character in string")),
            }
        }
    }
}

/// Appends `text` as a JSON string literal.
pub(crate) fn write_json_string(out: &mut String, text: &str) {
    out.push('"');
    let mut run_start = 0;
    for (index, ch) in text.char_indices() {
        let escaped = match ch {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            '\u{8}' => "\\b",
            '\u{c}' => "\\f",
            c if (c as u32) < 0x20 => "",
            _ => continue,
        };
        out.push_str(&text[run_start..index]);
        if escaped.is_empty() {
            let _ = write!(out, "\\u{:04x}", ch as u32);
        } else {
            out.push_str(escaped);
        }
        run_start = index + ch.len_utf8();
    }
    out.push_str(&text[run_start..]);
    out.push('"');
}

fn write_float(out: &mut String, value: f64, text: impl FnOnce(&mut ryu::Buffer) -> String) {
    if value.is_nan() {
        out.push_str("\"NaN\"");
    } else if value.is_infinite() {
        out.push_str(if value > 0.0 {
            "\"Infinity\""
        } else {
            "\"-Infinity\""
        });
    } else {
        out.push_str(&text(&mut ryu::Buffer::new()));
    }
}

impl Variant<'_, '_> {
    /// Renders the value as compact JSON text (conventions in the [module
    /// docs](crate::variant#json)).
    pub fn to_json(&self) -> Result<String> {
        let mut out = String::new();
        self.write_json(&mut out)?;
        Ok(out)
    }

    /// Appends the value's JSON text to `out`.
    pub fn write_json(&self, out: &mut String) -> Result<()> {
        self.write_json_at_depth(out, 0)
    }

    fn write_json_at_depth(&self, out: &mut String, depth: usize) -> Result<()> {
        match *self {
            Variant::Null => out.push_str("null"),
            Variant::Boolean(v) => out.push_str(if v { "true" } else { "false" }),
            Variant::Int8(v) => {
                let _ = write!(out, "{v}");
            }
            Variant::Int16(v) => {
                let _ = write!(out, "{v}");
            }
            Variant::Int32(v) => {
                let _ = write!(out, "{v}");
            }
            Variant::Int64(v) => {
                let _ = write!(out, "{v}");
            }
            Variant::Double(v) => write_float(out, v, |b| b.format_finite(v).to_owned()),
            Variant::Float(v) => write_float(out, v.into(), |b| b.format_finite(v).to_owned()),
            Variant::Decimal4 { unscaled, scale } => {
                out.push_str(&format_decimal(unscaled.into(), scale))
            }
            Variant::Decimal8 { unscaled, scale } => {
                out.push_str(&format_decimal(unscaled.into(), scale))
            }
            Variant::Decimal16 { unscaled, scale } => {
                out.push_str(&format_decimal(unscaled, scale))
            }
            Variant::Date(days) => write_json_string(out, &format_date(days)),
            Variant::TimestampMicros(v) => {
                write_json_string(out, &format_timestamp(v, 1_000_000, 6, true))
            }
            Variant::TimestampNtzMicros(v) => {
                write_json_string(out, &format_timestamp(v, 1_000_000, 6, false))
            }
            Variant::TimestampNanos(v) => {
                write_json_string(out, &format_timestamp(v, 1_000_000_000, 9, true))
            }
            Variant::TimestampNtzNanos(v) => {
                write_json_string(out, &format_timestamp(v, 1_000_000_000, 9, false))
            }
            Variant::TimeNtzMicros(v) => {
                let text = format_time_micros(v).ok_or_else(|| {
                    Error::corrupt(format!(
                        "variant time_ntz value {v} is not within one day (0..86400000000 microseconds)"
                    ))
                })?;
                write_json_string(out, &text);
            }
            Variant::Binary(bytes) => {
                out.push('"');
                base64::engine::general_purpose::STANDARD.encode_string(bytes, out);
                out.push('"');
            }
            Variant::String(text) => write_json_string(out, text),
            Variant::Uuid(bytes) => write_json_string(out, &format_uuid(&bytes)),
            Variant::Object(object) => {
                check_depth(depth, 0)?;
                out.push('{');
                // Fields in name order, also for objects a writer left unsorted.
                let order = object.name_order()?;
                for position in 0..object.len() {
                    let index = order.as_ref().map_or(position, |order| order[position]);
                    let (name, value) = object.field(index)?;
                    if position > 0 {
                        out.push(',');
                    }
                    write_json_string(out, name);
                    out.push(':');
                    value.write_json_at_depth(out, depth + 1)?;
                }
                out.push('}');
            }
            Variant::Array(array) => {
                check_depth(depth, 0)?;
                out.push('[');
                for (index, element) in array.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    element?.write_json_at_depth(out, depth + 1)?;
                }
                out.push(']');
            }
        }
        Ok(())
    }
}

impl VariantValue {
    /// Builds a value from JSON text (conventions in the [module
    /// docs](crate::variant#json)).
    ///
    /// ```
    /// use herringbone_codec::variant::VariantValue;
    ///
    /// assert_eq!(VariantValue::from_json("300").unwrap(), VariantValue::Int16(300));
    /// assert_eq!(
    ///     VariantValue::from_json("12.50").unwrap(),
    ///     VariantValue::Decimal4 { unscaled: 1250, scale: 2 }
    /// );
    /// assert_eq!(VariantValue::from_json("1e400").is_err(), true);
    /// ```
    pub fn from_json(text: &str) -> Result<VariantValue> {
        VariantValue::from_json_value(&JsonValue::parse(text)?)
    }

    /// Converts a parsed JSON document; duplicate keys in an object are an error.
    pub fn from_json_value(json: &JsonValue) -> Result<VariantValue> {
        Ok(match json {
            JsonValue::Null => VariantValue::Null,
            JsonValue::Bool(v) => VariantValue::Boolean(*v),
            JsonValue::Number(text) => number_to_variant(text)?,
            JsonValue::String(text) => VariantValue::String(text.clone()),
            JsonValue::Array(elements) => VariantValue::Array(
                elements
                    .iter()
                    .map(VariantValue::from_json_value)
                    .collect::<Result<_>>()?,
            ),
            JsonValue::Object(members) => {
                let mut names: Vec<&str> = members.iter().map(|(name, _)| name.as_str()).collect();
                names.sort_unstable();
                if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
                    return Err(Error::invalid_argument(format!(
                        "JSON object has duplicate key {:?} (a Variant object cannot)",
                        pair[0]
                    )));
                }
                VariantValue::Object(
                    members
                        .iter()
                        .map(|(name, value)| {
                            Ok((name.clone(), VariantValue::from_json_value(value)?))
                        })
                        .collect::<Result<_>>()?,
                )
            }
        })
    }
}

fn number_to_variant(text: &str) -> Result<VariantValue> {
    let is_integer = !text.contains(['.', 'e', 'E']);
    if is_integer && let Ok(v) = text.parse::<i64>() {
        return Ok(if let Ok(v) = i8::try_from(v) {
            VariantValue::Int8(v)
        } else if let Ok(v) = i16::try_from(v) {
            VariantValue::Int16(v)
        } else if let Ok(v) = i32::try_from(v) {
            VariantValue::Int32(v)
        } else {
            VariantValue::Int64(v)
        });
    }
    if let Some((unscaled, scale)) = parse_exact_decimal(text) {
        // A DECIMAL(precision, scale) has precision >= scale: 0.001 needs precision 3.
        let digits = decimal_digits(unscaled).max(u32::from(scale));
        return Ok(if digits <= 9 {
            VariantValue::Decimal4 {
                unscaled: unscaled as i32,
                scale,
            }
        } else if digits <= 18 {
            VariantValue::Decimal8 {
                unscaled: unscaled as i64,
                scale,
            }
        } else {
            VariantValue::Decimal16 { unscaled, scale }
        });
    }
    let value: f64 = text
        .parse()
        .map_err(|e| Error::invalid_argument(format!("JSON number {text}: {e}")))?;
    if value.is_infinite() {
        return Err(Error::invalid_argument(format!(
            "JSON number {text} is outside the range of a double"
        )));
    }
    Ok(VariantValue::Double(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::VariantMetadata;

    fn json_round_trip(text: &str) -> String {
        let encoded = VariantValue::from_json(text).unwrap().encode().unwrap();
        let metadata = VariantMetadata::try_new(&encoded.metadata).unwrap();
        Variant::try_new(metadata, &encoded.value)
            .unwrap()
            .to_json()
            .unwrap()
    }

    #[test]
    fn parser_accepts_json_and_rejects_non_json() {
        assert_eq!(
            JsonValue::parse(r#" {"a": [1, -2.5e3, "x\u00e9\ud83d\ude00\n"], "b": null} "#)
                .unwrap(),
            JsonValue::Object(vec![
                (
                    "a".into(),
                    JsonValue::Array(vec![
                        JsonValue::Number("1".into()),
                        JsonValue::Number("-2.5e3".into()),
                        JsonValue::String("xé😀\n".into()),
                    ])
                ),
                ("b".into(), JsonValue::Null),
            ])
        );
        for bad in [
            "",
            "01",
            "1.",
            "-",
            "[1,]",
            "{\"a\":1,}",
            "{a:1}",
            "\"\\x\"",
            "\"\\ud800\"",
            "[1 2]",
            "nul",
            "\"a\u{1}\"",
            "1 2",
            "+1",
            ".5",
        ] {
            assert!(JsonValue::parse(bad).is_err(), "accepted {bad:?}");
        }
        assert_eq!(
            JsonValue::parse_lenient("[1,]").unwrap(),
            JsonValue::Array(vec![JsonValue::Number("1".into())])
        );
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert!(
            JsonValue::parse(&deep)
                .unwrap_err()
                .to_string()
                .contains("nesting")
        );
    }

    #[test]
    fn numbers_map_to_smallest_exact_types() {
        let cases = [
            ("127", VariantValue::Int8(127)),
            ("-129", VariantValue::Int16(-129)),
            ("40000", VariantValue::Int32(40000)),
            ("5000000000", VariantValue::Int64(5_000_000_000)),
            (
                "9223372036854775808",
                VariantValue::Decimal16 {
                    unscaled: 9_223_372_036_854_775_808,
                    scale: 0,
                },
            ),
            (
                "1.5",
                VariantValue::Decimal4 {
                    unscaled: 15,
                    scale: 1,
                },
            ),
            (
                "1234567890.5",
                VariantValue::Decimal8 {
                    unscaled: 12_345_678_905,
                    scale: 1,
                },
            ),
            ("1e40", VariantValue::Double(1e40)),
            (
                "0.0000000001",
                VariantValue::Decimal8 {
                    unscaled: 1,
                    scale: 10,
                },
            ),
            ("0.1e-40", VariantValue::Double(0.1e-40)),
        ];
        for (text, expected) in cases {
            assert_eq!(VariantValue::from_json(text).unwrap(), expected, "{text}");
        }
        assert!(VariantValue::from_json("{\"a\":1,\"a\":2}").is_err());
    }

    #[test]
    fn rendering_conventions() {
        assert_eq!(
            json_round_trip(r#"{"b":[true,null,"q\"\\\u0001"],"a":-0.050}"#),
            r#"{"a":-0.050,"b":[true,null,"q\"\\\u0001"]}"#
        );
        let meta = [0x01, 0, 0];
        let metadata = VariantMetadata::try_new(&meta).unwrap();
        let render = |value: &[u8]| {
            Variant::try_new(metadata, value)
                .unwrap()
                .to_json()
                .unwrap()
        };
        assert_eq!(render(&[0x3c, 3, 0, 0, 0, 0xff, 0xfe, 0x00]), "\"//4A\"");
        assert_eq!(render(&[0x1c, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f]), "\"NaN\"");
        let float = 1234567890f32.to_le_bytes();
        assert_eq!(
            render(&[0x38, float[0], float[1], float[2], float[3]]),
            "1234568000.0"
        );
        let double = 0.1f64.to_le_bytes();
        let mut value = vec![0x1c];
        value.extend_from_slice(&double);
        assert_eq!(render(&value), "0.1");
        let mut time = vec![0x44];
        time.extend_from_slice(&(-1i64).to_le_bytes());
        assert!(
            Variant::try_new(metadata, &time)
                .unwrap()
                .to_json()
                .is_err()
        );
    }
}

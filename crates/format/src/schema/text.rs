//! The textual schema syntax of parquet-mr and arrow-rs, printed and parsed:
//!
//! ```text
//! message schema {
//!   required int32 a (INTEGER(8,true)) = 3;
//!   optional group b (LIST) {
//!     repeated group list {
//!       optional binary element (STRING);
//!     }
//!   }
//!   required fixed_len_byte_array(16) u (UUID);
//! }
//! ```
//!
//! Printing follows parquet-mr: lowercase repetition and physical type, the annotation in
//! parentheses (the `LogicalType` when there is one, else the legacy `ConvertedType`),
//! then the field id as `= id` (not for the root, which parquet-mr and arrow-rs cannot
//! parse there). Two extensions keep every schema printable and
//! parseable: a name that is empty or holds whitespace or one of `;{}(),="\` is printed
//! as a double-quoted string with `\"`, `\\`, `\n`, `\r`, `\t` and `\u{..}` escapes, and
//! the `GEOMETRY`/`GEOGRAPHY` CRS is quoted the same way when needed. A `LogicalType`
//! union member this version does not know cannot be spelled, so it is left out (its
//! `ConvertedType`, if any, is printed).
//!
//! Parsing accepts that output, arrow-rs's uppercase spelling (`REQUIRED INT32 a;`,
//! `FIXED_LEN_BYTE_ARRAY (16)`), the field id before or after the annotation, and the
//! legacy `ConvertedType` spellings (`UTF8`, `TIMESTAMP_MILLIS`, `INT_8`, `DECIMAL(p,s)`,
//! `MAP_KEY_VALUE`, `INTERVAL`, ...); keywords are case-insensitive.

use std::fmt;

use super::compat::converted_type_from_logical;
use super::tree::{MAX_SCHEMA_DEPTH, Node, NodeKind, SchemaDescriptor};
use super::{invalid, limit_exceeded};
use crate::Result;
use crate::metadata::{
    ConvertedType, EdgeInterpolationAlgorithm, FieldRepetitionType, LogicalType, SchemaElement,
    TimeUnit, Type,
};
use crate::thrift::Text;

const INDENT: usize = 2;

impl SchemaDescriptor {
    /// The schema as text, `message <root name> { ... }` with one field per line.
    ///
    /// ```
    /// use herringbone_format::schema::{parse_message_type, SchemaDescriptor};
    ///
    /// let text = "message schema {\n  required int32 a (INTEGER(8,true)) = 3;\n}\n";
    /// let schema = SchemaDescriptor::new(&parse_message_type(text).unwrap()).unwrap();
    /// assert_eq!(schema.to_text(), text);
    /// ```
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(64 * self.nodes().len());
        // Writing into a String cannot fail.
        let _ = write_schema(self, &mut out);
        out
    }
}

impl fmt::Display for SchemaDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_schema(self, f)
    }
}

/// The annotation as the schema text spells it (`TIMESTAMP(MICROS,true)`,
/// `DECIMAL(9,2)`); a member this version does not know prints as `UNRECOGNIZED(<id>)`.
///
/// ```
/// use herringbone_format::metadata::{LogicalType, TimeUnit};
/// let ts = LogicalType::Timestamp { is_adjusted_to_utc: true, unit: TimeUnit::Micros };
/// assert_eq!(ts.to_string(), "TIMESTAMP(MICROS,true)");
/// ```
impl fmt::Display for LogicalType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogicalType::Unrecognized { field_id, .. } => write!(f, "UNRECOGNIZED({field_id})"),
            known => write_logical(f, known),
        }
    }
}

fn write_schema(schema: &SchemaDescriptor, out: &mut dyn fmt::Write) -> fmt::Result {
    let nodes = schema.nodes();
    let root = schema.root();
    out.write_str("message ")?;
    write_name(out, root.name())?;
    // The root's field id or annotation (pyarrow writes id -1) is not printed: the
    // parquet-mr and arrow-rs parsers reject it after `message <name>`.
    out.write_str(" {\n")?;
    // (group, next child position): an explicit stack, so depth costs heap, not stack.
    let mut open: Vec<(usize, usize)> = vec![(0, 0)];
    while let Some(top) = open.last_mut() {
        let group = &nodes[top.0];
        let Some(&child_id) = group.children().get(top.1) else {
            open.pop();
            write_indent(out, open.len() * INDENT)?;
            out.write_str("}\n")?;
            continue;
        };
        top.1 += 1;
        let child = &nodes[child_id];
        write_indent(out, open.len() * INDENT)?;
        let repetition = child.repetition().unwrap_or(FieldRepetitionType::REQUIRED);
        out.write_str(repetition_keyword(repetition))?;
        match child.kind() {
            NodeKind::Group { .. } => {
                out.write_str(" group ")?;
                write_name(out, child.name())?;
                write_annotation_and_id(out, child)?;
                out.write_str(" {\n")?;
                open.push((child_id, 0));
            }
            NodeKind::Primitive {
                physical_type,
                type_length,
                ..
            } => {
                out.write_char(' ')?;
                write_physical(out, *physical_type, *type_length)?;
                out.write_char(' ')?;
                write_name(out, child.name())?;
                write_annotation_and_id(out, child)?;
                out.write_str(";\n")?;
            }
        }
    }
    Ok(())
}

fn write_indent(out: &mut dyn fmt::Write, n: usize) -> fmt::Result {
    for _ in 0..n {
        out.write_char(' ')?;
    }
    Ok(())
}

fn repetition_keyword(repetition: FieldRepetitionType) -> &'static str {
    match repetition {
        FieldRepetitionType::OPTIONAL => "optional",
        FieldRepetitionType::REPEATED => "repeated",
        _ => "required",
    }
}

fn write_physical(out: &mut dyn fmt::Write, physical: Type, length: Option<i32>) -> fmt::Result {
    match physical {
        Type::BOOLEAN => out.write_str("boolean"),
        Type::INT32 => out.write_str("int32"),
        Type::INT64 => out.write_str("int64"),
        Type::INT96 => out.write_str("int96"),
        Type::FLOAT => out.write_str("float"),
        Type::DOUBLE => out.write_str("double"),
        Type::BYTE_ARRAY => out.write_str("binary"),
        Type::FIXED_LEN_BYTE_ARRAY => write!(out, "fixed_len_byte_array({})", length.unwrap_or(0)),
        // A validated schema holds no other value; print something the parser rejects.
        other => write!(out, "{other}"),
    }
}

fn is_plain_word(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| !c.is_whitespace() && !c.is_control() && !is_punct(c) && c != '"' && c != '\\')
}

fn write_quoted_or_plain(out: &mut dyn fmt::Write, s: &str) -> fmt::Result {
    if is_plain_word(s) {
        out.write_str(s)
    } else {
        write_quoted(out, s)
    }
}

fn write_quoted(out: &mut dyn fmt::Write, s: &str) -> fmt::Result {
    out.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => out.write_str("\\\"")?,
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            c if c.is_control() => write!(out, "\\u{{{:x}}}", c as u32)?,
            c => out.write_char(c)?,
        }
    }
    out.write_char('"')
}

fn write_name(out: &mut dyn fmt::Write, name: &str) -> fmt::Result {
    write_quoted_or_plain(out, name)
}

/// A CRS, quoted also when it would read as an edge algorithm or a number.
fn write_crs(out: &mut dyn fmt::Write, crs: &str) -> fmt::Result {
    if parse_algorithm(crs).is_some() {
        write_quoted(out, crs)
    } else {
        write_quoted_or_plain(out, crs)
    }
}

fn write_annotation_and_id(out: &mut dyn fmt::Write, node: &Node) -> fmt::Result {
    let mut annotation = String::new();
    write_annotation(&mut annotation, node)?;
    if !annotation.is_empty() {
        write!(out, " ({annotation})")?;
    }
    if let Some(id) = node.field_id() {
        write!(out, " = {id}")?;
    }
    Ok(())
}

fn unit_name(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Millis => "MILLIS",
        TimeUnit::Micros => "MICROS",
        TimeUnit::Nanos => "NANOS",
    }
}

/// Writes the annotation text (without parentheses), or nothing.
fn write_annotation(out: &mut dyn fmt::Write, node: &Node) -> fmt::Result {
    match node.logical_type() {
        Some(LogicalType::Unrecognized { .. }) | None => {}
        Some(logical) => return write_logical(out, logical),
    }
    let Some(converted) = node.converted_type() else {
        return Ok(());
    };
    if converted == ConvertedType::DECIMAL {
        return match (node.precision(), node.scale()) {
            (Some(p), s) => write!(out, "DECIMAL({p},{})", s.unwrap_or(0)),
            (None, _) => out.write_str("DECIMAL"),
        };
    }
    match converted.name() {
        Some(name) => out.write_str(name),
        None => Ok(()),
    }
}

fn write_logical(out: &mut dyn fmt::Write, logical: &LogicalType) -> fmt::Result {
    match logical {
        LogicalType::String => out.write_str("STRING"),
        LogicalType::Map => out.write_str("MAP"),
        LogicalType::List => out.write_str("LIST"),
        LogicalType::Enum => out.write_str("ENUM"),
        LogicalType::Decimal { scale, precision } => write!(out, "DECIMAL({precision},{scale})"),
        LogicalType::Date => out.write_str("DATE"),
        LogicalType::Time {
            is_adjusted_to_utc,
            unit,
        } => write!(out, "TIME({},{is_adjusted_to_utc})", unit_name(*unit)),
        LogicalType::Timestamp {
            is_adjusted_to_utc,
            unit,
        } => write!(out, "TIMESTAMP({},{is_adjusted_to_utc})", unit_name(*unit)),
        LogicalType::Integer {
            bit_width,
            is_signed,
        } => write!(out, "INTEGER({bit_width},{is_signed})"),
        LogicalType::Unknown => out.write_str("UNKNOWN"),
        LogicalType::Json => out.write_str("JSON"),
        LogicalType::Bson => out.write_str("BSON"),
        LogicalType::Uuid => out.write_str("UUID"),
        LogicalType::Float16 => out.write_str("FLOAT16"),
        LogicalType::Variant {
            specification_version,
        } => match specification_version {
            Some(v) => write!(out, "VARIANT({v})"),
            None => out.write_str("VARIANT"),
        },
        LogicalType::Geometry { crs } => match crs {
            Some(crs) => {
                out.write_str("GEOMETRY(")?;
                write_crs(out, crs)?;
                out.write_char(')')
            }
            None => out.write_str("GEOMETRY"),
        },
        LogicalType::Geography { crs, algorithm } => {
            if crs.is_none() && algorithm.is_none() {
                return out.write_str("GEOGRAPHY");
            }
            out.write_str("GEOGRAPHY(")?;
            if let Some(crs) = crs {
                write_crs(out, crs)?;
            }
            if let Some(algorithm) = algorithm {
                out.write_char(',')?;
                match algorithm.name() {
                    Some(name) => out.write_str(name)?,
                    None => write!(out, "{}", algorithm.0)?,
                }
            }
            out.write_char(')')
        }
        // Not spellable; callers print the converted type instead.
        LogicalType::Unrecognized { .. } => Ok(()),
    }
}

fn is_punct(c: char) -> bool {
    matches!(c, ';' | '{' | '}' | '(' | ')' | ',' | '=')
}

#[derive(Debug, Clone, PartialEq)]
enum Token<'a> {
    Word(&'a str),
    Quoted(String),
    Punct(char),
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Word(w) => write!(f, "`{w}`"),
            Token::Quoted(s) => write!(f, "{s:?}"),
            Token::Punct(c) => write!(f, "`{c}`"),
        }
    }
}

/// Reads a quoted string's body (after the opening quote): its value and the bytes
/// consumed, closing quote included.
fn unquote(body: &str) -> std::result::Result<(String, usize), &'static str> {
    let mut value = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((value, i + 1)),
            '\\' => match chars.next() {
                Some((_, '"')) => value.push('"'),
                Some((_, '\\')) => value.push('\\'),
                Some((_, 'n')) => value.push('\n'),
                Some((_, 'r')) => value.push('\r'),
                Some((_, 't')) => value.push('\t'),
                Some((_, 'u')) => {
                    if chars.next().map(|(_, c)| c) != Some('{') {
                        return Err("bad \\u{..} escape in a quoted string");
                    }
                    let mut code = String::new();
                    loop {
                        match chars.next() {
                            Some((_, '}')) => break,
                            Some((_, h)) if h.is_ascii_hexdigit() && code.len() < 6 => code.push(h),
                            _ => return Err("bad \\u{..} escape in a quoted string"),
                        }
                    }
                    let c = u32::from_str_radix(&code, 16)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or("bad \\u{..} escape in a quoted string")?;
                    value.push(c);
                }
                _ => return Err("unknown escape in a quoted string"),
            },
            c => value.push(c),
        }
    }
    Err("unterminated quoted string")
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    /// Start of the last token returned, for error positions.
    last: usize,
    peeked: Option<(usize, Option<Token<'a>>)>,
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Self {
        Lexer {
            text,
            pos: 0,
            last: 0,
            peeked: None,
        }
    }

    /// "line L, column C" of a byte offset.
    fn position(&self, offset: usize) -> String {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before
            .rfind('\n')
            .map_or(before.len(), |nl| before.len() - nl - 1)
            + 1;
        format!("line {line}, column {column}")
    }

    fn error(&self, message: impl fmt::Display) -> crate::Error {
        invalid(format!(
            "schema text, {}: {message}",
            self.position(self.last)
        ))
    }

    fn lex(&mut self) -> Result<(usize, Option<Token<'a>>)> {
        let rest = &self.text[self.pos..];
        let trimmed = rest.trim_start();
        let start = self.pos + (rest.len() - trimmed.len());
        let Some(c) = trimmed.chars().next() else {
            self.pos = self.text.len();
            return Ok((start, None));
        };
        if is_punct(c) {
            self.pos = start + 1;
            return Ok((start, Some(Token::Punct(c))));
        }
        if c == '"' {
            self.last = start;
            let (value, len) = unquote(&trimmed[1..]).map_err(|e| self.error(e))?;
            self.pos = start + 1 + len;
            return Ok((start, Some(Token::Quoted(value))));
        }
        let end = trimmed
            .find(|c: char| c.is_whitespace() || is_punct(c) || c == '"')
            .unwrap_or(trimmed.len());
        self.pos = start + end;
        Ok((start, Some(Token::Word(&trimmed[..end]))))
    }

    fn next(&mut self) -> Result<Option<Token<'a>>> {
        let (start, token) = match self.peeked.take() {
            Some(peeked) => peeked,
            None => self.lex()?,
        };
        self.last = start;
        Ok(token)
    }

    fn peek(&mut self) -> Result<Option<&Token<'a>>> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lex()?);
        }
        Ok(self.peeked.as_ref().and_then(|(_, t)| t.as_ref()))
    }

    /// Consumes the next token if it is the punctuation `c`.
    fn eat(&mut self, c: char) -> Result<bool> {
        if self.peek()? == Some(&Token::Punct(c)) {
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn expect(&mut self, c: char, context: &str) -> Result<()> {
        match self.next()? {
            Some(Token::Punct(p)) if p == c => Ok(()),
            Some(other) => Err(self.error(format!("expected `{c}` {context}, found {other}"))),
            None => Err(self.error(format!("expected `{c}` {context}, found the end"))),
        }
    }

    fn word(&mut self, what: &str) -> Result<&'a str> {
        match self.next()? {
            Some(Token::Word(w)) => Ok(w),
            Some(other) => Err(self.error(format!("expected {what}, found {other}"))),
            None => Err(self.error(format!("expected {what}, found the end"))),
        }
    }

    fn name(&mut self) -> Result<String> {
        match self.next()? {
            Some(Token::Word(w)) => Ok(w.to_owned()),
            Some(Token::Quoted(s)) => Ok(s),
            Some(other) => Err(self.error(format!("expected a field name, found {other}"))),
            None => Err(self.error("expected a field name, found the end")),
        }
    }

    fn int(&mut self, what: &str) -> Result<i32> {
        let word = self.word(what)?;
        word.parse::<i32>()
            .map_err(|_| self.error(format!("expected {what} (an integer), found `{word}`")))
    }
}

/// Parses the textual schema (`message name { ... }`) into the flat, depth-first
/// `SchemaElement` list a footer stores. The list is not validated: pass it to
/// [`SchemaDescriptor::new`] (or use [`parse_schema`]) for that.
///
/// A `LogicalType` annotation also sets the matching `ConvertedType` (and, for
/// `DECIMAL`, the element's precision and scale), as a writer would; a legacy spelling
/// such as `UTF8` sets only the `ConvertedType`.
///
/// ```
/// use herringbone_format::metadata::{ConvertedType, LogicalType, Type};
/// use herringbone_format::schema::parse_message_type;
///
/// let elements = parse_message_type("message m { required int32 d (DECIMAL(9,2)); }").unwrap();
/// assert_eq!(elements.len(), 2);
/// assert_eq!(elements[0].num_children, Some(1));
/// assert_eq!(elements[1].type_, Some(Type::INT32));
/// assert_eq!(elements[1].logical_type, Some(LogicalType::Decimal { scale: 2, precision: 9 }));
/// assert_eq!(elements[1].converted_type, Some(ConvertedType::DECIMAL));
/// assert_eq!((elements[1].precision, elements[1].scale), (Some(9), Some(2)));
/// ```
pub fn parse_message_type(text: &str) -> Result<Vec<SchemaElement>> {
    let mut lexer = Lexer::new(text);
    let keyword = lexer.word("`message`")?;
    if !keyword.eq_ignore_ascii_case("message") {
        return Err(lexer.error(format!("expected `message`, found `{keyword}`")));
    }
    let mut root = SchemaElement {
        name: Text::from(lexer.name()?),
        num_children: Some(0),
        ..SchemaElement::default()
    };
    parse_annotation_and_id(&mut lexer, &mut root)?;
    lexer.expect('{', "after the message name")?;
    let mut elements = vec![root];
    let mut open: Vec<usize> = vec![0];
    while let Some(&parent) = open.last() {
        let token = lexer.next()?;
        let repetition = match token {
            Some(Token::Punct('}')) => {
                open.pop();
                // parquet-mr and arrow-rs print none, but a `;` after a group is harmless.
                if !open.is_empty() {
                    lexer.eat(';')?;
                }
                continue;
            }
            Some(Token::Word(w)) => match w.to_ascii_lowercase().as_str() {
                "required" => FieldRepetitionType::REQUIRED,
                "optional" => FieldRepetitionType::OPTIONAL,
                "repeated" => FieldRepetitionType::REPEATED,
                _ => {
                    return Err(lexer.error(format!(
                        "expected `required`, `optional`, `repeated` or `}}`, found `{w}`"
                    )));
                }
            },
            Some(other) => {
                return Err(lexer.error(format!(
                    "expected `required`, `optional`, `repeated` or `}}`, found {other}"
                )));
            }
            None => return Err(lexer.error("unclosed group: expected `}`, found the end")),
        };
        let type_word = lexer.word("`group` or a physical type")?;
        let physical = match type_word.to_ascii_lowercase().as_str() {
            "group" => None,
            "boolean" => Some(Type::BOOLEAN),
            "int32" => Some(Type::INT32),
            "int64" => Some(Type::INT64),
            "int96" => Some(Type::INT96),
            "float" => Some(Type::FLOAT),
            "double" => Some(Type::DOUBLE),
            "binary" | "byte_array" => Some(Type::BYTE_ARRAY),
            "fixed_len_byte_array" => Some(Type::FIXED_LEN_BYTE_ARRAY),
            _ => {
                return Err(lexer.error(format!(
                    "expected `group` or a physical type, found `{type_word}`"
                )));
            }
        };
        let mut element = SchemaElement {
            repetition_type: Some(repetition),
            type_: physical,
            ..SchemaElement::default()
        };
        if physical == Some(Type::FIXED_LEN_BYTE_ARRAY) {
            lexer.expect('(', "before the FIXED_LEN_BYTE_ARRAY length")?;
            element.type_length = Some(lexer.int("the FIXED_LEN_BYTE_ARRAY length")?);
            lexer.expect(')', "after the FIXED_LEN_BYTE_ARRAY length")?;
        }
        element.name = Text::from(lexer.name()?);
        parse_annotation_and_id(&mut lexer, &mut element)?;
        if let Some(n) = elements[parent].num_children.as_mut() {
            *n = n.saturating_add(1);
        }
        let index = elements.len();
        if physical.is_none() {
            lexer.expect('{', "to open the group")?;
            if open.len() > MAX_SCHEMA_DEPTH {
                return Err(limit_exceeded(format!(
                    "schema text, {}: groups nest deeper than {MAX_SCHEMA_DEPTH} levels",
                    lexer.position(lexer.last)
                )));
            }
            element.num_children = Some(0);
            elements.push(element);
            open.push(index);
        } else {
            lexer.expect(';', "after the field")?;
            elements.push(element);
        }
    }
    lexer.eat(';')?;
    if let Some(token) = lexer.next()? {
        return Err(lexer.error(format!("unexpected {token} after the message")));
    }
    Ok(elements)
}

/// Parses the textual schema and builds the validated [`SchemaDescriptor`].
///
/// ```
/// use herringbone_format::schema::parse_schema;
///
/// let schema = parse_schema("message m { optional binary s (STRING); }").unwrap();
/// assert_eq!(schema.column(0).unwrap().max_def_level(), 1);
/// assert!(parse_schema("message m { required int32 s (STRING); }").is_err());
/// ```
pub fn parse_schema(text: &str) -> Result<SchemaDescriptor> {
    SchemaDescriptor::new(&parse_message_type(text)?)
}

/// `[( annotation )] [= id]`, in either order.
fn parse_annotation_and_id(lexer: &mut Lexer<'_>, element: &mut SchemaElement) -> Result<()> {
    let mut seen_annotation = false;
    let mut seen_id = false;
    loop {
        if !seen_annotation && lexer.eat('(')? {
            parse_annotation(lexer, element)?;
            lexer.expect(')', "after the annotation")?;
            seen_annotation = true;
        } else if !seen_id && lexer.eat('=')? {
            element.field_id = Some(lexer.int("a field id")?);
            seen_id = true;
        } else if let Some(Token::Word(w)) = lexer.peek()?
            && !seen_id
            && w.starts_with('[')
        {
            // arrow-rs prints the field id as `[id]` after the name.
            let word = *w;
            lexer.next()?;
            let id = word
                .strip_prefix('[')
                .and_then(|w| w.strip_suffix(']'))
                .and_then(|w| w.parse::<i32>().ok())
                .ok_or_else(|| {
                    lexer.error(format!("expected a field id `[id]`, found `{word}`"))
                })?;
            element.field_id = Some(id);
            seen_id = true;
        } else {
            return Ok(());
        }
    }
}

/// One argument of `NAME(a, b, ...)`: a word or quoted string, or nothing.
struct Argument {
    text: Option<String>,
    quoted: bool,
}

/// The arguments of `NAME(a, b, ...)`. `Some(x)` reads as `x` (arrow-rs prints
/// `VARIANT(Some(1))`).
fn parse_arguments(lexer: &mut Lexer<'_>) -> Result<Vec<Argument>> {
    let mut args = Vec::new();
    if !lexer.eat('(')? {
        return Ok(args);
    }
    loop {
        let arg = match lexer.peek()? {
            Some(Token::Punct(',' | ')')) => Argument {
                text: None,
                quoted: false,
            },
            _ => match lexer.next()? {
                Some(Token::Word(w)) if lexer.peek()? == Some(&Token::Punct('(')) => {
                    if w != "Some" {
                        return Err(lexer.error(format!("unexpected `(` after `{w}`")));
                    }
                    lexer.next()?;
                    let inner = lexer.word("a value inside Some(..)")?.to_owned();
                    lexer.expect(')', "after Some(..)")?;
                    Argument {
                        text: Some(inner),
                        quoted: false,
                    }
                }
                Some(Token::Word(w)) => Argument {
                    text: Some(w.to_owned()),
                    quoted: false,
                },
                Some(Token::Quoted(s)) => Argument {
                    text: Some(s),
                    quoted: true,
                },
                Some(other) => {
                    return Err(lexer.error(format!("expected an argument, found {other}")));
                }
                None => return Err(lexer.error("expected an argument, found the end")),
            },
        };
        args.push(arg);
        match lexer.next()? {
            Some(Token::Punct(',')) => {}
            Some(Token::Punct(')')) => return Ok(args),
            Some(other) => {
                return Err(lexer.error(format!("expected `,` or `)`, found {other}")));
            }
            None => return Err(lexer.error("expected `,` or `)`, found the end")),
        }
    }
}

fn parse_annotation(lexer: &mut Lexer<'_>, element: &mut SchemaElement) -> Result<()> {
    let name = lexer.word("an annotation")?.to_ascii_uppercase();
    let arguments = parse_arguments(lexer)?;
    let arg_count = arguments.len();
    let args: Vec<Option<String>> = arguments.iter().map(|a| a.text.clone()).collect();
    // An unquoted argument naming an edge algorithm (arrow-rs puts it first).
    let is_algorithm = |i: usize| {
        arguments.get(i).is_some_and(|a| {
            !a.quoted
                && a.text
                    .as_deref()
                    .is_some_and(|t| algorithm_by_name(t).is_some())
        })
    };
    let bad_args = |lexer: &Lexer<'_>, expected: &str| {
        lexer.error(format!(
            "annotation {name} takes {expected}, got {arg_count} argument(s)"
        ))
    };
    let int_arg = |lexer: &Lexer<'_>, arg: &Option<String>, what: &str| -> Result<i64> {
        arg.as_deref()
            .and_then(|a| a.trim().parse::<i64>().ok())
            .ok_or_else(|| lexer.error(format!("{name}: {what} must be an integer")))
    };
    let bool_arg = |lexer: &Lexer<'_>, arg: &Option<String>, what: &str| -> Result<bool> {
        match arg.as_deref().map(str::to_ascii_lowercase).as_deref() {
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            _ => Err(lexer.error(format!("{name}: {what} must be true or false"))),
        }
    };
    let unit_arg = |lexer: &Lexer<'_>, arg: &Option<String>| -> Result<TimeUnit> {
        match arg.as_deref().map(str::to_ascii_uppercase).as_deref() {
            Some("MILLIS") => Ok(TimeUnit::Millis),
            Some("MICROS") => Ok(TimeUnit::Micros),
            Some("NANOS") => Ok(TimeUnit::Nanos),
            _ => Err(lexer.error(format!("{name}: unit must be MILLIS, MICROS or NANOS"))),
        }
    };
    let no_args = |lexer: &Lexer<'_>| {
        if arg_count == 0 {
            Ok(())
        } else {
            Err(bad_args(lexer, "no arguments"))
        }
    };
    // Spellings of the legacy ConvertedType only: they set no LogicalType.
    let converted_only = match name.as_str() {
        "UTF8" => Some(ConvertedType::UTF8),
        "MAP_KEY_VALUE" => Some(ConvertedType::MAP_KEY_VALUE),
        "TIME_MILLIS" => Some(ConvertedType::TIME_MILLIS),
        "TIME_MICROS" => Some(ConvertedType::TIME_MICROS),
        "TIMESTAMP_MILLIS" => Some(ConvertedType::TIMESTAMP_MILLIS),
        "TIMESTAMP_MICROS" => Some(ConvertedType::TIMESTAMP_MICROS),
        "UINT_8" => Some(ConvertedType::UINT_8),
        "UINT_16" => Some(ConvertedType::UINT_16),
        "UINT_32" => Some(ConvertedType::UINT_32),
        "UINT_64" => Some(ConvertedType::UINT_64),
        "INT_8" => Some(ConvertedType::INT_8),
        "INT_16" => Some(ConvertedType::INT_16),
        "INT_32" => Some(ConvertedType::INT_32),
        "INT_64" => Some(ConvertedType::INT_64),
        "INTERVAL" => Some(ConvertedType::INTERVAL),
        _ => None,
    };
    if let Some(converted) = converted_only {
        no_args(lexer)?;
        element.converted_type = Some(converted);
        return Ok(());
    }
    let logical = match name.as_str() {
        "STRING" => no_args(lexer).map(|()| LogicalType::String)?,
        "MAP" => no_args(lexer).map(|()| LogicalType::Map)?,
        "LIST" => no_args(lexer).map(|()| LogicalType::List)?,
        "ENUM" => no_args(lexer).map(|()| LogicalType::Enum)?,
        "DATE" => no_args(lexer).map(|()| LogicalType::Date)?,
        "JSON" => no_args(lexer).map(|()| LogicalType::Json)?,
        "BSON" => no_args(lexer).map(|()| LogicalType::Bson)?,
        "UUID" => no_args(lexer).map(|()| LogicalType::Uuid)?,
        "FLOAT16" => no_args(lexer).map(|()| LogicalType::Float16)?,
        "UNKNOWN" => no_args(lexer).map(|()| LogicalType::Unknown)?,
        "DECIMAL" => {
            let (precision, scale) = match args.as_slice() {
                [p] => (int_arg(lexer, p, "precision")?, 0),
                [p, s] => (int_arg(lexer, p, "precision")?, int_arg(lexer, s, "scale")?),
                _ => return Err(bad_args(lexer, "(precision,scale)")),
            };
            let (Ok(precision), Ok(scale)) = (i32::try_from(precision), i32::try_from(scale))
            else {
                return Err(lexer.error("DECIMAL precision or scale out of range"));
            };
            element.precision = Some(precision);
            element.scale = Some(scale);
            LogicalType::Decimal { scale, precision }
        }
        "TIME" | "TIMESTAMP" => {
            let [unit, utc] = args.as_slice() else {
                return Err(bad_args(lexer, "(unit,isAdjustedToUTC)"));
            };
            let unit = unit_arg(lexer, unit)?;
            let is_adjusted_to_utc = bool_arg(lexer, utc, "isAdjustedToUTC")?;
            if name == "TIME" {
                LogicalType::Time {
                    is_adjusted_to_utc,
                    unit,
                }
            } else {
                LogicalType::Timestamp {
                    is_adjusted_to_utc,
                    unit,
                }
            }
        }
        "INTEGER" | "INT" => {
            let [bits, signed] = args.as_slice() else {
                return Err(bad_args(lexer, "(bitWidth,isSigned)"));
            };
            let bits = int_arg(lexer, bits, "bit width")?;
            let Ok(bit_width) = i8::try_from(bits) else {
                return Err(lexer.error(format!("{name}: bit width {bits} out of range")));
            };
            LogicalType::Integer {
                bit_width,
                is_signed: bool_arg(lexer, signed, "isSigned")?,
            }
        }
        "VARIANT" => {
            let specification_version = match args.as_slice() {
                [] => None,
                [Some(none)] if none == "None" => None,
                [v] => {
                    let v = int_arg(lexer, v, "specification version")?;
                    Some(i8::try_from(v).map_err(|_| {
                        lexer.error(format!("VARIANT: specification version {v} out of range"))
                    })?)
                }
                _ => return Err(bad_args(lexer, "(specification version) or nothing")),
            };
            LogicalType::Variant {
                specification_version,
            }
        }
        "GEOMETRY" => match args.as_slice() {
            [] => LogicalType::Geometry { crs: None },
            [crs] => LogicalType::Geometry {
                crs: crs.clone().map(Text::from),
            },
            _ => return Err(bad_args(lexer, "(crs) or nothing")),
        },
        "GEOGRAPHY" => {
            let (crs, algorithm) = match args.as_slice() {
                [] => (None, None),
                // arrow-rs: `GEOGRAPHY(SPHERICAL)` and `GEOGRAPHY(SPHERICAL, crs)`.
                [algorithm] if is_algorithm(0) => (None, algorithm.clone()),
                [algorithm, crs] if is_algorithm(0) && !is_algorithm(1) => {
                    (crs.clone(), algorithm.clone())
                }
                [crs] => (crs.clone(), None),
                [crs, algorithm] => (crs.clone(), algorithm.clone()),
                _ => return Err(bad_args(lexer, "(crs,algorithm), (crs) or nothing")),
            };
            let algorithm = match algorithm {
                None => None,
                Some(a) => Some(parse_algorithm(&a).ok_or_else(|| {
                    lexer.error(format!("GEOGRAPHY: unknown edge algorithm `{a}`"))
                })?),
            };
            LogicalType::Geography {
                crs: crs.map(Text::from),
                algorithm,
            }
        }
        _ => return Err(lexer.error(format!("unknown annotation `{name}`"))),
    };
    element.converted_type = converted_type_from_logical(&logical);
    element.logical_type = Some(logical);
    Ok(())
}

fn algorithm_by_name(word: &str) -> Option<EdgeInterpolationAlgorithm> {
    let upper = word.trim().to_ascii_uppercase();
    EdgeInterpolationAlgorithm::ALL
        .iter()
        .copied()
        .find(|a| a.name() == Some(upper.as_str()))
}

/// An algorithm by name, or by number for a value this version does not know.
fn parse_algorithm(word: &str) -> Option<EdgeInterpolationAlgorithm> {
    algorithm_by_name(word).or_else(|| {
        word.trim()
            .parse::<i32>()
            .ok()
            .map(EdgeInterpolationAlgorithm)
    })
}

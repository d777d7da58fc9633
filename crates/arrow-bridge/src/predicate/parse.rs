//! The text form of a [`Predicate`], as `hb --filter` takes it.
//!
//! ```text
//! predicate  := or
//! or         := and ("OR" and)*
//! and        := not ("AND" not)*
//! not        := "NOT" not | primary
//! primary    := "(" predicate ")" | "TRUE" | "FALSE"
//!             | column op literal | literal op column
//!             | column ["NOT"] "IN" "(" literal ("," literal)* ")"
//!             | column "IS" ["NOT"] "NULL"
//!             | column ["NOT"] ("LIKE" | "ILIKE") string
//!             | column ["NOT"] "BETWEEN" literal "AND" literal
//!             | "bbox_intersects" "(" column "," number "," number "," number "," number ")"
//!             | "geometry_type_in" "(" column ("," number)+ ")"
//! op         := "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">="
//! column     := name ("." name)*          name: letters, digits, _ and $, or "quoted"
//! literal    := string | number | "TRUE" | "FALSE" | "NULL"
//!             | ("DATE" | "TIME" | "TIMESTAMP" | "DECIMAL") string
//! string     := '...' ('' is a quote inside)
//! number     := ["-" | "+"] digits ["." digits] [("e" | "E") ["-" | "+"] digits]
//! ```
//!
//! Keywords are case-insensitive. Numbers are `Int64` (`UInt64` past its range),
//! `Decimal128` with a fractional part (`12.50` is `Decimal128(4, 2)`) and `Float64`
//! with an exponent; strings are `Utf8` (typed prefixes such as `DATE` are accepted
//! and read as the string). Binding coerces them to the column's type.

use std::sync::Arc;

use arrow_array::{Decimal128Array, Float64Array, Int64Array, StringArray, UInt64Array};

use super::{ColumnRef, CompareOp, Literal, Predicate, SpatialFilter};
use crate::error::{Error, Result};

/// Nesting deeper than this is refused (parentheses and `NOT`s), so hostile text
/// cannot exhaust the stack.
const MAX_DEPTH: usize = 128;

const KEYWORDS: &[&str] = &[
    "AND",
    "OR",
    "NOT",
    "IN",
    "IS",
    "NULL",
    "LIKE",
    "ILIKE",
    "BETWEEN",
    "TRUE",
    "FALSE",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "DECIMAL",
];

/// Whether `word` is a keyword (such a column name is printed quoted).
pub(super) fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Quoted(String),
    Str(String),
    Number(String),
    Op(CompareOp),
    LParen,
    RParen,
    Comma,
    Dot,
}

fn tokenize(text: &str) -> Result<Vec<(usize, Token)>> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'(' | b')' | b',' | b'.'
                if !(c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                i += 1;
                tokens.push((
                    start,
                    match c {
                        b'(' => Token::LParen,
                        b')' => Token::RParen,
                        b',' => Token::Comma,
                        _ => Token::Dot,
                    },
                ));
                continue;
            }
            b'\'' | b'"' | b'`' => {
                let close = if c == b'`' { b'`' } else { c };
                let mut value = Vec::new();
                i += 1;
                loop {
                    match bytes.get(i) {
                        None => {
                            return Err(syntax(start, "unterminated quoted text"));
                        }
                        Some(&b) if b == close => {
                            if bytes.get(i + 1) == Some(&close) {
                                value.push(close);
                                i += 2;
                            } else {
                                i += 1;
                                break;
                            }
                        }
                        Some(&b) => {
                            value.push(b);
                            i += 1;
                        }
                    }
                }
                // The input is a &str and quotes are ASCII: the content is UTF-8.
                let value = String::from_utf8(value).map_err(|_| syntax(start, "invalid UTF-8"))?;
                tokens.push((
                    start,
                    if c == b'\'' {
                        Token::Str(value)
                    } else {
                        Token::Quoted(value)
                    },
                ));
                continue;
            }
            b'=' | b'!' | b'<' | b'>' => {
                let next = bytes.get(i + 1).copied();
                let (op, len) = match (c, next) {
                    (b'=', Some(b'=')) => (CompareOp::Eq, 2),
                    (b'=', _) => (CompareOp::Eq, 1),
                    (b'!', Some(b'=')) => (CompareOp::NotEq, 2),
                    (b'<', Some(b'>')) => (CompareOp::NotEq, 2),
                    (b'<', Some(b'=')) => (CompareOp::LtEq, 2),
                    (b'<', _) => (CompareOp::Lt, 1),
                    (b'>', Some(b'=')) => (CompareOp::GtEq, 2),
                    (b'>', _) => (CompareOp::Gt, 1),
                    _ => return Err(syntax(start, "`!` must be followed by `=`")),
                };
                i += len;
                tokens.push((start, Token::Op(op)));
                continue;
            }
            _ => {}
        }
        if c.is_ascii_digit()
            || c == b'.'
            || ((c == b'-' || c == b'+') && starts_number(&bytes[i + 1..]))
        {
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
                i += 1;
                if i < bytes.len() && (bytes[i] == b'-' || bytes[i] == b'+') {
                    i += 1;
                }
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            }
            tokens.push((start, Token::Number(text[start..i].to_string())));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric()
                    || matches!(bytes[i], b'_' | b'$')
                    || bytes[i] >= 0x80)
            {
                i += 1;
            }
            tokens.push((start, Token::Word(text[start..i].to_string())));
            continue;
        }
        let shown = text[start..].chars().next().unwrap_or('?');
        return Err(syntax(start, &format!("unexpected character `{shown}`")));
    }
    Ok(tokens)
}

fn starts_number(rest: &[u8]) -> bool {
    rest.first()
        .is_some_and(|b| b.is_ascii_digit() || *b == b'.')
}

fn syntax(offset: usize, what: &str) -> Error {
    Error::invalid_argument(format!("filter: {what} at offset {offset}"))
}

struct Parser {
    tokens: Vec<(usize, Token)>,
    at: usize,
    end: usize,
    depth: usize,
}

/// Parses the text form of a predicate.
pub(super) fn parse(text: &str) -> Result<Predicate> {
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens,
        at: 0,
        end: text.len(),
        depth: 0,
    };
    if parser.tokens.is_empty() {
        return Err(syntax(0, "empty filter"));
    }
    let predicate = parser.or()?;
    if parser.at < parser.tokens.len() {
        return Err(parser.expected("AND, OR or the end of the filter"));
    }
    Ok(predicate)
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|(_, t)| t)
    }

    fn offset(&self) -> usize {
        self.tokens.get(self.at).map_or(self.end, |(o, _)| *o)
    }

    fn expected(&self, what: &str) -> Error {
        let found = match self.peek() {
            None => "the end of the filter".to_string(),
            Some(Token::Word(w)) => format!("`{w}`"),
            Some(Token::Quoted(w)) => format!("\"{w}\""),
            Some(Token::Str(s)) => format!("'{s}'"),
            Some(Token::Number(n)) => format!("`{n}`"),
            Some(Token::Op(op)) => format!("`{}`", op.symbol()),
            Some(Token::LParen) => "`(`".into(),
            Some(Token::RParen) => "`)`".into(),
            Some(Token::Comma) => "`,`".into(),
            Some(Token::Dot) => "`.`".into(),
        };
        syntax(self.offset(), &format!("expected {what}, found {found}"))
    }

    fn keyword(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect_keyword(&mut self, word: &str) -> Result<()> {
        if self.keyword(word) {
            Ok(())
        } else {
            Err(self.expected(word))
        }
    }

    fn token(&mut self, token: &Token) -> bool {
        if self.peek() == Some(token) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn nest(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(syntax(
                self.offset(),
                &format!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    fn or(&mut self) -> Result<Predicate> {
        let mut list = vec![self.and()?];
        while self.keyword("OR") {
            list.push(self.and()?);
        }
        Ok(if list.len() == 1 {
            list.pop().expect("one element")
        } else {
            Predicate::Or(list)
        })
    }

    fn and(&mut self) -> Result<Predicate> {
        let mut list = vec![self.not()?];
        while self.keyword("AND") {
            list.push(self.not()?);
        }
        Ok(if list.len() == 1 {
            list.pop().expect("one element")
        } else {
            Predicate::And(list)
        })
    }

    fn not(&mut self) -> Result<Predicate> {
        if self.keyword("NOT") {
            self.nest()?;
            let inner = self.not()?;
            self.depth -= 1;
            return Ok(Predicate::Not(Box::new(inner)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Predicate> {
        if self.token(&Token::LParen) {
            self.nest()?;
            let inner = self.or()?;
            self.depth -= 1;
            if !self.token(&Token::RParen) {
                return Err(self.expected("`)`"));
            }
            return Ok(inner);
        }
        // A literal on the left: `5 < x`.
        if self.starts_literal() {
            let value = self.literal()?;
            let Some(Token::Op(op)) = self.peek().cloned() else {
                return Err(self.expected("a comparison operator"));
            };
            self.at += 1;
            let column = self.column()?;
            return Ok(Predicate::Compare {
                column,
                op: op.flip(),
                value,
            });
        }
        if self.keyword("TRUE") {
            return Ok(Predicate::Const(true));
        }
        if self.keyword("FALSE") {
            return Ok(Predicate::Const(false));
        }
        if let Some(call) = self.spatial_call()? {
            return Ok(call);
        }
        let column = self.column()?;
        if let Some(Token::Op(op)) = self.peek().cloned() {
            self.at += 1;
            let value = self.literal()?;
            return Ok(Predicate::Compare { column, op, value });
        }
        if self.keyword("IS") {
            let negated = self.keyword("NOT");
            self.expect_keyword("NULL")?;
            return Ok(Predicate::IsNull { column, negated });
        }
        let negated = self.keyword("NOT");
        if self.keyword("IN") {
            if !self.token(&Token::LParen) {
                return Err(self.expected("`(`"));
            }
            let mut values = vec![self.literal()?];
            while self.token(&Token::Comma) {
                values.push(self.literal()?);
            }
            if !self.token(&Token::RParen) {
                return Err(self.expected("`,` or `)`"));
            }
            return Ok(Predicate::In {
                column,
                values,
                negated,
            });
        }
        let case_insensitive = self.keyword("ILIKE");
        if case_insensitive || self.keyword("LIKE") {
            let Some(Token::Str(pattern)) = self.peek().cloned() else {
                return Err(self.expected("a quoted pattern"));
            };
            self.at += 1;
            return Ok(Predicate::Like {
                column,
                pattern,
                negated,
                case_insensitive,
            });
        }
        if self.keyword("BETWEEN") {
            let low = self.literal()?;
            self.expect_keyword("AND")?;
            let high = self.literal()?;
            let between = Predicate::And(vec![
                Predicate::Compare {
                    column: column.clone(),
                    op: CompareOp::GtEq,
                    value: low,
                },
                Predicate::Compare {
                    column,
                    op: CompareOp::LtEq,
                    value: high,
                },
            ]);
            return Ok(if negated {
                Predicate::Not(Box::new(between))
            } else {
                between
            });
        }
        Err(self.expected(if negated {
            "IN, LIKE, ILIKE or BETWEEN"
        } else {
            "a comparison operator, IN, IS, LIKE, ILIKE or BETWEEN"
        }))
    }

    /// `bbox_intersects(column, xmin, ymin, xmax, ymax)` or
    /// `geometry_type_in(column, code, ...)`; `None` when the next tokens are not a
    /// call (a column may have either name).
    fn spatial_call(&mut self) -> Result<Option<Predicate>> {
        let (Some(Token::Word(name)), Some((_, Token::LParen))) =
            (self.peek().cloned(), self.tokens.get(self.at + 1))
        else {
            return Ok(None);
        };
        let offset = self.offset();
        self.at += 2;
        let column = self.column()?;
        let mut args = Vec::new();
        while self.token(&Token::Comma) {
            let at = self.offset();
            match self.peek().cloned() {
                Some(Token::Number(n)) => {
                    self.at += 1;
                    args.push(
                        n.parse::<f64>()
                            .map_err(|_| syntax(at, &format!("`{n}` is not a number")))?,
                    );
                }
                _ => return Err(self.expected("a number")),
            }
        }
        if !self.token(&Token::RParen) {
            return Err(self.expected("`,` or `)`"));
        }
        let filter = SpatialFilter::from_call(&name, &args).map_err(|e| syntax(offset, &e))?;
        Ok(Some(Predicate::Spatial { column, filter }))
    }

    fn starts_literal(&self) -> bool {
        match self.peek() {
            Some(Token::Str(_) | Token::Number(_)) => true,
            Some(Token::Word(w)) => {
                let typed = ["DATE", "TIME", "TIMESTAMP", "DECIMAL"]
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(w))
                    && matches!(self.tokens.get(self.at + 1), Some((_, Token::Str(_))));
                typed || w.eq_ignore_ascii_case("NULL")
            }
            _ => false,
        }
    }

    fn column(&mut self) -> Result<ColumnRef> {
        let mut parts = Vec::new();
        loop {
            match self.peek().cloned() {
                Some(Token::Word(w)) if !is_keyword(&w) => parts.push(w),
                Some(Token::Quoted(w)) => parts.push(w),
                _ => return Err(self.expected("a column name")),
            }
            self.at += 1;
            if !self.token(&Token::Dot) {
                return Ok(ColumnRef::from_parts(parts));
            }
        }
    }

    fn literal(&mut self) -> Result<Literal> {
        let offset = self.offset();
        match self.peek().cloned() {
            Some(Token::Str(s)) => {
                self.at += 1;
                Ok(Literal::new(Arc::new(StringArray::from(vec![s]))))
            }
            Some(Token::Number(n)) => {
                self.at += 1;
                number(&n).ok_or_else(|| syntax(offset, &format!("`{n}` is not a number")))
            }
            Some(Token::Word(w)) => {
                self.at += 1;
                if w.eq_ignore_ascii_case("NULL") {
                    return Ok(Literal::null());
                }
                if w.eq_ignore_ascii_case("TRUE") || w.eq_ignore_ascii_case("FALSE") {
                    return Ok(Literal::from(w.eq_ignore_ascii_case("TRUE")));
                }
                let typed = ["DATE", "TIME", "TIMESTAMP", "DECIMAL"]
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(&w));
                if typed && let Some(Token::Str(s)) = self.peek().cloned() {
                    self.at += 1;
                    return Ok(Literal::new(Arc::new(StringArray::from(vec![s]))));
                }
                self.at -= 1;
                Err(self.expected("a literal"))
            }
            _ => Err(self.expected("a literal")),
        }
    }
}

/// The literal of a number's text: `Int64` (`UInt64` past its range), `Decimal128` with
/// a fraction, `Float64` with an exponent.
fn number(text: &str) -> Option<Literal> {
    let has_exponent = text.contains(['e', 'E']);
    if has_exponent {
        let v: f64 = text.parse().ok()?;
        return Some(Literal::new(Arc::new(Float64Array::from(vec![v]))));
    }
    if let Some((whole, fraction)) = text.split_once('.') {
        if fraction.contains('.') {
            return None;
        }
        let negative = whole.starts_with('-');
        let digits_whole = whole.trim_start_matches(['-', '+']);
        let digits: String = format!("{digits_whole}{fraction}");
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let trimmed = digits.trim_start_matches('0');
        let scale = fraction.len();
        let precision = trimmed.len().max(scale).max(1);
        if precision > 38 {
            let v: f64 = text.parse().ok()?;
            return Some(Literal::new(Arc::new(Float64Array::from(vec![v]))));
        }
        let mut unscaled: i128 = if trimmed.is_empty() {
            0
        } else {
            trimmed.parse().ok()?
        };
        if negative {
            unscaled = -unscaled;
        }
        let array = Decimal128Array::from(vec![unscaled])
            .with_precision_and_scale(precision as u8, scale as i8)
            .ok()?;
        return Some(Literal::new(Arc::new(array)));
    }
    if let Ok(v) = text.parse::<i64>() {
        return Some(Literal::new(Arc::new(Int64Array::from(vec![v]))));
    }
    if let Ok(v) = text.trim_start_matches('+').parse::<u64>() {
        return Some(Literal::new(Arc::new(UInt64Array::from(vec![v]))));
    }
    let v: f64 = text.parse().ok()?;
    Some(Literal::new(Arc::new(Float64Array::from(vec![v]))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predicate::col;

    #[test]
    fn precedence_and_forms() {
        let p = parse("a = 1 OR b < 2.5 AND NOT c IS NULL").unwrap();
        assert_eq!(
            p,
            col("a")
                .eq(1i64)
                .or(col("b").lt(lit_decimal(25, 2, 1)).and(!col("c").is_null()))
        );
        assert_eq!(p.to_string(), "a = 1 OR b < 2.5 AND NOT c IS NULL");
        let p = parse("(a = 1 OR b = 2) AND s.\"x y\" NOT IN ('p', 'q''r')").unwrap();
        assert_eq!(
            p.to_string(),
            "(a = 1 OR b = 2) AND s.\"x y\" NOT IN ('p', 'q''r')"
        );
        assert_eq!(parse("5 < x").unwrap(), col("x").gt(5i64));
        assert_eq!(
            parse("x between 1 and 3").unwrap(),
            col("x").gt_eq(1i64).and(col("x").lt_eq(3i64))
        );
        assert_eq!(
            parse("d >= DATE '1998-09-01'").unwrap(),
            col("d").gt_eq("1998-09-01")
        );
        assert_eq!(parse("n like 'ab%'").unwrap(), col("n").starts_with("ab"));
        assert_eq!(parse("x <> -3").unwrap(), col("x").not_eq(-3i64));
        assert_eq!(parse("x = 1e3").unwrap(), col("x").eq(1000.0f64));
        assert_eq!(
            parse("x = 18446744073709551615").unwrap(),
            col("x").eq(u64::MAX)
        );
    }

    fn lit_decimal(v: i128, p: u8, s: i8) -> Literal {
        Literal::new(Arc::new(
            Decimal128Array::from(vec![v])
                .with_precision_and_scale(p, s)
                .unwrap(),
        ))
    }

    #[test]
    fn decimal_literals_keep_their_scale() {
        assert_eq!(number("12.50").unwrap(), lit_decimal(1250, 4, 2));
        assert_eq!(number("-0.05").unwrap(), lit_decimal(-5, 2, 2));
        assert_eq!(number(".5").unwrap(), lit_decimal(5, 1, 1));
    }

    #[test]
    fn errors_say_what_and_where() {
        let e = parse("x = ").unwrap_err().to_string();
        assert!(
            e.contains("expected a literal, found the end of the filter at offset 4"),
            "{e}"
        );
        let e = parse("x ~ 3").unwrap_err().to_string();
        assert!(e.contains("unexpected character `~` at offset 2"), "{e}");
        let e = parse("x = 'abc").unwrap_err().to_string();
        assert!(e.contains("unterminated quoted text at offset 4"), "{e}");
        let e = parse("x = 1 y").unwrap_err().to_string();
        assert!(
            e.contains("expected AND, OR or the end of the filter, found `y`"),
            "{e}"
        );
        let e = parse("and = 1").unwrap_err().to_string();
        assert!(e.contains("expected a column name, found `and`"), "{e}");
        let deep = format!("{}x = 1{}", "(".repeat(1000), ")".repeat(1000));
        let e = parse(&deep).unwrap_err().to_string();
        assert!(e.contains("nesting deeper than 128 levels"), "{e}");
        let nots = format!("{}x = 1", "NOT ".repeat(100_000));
        assert!(parse(&nots).is_err());
    }
}

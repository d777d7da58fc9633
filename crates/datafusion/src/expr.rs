//! DataFusion filter expressions as Herringbone predicates.
//!
//! | DataFusion | Herringbone |
//! | --- | --- |
//! | `col op literal`, `literal op col` (`=`, `!=`, `<`, `<=`, `>`, `>=`) | [`Predicate::Compare`] |
//! | `col [NOT] IN (literals)` | [`Predicate::In`] |
//! | `col [NOT] BETWEEN literal AND literal` | two comparisons |
//! | `col IS [NOT] NULL` | [`Predicate::IsNull`] |
//! | `col [NOT] [I]LIKE 'pattern'` (no custom escape) | [`Predicate::Like`] |
//! | `AND`, `OR`, `NOT` of the above; `TRUE`, `FALSE` | the same |
//!
//! Anything else (functions, casts of the column, arithmetic, comparisons of two columns)
//! is not translated and left to DataFusion.

use datafusion::common::ScalarValue;
use datafusion::logical_expr::{BinaryExpr, Expr, Operator};
use herringbone::predicate::{ColumnRef, CompareOp, Literal, Predicate};

/// The predicate a DataFusion expression stands for, or `None` when it has no
/// translation (see the [module documentation](self)).
pub fn to_predicate(expr: &Expr) -> Option<Predicate> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => match op {
            Operator::And => Some(to_predicate(left)?.and(to_predicate(right)?)),
            Operator::Or => Some(to_predicate(left)?.or(to_predicate(right)?)),
            _ => {
                let op = compare_op(*op)?;
                match (column(left), literal(right), literal(left), column(right)) {
                    (Some(c), Some(v), _, _) => Some(Predicate::Compare {
                        column: c,
                        op,
                        value: v,
                    }),
                    (_, _, Some(v), Some(c)) => Some(Predicate::Compare {
                        column: c,
                        op: op.flip(),
                        value: v,
                    }),
                    _ => None,
                }
            }
        },
        Expr::Not(inner) => Some(!to_predicate(inner)?),
        Expr::IsNull(inner) => Some(Predicate::IsNull {
            column: column(inner)?,
            negated: false,
        }),
        Expr::IsNotNull(inner) => Some(Predicate::IsNull {
            column: column(inner)?,
            negated: true,
        }),
        Expr::InList(list) => Some(Predicate::In {
            column: column(&list.expr)?,
            values: list.list.iter().map(literal).collect::<Option<_>>()?,
            negated: list.negated,
        }),
        Expr::Between(between) => {
            let c = column(&between.expr)?;
            let range = Predicate::And(vec![
                Predicate::Compare {
                    column: c.clone(),
                    op: CompareOp::GtEq,
                    value: literal(&between.low)?,
                },
                Predicate::Compare {
                    column: c,
                    op: CompareOp::LtEq,
                    value: literal(&between.high)?,
                },
            ]);
            Some(if between.negated { !range } else { range })
        }
        Expr::Like(like) if like.escape_char.is_none() || like.escape_char == Some('\\') => {
            let pattern = match like.pattern.as_ref() {
                Expr::Literal(
                    ScalarValue::Utf8(Some(p))
                    | ScalarValue::LargeUtf8(Some(p))
                    | ScalarValue::Utf8View(Some(p)),
                    _,
                ) => p.clone(),
                _ => return None,
            };
            Some(Predicate::Like {
                column: column(&like.expr)?,
                pattern,
                negated: like.negated,
                case_insensitive: like.case_insensitive,
            })
        }
        Expr::Literal(ScalarValue::Boolean(Some(b)), _) => Some(Predicate::Const(*b)),
        _ => None,
    }
}

fn compare_op(op: Operator) -> Option<CompareOp> {
    Some(match op {
        Operator::Eq => CompareOp::Eq,
        Operator::NotEq => CompareOp::NotEq,
        Operator::Lt => CompareOp::Lt,
        Operator::LtEq => CompareOp::LtEq,
        Operator::Gt => CompareOp::Gt,
        Operator::GtEq => CompareOp::GtEq,
        _ => return None,
    })
}

fn column(expr: &Expr) -> Option<ColumnRef> {
    match expr {
        // The name of a top-level field (it may contain dots: one part).
        Expr::Column(c) => Some(ColumnRef::from_parts([c.name.clone()])),
        _ => None,
    }
}

fn literal(expr: &Expr) -> Option<Literal> {
    match expr {
        Expr::Literal(value, _) => {
            if value.is_null() {
                return Some(Literal::null());
            }
            value.to_array().ok().map(Literal::new)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::logical_expr::{col, lit};

    #[test]
    fn translations() {
        let e = col("a").gt(lit(5i32)).and(col("b").eq(lit("x")));
        assert_eq!(to_predicate(&e).unwrap().to_string(), "a > 5 AND b = 'x'");
        let e = lit(3i64).lt(col("a"));
        assert_eq!(to_predicate(&e).unwrap().to_string(), "a > 3");
        let e = col("a").between(lit(1i32), lit(2i32));
        assert_eq!(to_predicate(&e).unwrap().to_string(), "a >= 1 AND a <= 2");
        let e = col("s").like(lit("ab%")).or(col("s").is_null());
        assert_eq!(
            to_predicate(&e).unwrap().to_string(),
            "s LIKE 'ab%' OR s IS NULL"
        );
        let e = col("a").in_list(vec![lit(1i32), lit(2i32)], true);
        assert_eq!(to_predicate(&e).unwrap().to_string(), "a NOT IN (1, 2)");
        // Not translated: arithmetic, two columns, a function.
        assert!(to_predicate(&(col("a") + lit(1i32)).gt(lit(2i32))).is_none());
        assert!(to_predicate(&col("a").gt(col("b"))).is_none());
        assert!(to_predicate(&col("a").gt(lit(1i32)).and(col("a").gt(col("b")))).is_none());
    }
}

//! Text forms of Variant primitives: exact decimals, ISO dates and times, UUIDs.
//!
//! The calendar is the proleptic Gregorian one, computed here from day counts (no
//! date library): days are split into 400-year eras of 146,097 days, and the year,
//! month and day are read off the day within the era, with March as the first month
//! so that the leap day falls at the end.

use std::fmt::Write;

/// Days in a 400-year Gregorian cycle.
const DAYS_PER_ERA: i64 = 146_097;
/// Days from 0000-03-01 to 1970-01-01.
const EPOCH_SHIFT: i64 = 719_468;

/// The (year, month, day) of `days` since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let shifted = days + EPOCH_SHIFT;
    let era = shifted.div_euclid(DAYS_PER_ERA);
    let day_of_era = shifted.rem_euclid(DAYS_PER_ERA); // 0..=146096
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153; // 0 = March .. 11 = February
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn write_date(out: &mut String, days: i64) {
    let (year, month, day) = civil_from_days(days);
    if (0..=9999).contains(&year) {
        let _ = write!(out, "{year:04}");
    } else {
        // ISO 8601 expanded years carry a sign.
        let sign = if year < 0 { '-' } else { '+' };
        let _ = write!(out, "{sign}{:04}", year.unsigned_abs());
    }
    let _ = write!(out, "-{month:02}-{day:02}");
}

/// `YYYY-MM-DD` of a day count since 1970-01-01.
pub fn format_date(days: i32) -> String {
    let mut out = String::with_capacity(10);
    write_date(&mut out, days.into());
    out
}

/// `HH:MM:SS.fff…` of `units` of `10^-digits` seconds within a day (must be in range).
fn write_time_of_day(out: &mut String, units: i64, units_per_second: i64, digits: usize) {
    let seconds = units / units_per_second;
    let fraction = units % units_per_second;
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}.{fraction:0digits$}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    );
}

/// An ISO 8601 timestamp of `value` units (10^6 or 10^9 per second) since the epoch,
/// with `+00:00` when `utc`.
pub fn format_timestamp(value: i64, units_per_second: i64, digits: usize, utc: bool) -> String {
    let units_per_day = units_per_second * 86_400;
    let days = value.div_euclid(units_per_day);
    let within_day = value.rem_euclid(units_per_day);
    let mut out = String::with_capacity(36);
    write_date(&mut out, days);
    out.push('T');
    write_time_of_day(&mut out, within_day, units_per_second, digits);
    if utc {
        out.push_str("+00:00");
    }
    out
}

/// `HH:MM:SS.ffffff` of microseconds since midnight, or `None` outside one day.
pub fn format_time_micros(micros: i64) -> Option<String> {
    format_time_of_day(micros, 1_000_000, 6)
}

/// `HH:MM:SS.fff…` of `units` (10^3, 10^6 or 10^9 per second, `digits` 3, 6 or 9) since
/// midnight, or `None` outside one day.
pub fn format_time_of_day(units: i64, units_per_second: i64, digits: usize) -> Option<String> {
    if !(0..units_per_second.checked_mul(86_400)?).contains(&units) {
        return None;
    }
    let mut out = String::with_capacity(9 + digits);
    write_time_of_day(&mut out, units, units_per_second, digits);
    Some(out)
}

/// The lowercase hyphenated form `8-4-4-4-12` of a big-endian UUID.
pub fn format_uuid(bytes: &[u8; 16]) -> String {
    let mut out = String::with_capacity(36);
    for (i, byte) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// The exact decimal text of `unscaled * 10^-scale`, keeping all `scale` digits
/// (`1234, 2` -> `12.34`, `5, 3` -> `0.005`, `-7, 0` -> `-7`).
pub fn format_decimal(unscaled: i128, scale: u8) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let scale = usize::from(scale);
    let mut out = String::with_capacity(digits.len() + scale + 3);
    if unscaled < 0 {
        out.push('-');
    }
    if scale == 0 {
        out.push_str(&digits);
    } else if digits.len() > scale {
        let (int_part, fraction) = digits.split_at(digits.len() - scale);
        out.push_str(int_part);
        out.push('.');
        out.push_str(fraction);
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', scale - digits.len()));
        out.push_str(&digits);
    }
    out
}

/// A JSON number's text split into its exact decimal value: `(unscaled, scale)` with
/// `scale` in `0..=38` and at most 38 significant digits, or `None` when the number
/// cannot be held exactly that way. Trailing zeros after the point are kept (`1.50`
/// has scale 2) unless the scale would exceed 38.
pub fn parse_exact_decimal(text: &str) -> Option<(i128, u8)> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(pos) => {
            let exp_text = &rest[pos + 1..];
            let exp_text = exp_text.strip_prefix('+').unwrap_or(exp_text);
            // An exponent beyond a few hundred cannot give 38 digits: give up early.
            if exp_text.trim_start_matches('-').len() > 6 {
                return None;
            }
            (&rest[..pos], exp_text.parse::<i64>().ok()?)
        }
        None => (rest, 0),
    };
    let (int_part, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: String = int_part.chars().chain(fraction.chars()).collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut scale = fraction.len() as i64 - exponent;
    if scale < 0 {
        if digits.trim_start_matches('0').is_empty() {
            scale = 0;
        } else {
            if -scale > 38 {
                return None;
            }
            digits.extend(std::iter::repeat_n('0', (-scale) as usize));
            scale = 0;
        }
    }
    while scale > 38 && digits.ends_with('0') {
        digits.pop();
        scale -= 1;
    }
    if scale > 38 {
        return None;
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > 38 {
        return None;
    }
    let magnitude: i128 = if significant.is_empty() {
        0
    } else {
        significant.parse().ok()?
    };
    Some((if negative { -magnitude } else { magnitude }, scale as u8))
}

/// Number of decimal digits of `|value|` (1 for zero).
pub fn decimal_digits(value: i128) -> u32 {
    value.unsigned_abs().checked_ilog10().map_or(1, |d| d + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Days since 1970-01-01 of a (year, month, day); the inverse of [`civil_from_days`].
    pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
        let year = if month <= 2 { year - 1 } else { year };
        let era = year.div_euclid(400);
        let year_of_era = year.rem_euclid(400);
        let month = i64::from(month);
        let month_from_march = if month > 2 { month - 3 } else { month + 9 };
        let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        era * DAYS_PER_ERA + day_of_era - EPOCH_SHIFT
    }

    #[test]
    fn civil_dates_round_trip_and_known_values() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20194), (2025, 4, 16));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11016), (2000, 2, 29));
        assert_eq!(civil_from_days(-719_468), (0, 3, 1));
        for days in (-1_000_000i64..1_000_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(format_date(-719_469), "0000-02-29");
        assert_eq!(format_date(-719_529), "-0001-12-31");
        assert_eq!(days_from_civil(10000, 1, 1), 2_932_897);
        assert_eq!(format_date(2_932_897), "+10000-01-01");
    }

    #[test]
    fn timestamps_and_times() {
        assert_eq!(
            format_timestamp(1_744_821_296_780_000, 1_000_000, 6, true),
            "2025-04-16T16:34:56.780000+00:00"
        );
        assert_eq!(
            format_timestamp(-1, 1_000_000, 6, false),
            "1969-12-31T23:59:59.999999"
        );
        assert_eq!(
            format_timestamp(1_730_982_834_123_456_789, 1_000_000_000, 9, true),
            "2024-11-07T12:33:54.123456789+00:00"
        );
        assert_eq!(
            format_time_micros(45_234_123_456).unwrap(),
            "12:33:54.123456"
        );
        assert_eq!(format_time_micros(86_400_000_000), None);
        // Extremes must not overflow.
        format_timestamp(i64::MIN, 1_000_000, 6, true);
        format_timestamp(i64::MAX, 1_000_000_000, 9, false);
    }

    #[test]
    fn decimals_format_and_parse_exactly() {
        assert_eq!(format_decimal(1234, 2), "12.34");
        assert_eq!(format_decimal(-5, 3), "-0.005");
        assert_eq!(format_decimal(0, 2), "0.00");
        assert_eq!(format_decimal(-7, 0), "-7");
        assert_eq!(
            format_decimal(i128::MIN, 38),
            "-1.70141183460469231731687303715884105728"
        );
        assert_eq!(parse_exact_decimal("12.34"), Some((1234, 2)));
        assert_eq!(parse_exact_decimal("-0.005"), Some((-5, 3)));
        assert_eq!(parse_exact_decimal("1.5e3"), Some((1500, 0)));
        assert_eq!(parse_exact_decimal("1.5E-3"), Some((15, 4)));
        assert_eq!(parse_exact_decimal("1.50"), Some((150, 2)));
        assert_eq!(parse_exact_decimal("0e999999"), Some((0, 0)));
        assert_eq!(parse_exact_decimal("1e39"), None);
        assert_eq!(parse_exact_decimal("1e-39"), None);
        assert_eq!(parse_exact_decimal("1.0e-38"), Some((1, 38)));
        assert_eq!(
            parse_exact_decimal("123456789012345678901234567890123456789"),
            None
        );
        assert_eq!(decimal_digits(0), 1);
        assert_eq!(decimal_digits(-999), 3);
        assert_eq!(decimal_digits(1000), 4);
    }

    #[test]
    fn uuid_text() {
        let bytes = [
            0xf2, 0x4f, 0x9b, 0x64, 0x81, 0xfa, 0x49, 0xd1, 0xb7, 0x4e, 0x8c, 0x09, 0xa6, 0xe3,
            0x1c, 0x56,
        ];
        assert_eq!(format_uuid(&bytes), "f24f9b64-81fa-49d1-b74e-8c09a6e31c56");
    }
}

//! Text tables: names in fixed-width columns.

use std::borrow::Cow;

/// `s` for a table column `width` characters wide: unchanged when it fits, else its first
/// `width - 1` characters and an ellipsis, so that a long clip or node name does not push the
/// columns after it out of line. The full name stays in the commands' `--json` output.
/// Characters are counted, not display columns (a wide CJK character counts as one).
pub fn cell(s: &str, width: usize) -> Cow<'_, str> {
    if s.chars().count() <= width {
        return Cow::Borrowed(s);
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    Cow::Owned(out)
}

/// Width of a name column: the longest of `names` (characters), at least `min` and at most
/// `max` (longer names are cut by [`cell`]), so names can be copied into `--clip` as printed.
pub fn name_width<'a>(names: impl IntoIterator<Item = &'a str>, min: usize, max: usize) -> usize {
    names
        .into_iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(min, max)
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn long_names_are_cut_with_an_ellipsis() {
        assert_eq!(cell("Walk", 8), "Walk");
        assert_eq!(cell("12345678", 8), "12345678");
        assert_eq!(cell("123456789", 8), "1234567…");
        assert_eq!(cell("ÄÖÜäöüßéè", 4), "ÄÖÜ…");
        assert_eq!(format!("{:<8}|", cell(&"x".repeat(200), 8)), "xxxxxxx…|");
        assert_eq!(super::name_width(["ab", "abcdef"], 4, 5), 5);
        assert_eq!(super::name_width(["ab"], 4, 5), 4);
    }
}

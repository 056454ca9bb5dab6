//! Tables a terminal can hold: the long prose columns of a table (a finding, a fix, a message)
//! wrapped at word boundaries so that its lines fit a terminal's width, each row continued on
//! lines of its own with the other cells blank, as kubectl's describe-style output wraps long
//! text. The other columns keep their width; a prose column gets at least [`MIN_PROSE`]
//! columns, so a very narrow terminal still wraps past its edge rather than into one letter a
//! line. Pure: the caller says how wide the terminal is.

use super::shown_width;

/// The narrowest a prose column is wrapped to.
pub const MIN_PROSE: usize = 24;

/// `rows` under `headers` with the cells of the columns `prose` wrapped so that the table fits
/// `width` columns (three spaces between columns, as [`super::table`] lays them out): a row
/// whose prose cells take several lines becomes several rows, the first with every cell, the
/// others with the prose lines only. Rows that fit are kept as they are; so is everything when
/// the other columns alone leave no room. Cells of prose columns hold no colour.
pub fn fit(
    headers: &[&str],
    rows: Vec<Vec<String>>,
    width: usize,
    prose: &[usize],
) -> Vec<Vec<String>> {
    let widths = column_widths(headers, rows.iter());
    match limits(&widths, width, prose) {
        None => rows,
        Some(limit) => rows
            .iter()
            .flat_map(|row| wrap_row(row, &limit, prose))
            .collect(),
    }
}

/// The display width of each column of `headers` over `rows` (cells past the headers ignored).
pub fn column_widths<R: AsRef<[String]>>(
    headers: &[&str],
    rows: impl Iterator<Item = R>,
) -> Vec<usize> {
    let mut widths: Vec<usize> = headers.iter().map(|h| shown_width(h)).collect();
    let columns = widths.len();
    for row in rows {
        for (i, c) in row.as_ref().iter().enumerate().take(columns) {
            widths[i] = widths[i].max(shown_width(c));
        }
    }
    widths
}

/// How wide each column may be for a table of column `widths` to fit `width` (three spaces
/// between columns): the prose columns get [`MIN_PROSE`] (or less, when they need less), then a
/// share of what is left in proportion to what more each needs; the others keep their width.
/// None when the table fits as it is or there is no prose column to wrap.
pub fn limits(widths: &[usize], width: usize, prose: &[usize]) -> Option<Vec<usize>> {
    let columns = widths.len();
    let gaps = 3 * columns.saturating_sub(1);
    let total: usize = widths.iter().sum::<usize>() + gaps;
    if total <= width || prose.is_empty() {
        return None;
    }
    let fixed: usize = widths
        .iter()
        .enumerate()
        .filter(|(i, _)| !prose.contains(i))
        .map(|(_, w)| *w)
        .sum::<usize>()
        + gaps;
    let room = width.saturating_sub(fixed);
    let base = |i: usize| MIN_PROSE.min(widths[i]);
    let rest = room.saturating_sub(prose.iter().map(|&i| base(i)).sum::<usize>());
    let more: usize = prose.iter().map(|&i| widths[i] - base(i)).sum();
    let mut limit = widths.to_vec();
    for &i in prose {
        let extra = rest * (widths[i] - base(i)) / more.max(1);
        limit[i] = (base(i) + extra).min(widths[i]);
    }
    Some(limit)
}

/// One row with its `prose` cells wrapped to their `limit`: as many rows as its longest prose
/// cell has lines, the first with every cell, the others with the prose lines only.
pub fn wrap_row(row: &[String], limit: &[usize], prose: &[usize]) -> Vec<Vec<String>> {
    let wrapped: Vec<Vec<String>> = row
        .iter()
        .enumerate()
        .map(|(i, c)| match limit.get(i) {
            Some(l) if prose.contains(&i) => wrap(c, *l),
            _ => vec![c.clone()],
        })
        .collect();
    let lines = wrapped.iter().map(Vec::len).max().unwrap_or(1);
    (0..lines)
        .map(|l| {
            wrapped
                .iter()
                .enumerate()
                .map(|(i, cell)| match cell.get(l) {
                    Some(text) if l == 0 || prose.contains(&i) => text.clone(),
                    _ => String::new(),
                })
                .collect()
        })
        .collect()
}

/// `text` cut into lines of at most `width` display columns at spaces; a word longer than a line
/// is cut inside. Never empty: an empty text is one empty line.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word.to_string();
        loop {
            let need = if line.is_empty() {
                shown_width(&word)
            } else {
                shown_width(&line) + 1 + shown_width(&word)
            };
            if need <= width {
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            // A word longer than a line: as much of it as fits, then the rest.
            let mut head = String::new();
            let mut rest = word.chars();
            for c in rest.by_ref() {
                if shown_width(&head) + shown_width(&c.to_string()) > width && !head.is_empty() {
                    let mut tail = c.to_string();
                    tail.extend(rest.by_ref());
                    word = tail;
                    lines.push(std::mem::take(&mut head));
                    break;
                }
                head.push(c);
            }
            if !head.is_empty() {
                // The whole word fitted after all (cannot happen: it did not fit above).
                line = head;
                break;
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_wraps_at_spaces_and_long_words_are_cut() {
        assert_eq!(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(wrap("one", 10), ["one"]);
        // Display width: a wide character counts two.
        assert_eq!(wrap("日本 語", 4), ["日本", "語"]);
    }

    /// A table wider than the terminal has its prose columns wrapped, each in proportion to its
    /// width, the continuation lines holding the prose only; every line then fits.
    #[test]
    fn a_wide_table_is_wrapped_to_the_terminal() {
        let headers = ["ID", "FINDING", "FIX"];
        let finding = "the health customization matched none of the objects given to it";
        let fix = "check the group and kind in the key";
        let rows = vec![vec![
            "A01".to_string(),
            finding.to_string(),
            fix.to_string(),
        ]];
        let fitted = fit(&headers, rows.clone(), 80, &[1, 2]);
        let table = crate::render::table(&headers, fitted.clone());
        for line in table.lines() {
            assert!(shown_width(line) <= 80, "{line:?} ({})", shown_width(line));
        }
        assert_eq!(fitted[0][0], "A01");
        assert!(fitted[1..].iter().all(|r| r[0].is_empty()));
        let back = |col: usize| {
            fitted
                .iter()
                .map(|r| r[col].as_str())
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(back(1), finding);
        assert_eq!(back(2), fix);
        // A table that fits is left alone; so is one whose other columns leave no room (the
        // prose then keeps MIN_PROSE columns).
        assert_eq!(fit(&headers, rows.clone(), 200, &[1, 2]), rows);
        let narrow = fit(&headers, rows, 10, &[1, 2]);
        assert!(narrow.iter().all(|r| shown_width(&r[1]) <= MIN_PROSE));
    }
}

//! The Unicode tables of `\p{...}` as Go 1.26 names and holds them (`regexp/syntax/parse.go`:
//! `unicodeTable`, `canonicalName`; package `unicode`: `Categories`, `Scripts`,
//! `CategoryAliases`, `FoldCategory`, `FoldScript`, `SimpleFold`), and Go's simple case folding.
//!
//! The names are Go's own lists. The code points come from the regex crate's tables (Unicode
//! 16.0) cut to what Unicode 15.0.0, the version of Go 1.26's package `unicode`, had assigned:
//! a category or script is its Unicode 16 set less the characters new in 16.0, `Cn` is every
//! character 15.0 left unassigned, and case folding pairs only characters 15.0 knew. What
//! Unicode changed since for characters 15.0 already had is undone: U+1171E is `Mn`
//! ([`MN_IN_15`]) and three foldings are not made ([`FOLDS_SINCE_15`]). The surrogates U+D800
//! to U+DFFF, which no Rust string holds, are added back where Go has them (`Cs`, `C`, `Any`),
//! so a class reads with Go's ranges. A test compares every category, script and fold with
//! Go's.

use std::sync::OnceLock;

use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, HirKind};

use super::ranges::{self, MAX_RUNE};

/// The smallest and largest rune that case folding involves (Go's `minFold`, `maxFold`).
pub(super) const MIN_FOLD: i32 = 0x0041;
pub(super) const MAX_FOLD: i32 = 0x1e943;

/// Go 1.26's `unicode.Categories` keys.
pub(super) const CATEGORIES: [&str; 38] = [
    "C", "Cc", "Cf", "Cn", "Co", "Cs", "L", "LC", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me",
    "Mn", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk",
    "Sm", "So", "Z", "Zl", "Zp", "Zs",
];

/// Go 1.26's `unicode.Scripts` keys. A name with `_` or an inner capital (`Old_Italic`,
/// `SignWriting`) differs from its `canonicalName`, so Go 1.26 finds no table for it.
pub(super) const SCRIPTS: [&str; 163] = [
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cypro_Minoan",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dives_Akuru",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kayah_Li",
    "Kharoshthi",
    "Khitan_Small_Script",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nag_Mundari",
    "Nandinagari",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Nyiakeng_Puachue_Hmong",
    "Ogham",
    "Ol_Chiki",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Old_Uyghur",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Toto",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

/// Go 1.26's `unicode.CategoryAliases`: long name, category.
pub(super) const CATEGORY_ALIASES: [(&str, &str); 42] = [
    ("Cased_Letter", "LC"),
    ("Close_Punctuation", "Pe"),
    ("Combining_Mark", "M"),
    ("Connector_Punctuation", "Pc"),
    ("Control", "Cc"),
    ("Currency_Symbol", "Sc"),
    ("Dash_Punctuation", "Pd"),
    ("Decimal_Number", "Nd"),
    ("Enclosing_Mark", "Me"),
    ("Final_Punctuation", "Pf"),
    ("Format", "Cf"),
    ("Initial_Punctuation", "Pi"),
    ("Letter", "L"),
    ("Letter_Number", "Nl"),
    ("Line_Separator", "Zl"),
    ("Lowercase_Letter", "Ll"),
    ("Mark", "M"),
    ("Math_Symbol", "Sm"),
    ("Modifier_Letter", "Lm"),
    ("Modifier_Symbol", "Sk"),
    ("Nonspacing_Mark", "Mn"),
    ("Number", "N"),
    ("Open_Punctuation", "Ps"),
    ("Other", "C"),
    ("Other_Letter", "Lo"),
    ("Other_Number", "No"),
    ("Other_Punctuation", "Po"),
    ("Other_Symbol", "So"),
    ("Paragraph_Separator", "Zp"),
    ("Private_Use", "Co"),
    ("Punctuation", "P"),
    ("Separator", "Z"),
    ("Space_Separator", "Zs"),
    ("Spacing_Mark", "Mc"),
    ("Surrogate", "Cs"),
    ("Symbol", "S"),
    ("Titlecase_Letter", "Lt"),
    ("Unassigned", "Cn"),
    ("Uppercase_Letter", "Lu"),
    ("cntrl", "Cc"),
    ("digit", "Nd"),
    ("punct", "P"),
];

/// The categories and scripts Go has fold tables for (`unicode.FoldCategory`,
/// `unicode.FoldScript`): only these gain case-fold equivalents under `(?i)`.
pub(super) const FOLD_CATEGORIES: [&str; 6] = ["L", "Ll", "Lt", "Lu", "M", "Mn"];
pub(super) const FOLD_SCRIPTS: [&str; 3] = ["Common", "Greek", "Inherited"];

/// U+1171E AHOM CONSONANT SIGN MEDIAL RA: `Mn` in Unicode 15.0 (and Go 1.26), `Mc` since 16.0.
pub(super) const MN_IN_15: char = '\u{1171E}';

/// Simple case foldings Unicode 15.1 added between characters 15.0 already had; Go 1.26 folds
/// none of them (`unicode.SimpleFold(0x390)` is 0x390).
pub(super) const FOLDS_SINCE_15: [(char, char); 3] = [
    ('\u{390}', '\u{1FD3}'),
    ('\u{3B0}', '\u{1FE3}'),
    ('\u{FB05}', '\u{FB06}'),
];

fn folds_since_15() -> ClassUnicode {
    ClassUnicode::new(
        FOLDS_SINCE_15
            .iter()
            .flat_map(|&(a, b)| [ClassUnicodeRange::new(a, a), ClassUnicodeRange::new(b, b)]),
    )
}

/// A table `\p{...}` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Table {
    /// `\p{Any}`: every rune.
    Any,
    /// `\p{ASCII}`.
    Ascii,
    /// A general category, by Go's key.
    Category(&'static str),
    /// A script, by Go's key.
    Script(&'static str),
}

/// What a `\p{name}` refers to: the table, whether it is inverted (`Assigned` is `Cn`
/// inverted), and whether Go has fold equivalents for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Lookup {
    pub(super) table: Table,
    pub(super) negated: bool,
    pub(super) folds: bool,
}

/// Go's `canonicalName`: `_`, `-` and spaces dropped, the first letter upper case and the
/// others lower case (`upper case-let ter` is `Uppercaseletter`).
pub(super) fn canonical_name(name: &str) -> String {
    let mut out = Vec::with_capacity(name.len());
    let mut first = true;
    for &c in name.as_bytes() {
        if matches!(c, b'_' | b'-' | b' ') {
            continue;
        }
        if first {
            out.push(c.to_ascii_uppercase());
            first = false;
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    // Only ASCII bytes were changed, so the bytes are still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Go's `unicodeTable`: the table `\p{name}` names, None when Go knows no such name.
pub(super) fn lookup(name: &str) -> Option<Lookup> {
    let name = canonical_name(name);
    let category = |key: &'static str| Lookup {
        table: Table::Category(key),
        negated: false,
        folds: FOLD_CATEGORIES.contains(&key),
    };
    match name.as_str() {
        "Any" => {
            return Some(Lookup {
                table: Table::Any,
                negated: false,
                folds: true,
            })
        }
        "Assigned" => {
            return Some(Lookup {
                table: Table::Category("Cn"),
                negated: true,
                folds: true,
            })
        }
        "Ascii" => {
            return Some(Lookup {
                table: Table::Ascii,
                negated: false,
                folds: true,
            })
        }
        "Lc" => return Some(category("LC")),
        _ => {}
    }
    if let Some(key) = CATEGORIES.iter().find(|k| **k == name) {
        return Some(category(key));
    }
    if let Some(key) = SCRIPTS.iter().find(|k| **k == name) {
        return Some(Lookup {
            table: Table::Script(key),
            negated: false,
            folds: FOLD_SCRIPTS.contains(key),
        });
    }
    CATEGORY_ALIASES
        .iter()
        .find(|(alias, _)| canonical_name(alias) == name)
        .and_then(|(_, actual)| CATEGORIES.iter().find(|k| *k == actual))
        .map(|key| category(key))
}

/// The code points Unicode 15.0 had given an age (the regex crate's `Age=15.0`, which counts
/// every version up to it): its assigned characters and the noncharacters.
fn age15() -> &'static ClassUnicode {
    static AGE15: OnceLock<ClassUnicode> = OnceLock::new();
    AGE15.get_or_init(|| property("Age=V15_0"))
}

fn in_age15(c: char) -> bool {
    let ranges = age15().ranges();
    let i = ranges.partition_point(|r| r.end() < c);
    i < ranges.len() && ranges[i].start() <= c
}

/// The class of a Unicode property the regex crate knows (`gc=Lu`, `sc=Greek`); empty if it
/// does not know it (a test checks that it knows every name Go can reach).
fn property(query: &str) -> ClassUnicode {
    match regex_syntax::Parser::new().parse(&format!("\\p{{{query}}}")) {
        Ok(hir) => match hir.into_kind() {
            HirKind::Class(Class::Unicode(c)) => c,
            // A class of one character is read as that character (`gc=Zl` is U+2028).
            HirKind::Literal(lit) => match std::str::from_utf8(&lit.0).map(|s| s.chars()) {
                Ok(mut chars) => match (chars.next(), chars.next()) {
                    (Some(c), None) => ClassUnicode::new([ClassUnicodeRange::new(c, c)]),
                    _ => ClassUnicode::empty(),
                },
                Err(_) => ClassUnicode::empty(),
            },
            _ => ClassUnicode::empty(),
        },
        Err(_) => ClassUnicode::empty(),
    }
}

/// The class of a table as Unicode 15.0 has it, without surrogates.
fn unicode15(table: Table) -> ClassUnicode {
    let mut c = match table {
        Table::Any => return ClassUnicode::new([ClassUnicodeRange::new('\0', char::MAX)]),
        Table::Ascii => return ClassUnicode::new([ClassUnicodeRange::new('\0', '\x7f')]),
        Table::Category("Cs") => return ClassUnicode::empty(),
        Table::Category("Cn") => return unassigned15(),
        Table::Category(key) => property(&format!("gc={key}")),
        Table::Script(key) => property(&format!("sc={key}")),
    };
    c.intersect(age15());
    let ra = ClassUnicode::new([ClassUnicodeRange::new(MN_IN_15, MN_IN_15)]);
    match table {
        Table::Category("C") => c.union(&unassigned15()),
        Table::Category("Mn") => c.union(&ra),
        Table::Category("Mc") => c.difference(&ra),
        _ => {}
    }
    c
}

/// `Cn` as Unicode 15.0 has it: what 15.0 left unassigned, and the noncharacters (U+FDD0 to
/// U+FDEF, U+FFFE, U+FFFF and the last two of every plane), which have an age but no category.
fn unassigned15() -> ClassUnicode {
    let mut assigned = age15().clone();
    assigned.difference(&property("gc=Cn"));
    assigned.negate();
    assigned
}

/// Whether Go's table holds the surrogates.
fn has_surrogates(table: Table) -> bool {
    matches!(table, Table::Any | Table::Category("C" | "Cs"))
}

/// Go's ranges of a table, clean (`lo, hi` pairs); with `folded`, also every rune
/// case-fold equivalent to one of them (Go's table merged with its fold table).
pub(super) fn ranges(table: Table, folded: bool) -> Vec<i32> {
    let mut c = unicode15(table);
    // Every rune already holds its equivalents.
    if folded && table != Table::Any {
        c.union(&fold_class(&c));
    }
    let mut out = to_runes(&c);
    if has_surrogates(table) {
        out.push(0xD800);
        out.push(0xDFFF);
        ranges::clean(&mut out);
    }
    out
}

/// The characters case-fold equivalent to one of `c`'s, as Unicode 15.0 folds.
fn fold_class(c: &ClassUnicode) -> ClassUnicode {
    let mut f = c.clone();
    f.intersect(age15());
    // Characters Go folds with nothing (their only partners came later) add nothing.
    f.difference(&folds_since_15());
    f.case_fold_simple();
    f.intersect(age15());
    f
}

/// A class of chars as rune pairs: a range across the surrogates is split around them.
fn to_runes(c: &ClassUnicode) -> Vec<i32> {
    let mut out = Vec::with_capacity(c.ranges().len() * 2);
    for r in c.ranges() {
        let (lo, hi) = (r.start() as i32, r.end() as i32);
        if lo < 0xD800 && hi > 0xDFFF {
            out.extend([lo, 0xD7FF, 0xE000, hi]);
        } else {
            out.extend([lo, hi]);
        }
    }
    out
}

/// A rune range as a class of chars (the surrogates left out), or None when it holds none.
fn char_range(lo: i32, hi: i32) -> Option<ClassUnicode> {
    let lo = if (0xD800..=0xDFFF).contains(&lo) {
        0xE000
    } else {
        lo.max(0)
    };
    let hi = if (0xD800..=0xDFFF).contains(&hi) {
        0xD7FF
    } else {
        hi.min(MAX_RUNE)
    };
    let (lo, hi) = (char::from_u32(lo as u32)?, char::from_u32(hi as u32)?);
    (lo <= hi).then(|| ClassUnicode::new([ClassUnicodeRange::new(lo, hi)]))
}

/// The runes case-fold equivalent to one of `lo-hi` (clean pairs; they may overlap `lo-hi`).
pub(super) fn fold_range(lo: i32, hi: i32) -> Vec<i32> {
    match char_range(lo, hi) {
        Some(c) => to_runes(&fold_class(&c)),
        None => Vec::new(),
    }
}

/// Go's `unicode.IsLetter` (category L) as Go 1.26's tables answer it (Unicode 15.0.0, which
/// Go 1.21 to 1.26 all carry).
pub(crate) fn is_letter(c: char) -> bool {
    static L: OnceLock<Vec<i32>> = OnceLock::new();
    in_ranges(L.get_or_init(|| ranges(Table::Category("L"), false)), c)
}

/// Go's `unicode.IsDigit` (category Nd) as Go 1.26's tables answer it.
pub(crate) fn is_digit(c: char) -> bool {
    static ND: OnceLock<Vec<i32>> = OnceLock::new();
    in_ranges(ND.get_or_init(|| ranges(Table::Category("Nd"), false)), c)
}

/// Whether `c` is in clean `lo, hi` pairs.
fn in_ranges(pairs: &[i32], c: char) -> bool {
    let r = c as i32;
    let n = pairs.len() / 2;
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if pairs[2 * mid + 1] < r {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo < n && pairs[2 * lo] <= r
}

/// The case orbit of `r` (Go's `SimpleFold` steps through it), sorted; `[r]` when `r` has
/// no case-fold equivalent.
pub(super) fn orbit(r: i32) -> Vec<i32> {
    let Some(c) = u32::try_from(r).ok().and_then(char::from_u32) else {
        return vec![r];
    };
    let unfolded = FOLDS_SINCE_15.iter().any(|&(a, b)| c == a || c == b);
    if !(MIN_FOLD..=MAX_FOLD).contains(&r) || !in_age15(c) || unfolded {
        return vec![r];
    }
    let mut class = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
    class.case_fold_simple();
    let mut out: Vec<i32> = class
        .iter()
        .flat_map(|range| range.start()..=range.end())
        .filter(|&o| in_age15(o))
        .map(|o| o as i32)
        .collect();
    if out.is_empty() {
        out.push(r);
    }
    out
}

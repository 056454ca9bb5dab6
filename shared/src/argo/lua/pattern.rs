//! gopher-lua's Lua pattern engine (gopher-lua v1.1.2 `pm/pm.go`), which Argo CD's open-libs
//! scripts get behind `string.find`, `match`, `gmatch` and `gsub`. It differs from PUC Lua's
//! matcher in ways a script can see: a pattern is parsed into a small program and run by a
//! backtracking machine, the frontier `%f` is a plain class, errors read `unexpected EOS at 2`,
//! `invalid capture index`, `pattern/input too complex`, and every match of a `gsub`/`gmatch`
//! is found before any replacement runs.
//!
//! Beyond gopher: the machine is iterative (gopher recurses up to 1,000,000 levels on a goroutine
//! stack that grows), it asks `expired` every [`CHECK_EVERY`] steps so that the evaluation's
//! time limit also stops a pathological pattern, and the matches it keeps are counted against a
//! byte budget (the evaluation's memory cap).

/// How many machine steps run between two deadline checks.
pub(super) const CHECK_EVERY: u32 = 4096;
/// gopher `pm.maxRecursionLevel`.
const MAX_LEVEL: usize = 1_000_000;
/// gopher `pm.EOS`.
const EOS: i64 = -1;

/// Why a search stopped without an answer.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum PatternError {
    /// gopher `pm.Error` text (`unexpected EOS at 2`, `invalid ')' at 0`, ...), raised by the
    /// string library with the caller's position prefix.
    Pattern(String),
    /// The evaluation's time limit passed during the search.
    Expired,
    /// The matches found would need more than the byte budget.
    TooLarge,
}

fn perr(pos: i64, msg: &str) -> PatternError {
    PatternError::Pattern(if pos == EOS {
        format!("{msg} at EOS")
    } else {
        format!("{msg} at {pos}")
    })
}

/// One match: gopher `pm.MatchData.captures`, each `position << 1`, with bit 0 set for a
/// position capture `()`. Slots 0 and 1 are the whole match.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Match {
    pub(super) captures: Vec<u32>,
}

impl Match {
    /// gopher `CaptureLength`: the number of slots (twice the captures, whole match included).
    pub(super) fn len(&self) -> usize {
        self.captures.len()
    }
    /// gopher `Capture(i)`: the byte offset held by slot `i`.
    pub(super) fn at(&self, i: usize) -> usize {
        (self.captures[i] >> 1) as usize
    }
    /// gopher `IsPosCapture(i)`.
    pub(super) fn is_position(&self, i: usize) -> bool {
        self.captures[i] & 1 == 1
    }
    fn set(&mut self, s: usize, pos: usize) -> u32 {
        while s >= self.captures.len() {
            self.captures.push(0);
        }
        std::mem::replace(&mut self.captures[s], (pos as u32) << 1)
    }
    fn set_position(&mut self, s: usize, pos: usize) {
        while s + 1 >= self.captures.len() {
            self.captures.push(0);
        }
        self.captures[s] = ((pos as u32) << 1) | 1;
        self.captures[s + 1] = ((pos as u32) << 1) | 1;
    }
}

/// gopher's pattern scanner, position and all: error positions are the offset of the last byte
/// read (`-1` for "at EOS").
#[derive(Clone, Copy)]
struct ScanState {
    pos: i64,
    started: bool,
}

struct Scanner<'a> {
    src: &'a [u8],
    st: ScanState,
    saved: ScanState,
}

impl Scanner<'_> {
    fn len(&self) -> i64 {
        self.src.len() as i64
    }
    fn next_pos(&self) -> i64 {
        if self.st.pos == EOS || self.st.pos >= self.len() - 1 {
            EOS
        } else if !self.st.started {
            0
        } else {
            self.st.pos + 1
        }
    }
    fn next(&mut self) -> i64 {
        if !self.st.started {
            self.st.started = true;
            if self.src.is_empty() {
                self.st.pos = EOS;
            }
        } else {
            self.st.pos = self.next_pos();
        }
        if self.st.pos == EOS {
            EOS
        } else {
            self.src[self.st.pos as usize] as i64
        }
    }
    fn peek(&mut self) -> i64 {
        let was_eos = self.st.pos == EOS;
        let ch = self.next();
        if !was_eos {
            if self.st.pos == EOS {
                self.st.pos = self.len() - 1;
            } else {
                self.st.pos -= 1;
                if self.st.pos < 0 {
                    self.st.pos = 0;
                    self.st.started = false;
                }
            }
        }
        ch
    }
}

/// A character class (gopher `dotClass`, `charClass`, `singleClass`, `setClass`, `rangeClass`).
#[derive(Debug, Clone)]
enum Class {
    Dot,
    Char(i64),
    Single(i64),
    Set(bool, Vec<Class>),
    Range(Box<Class>, Box<Class>),
}

impl Class {
    fn matches(&self, ch: i64) -> bool {
        match self {
            Class::Dot => true,
            Class::Char(c) => *c == ch,
            Class::Single(c) => single(*c, ch),
            Class::Set(not, classes) => {
                if classes.iter().any(|c| c.matches(ch)) {
                    !*not
                } else {
                    *not
                }
            }
            Class::Range(b, e) => match (&**b, &**e) {
                (Class::Char(b), Class::Char(e)) => *b <= ch && ch <= *e,
                _ => false,
            },
        }
    }
}

/// gopher `singleClass.Matches`: `%a`, `%d`, ... in ASCII; an upper-case letter negates; any
/// other byte after `%` stands for itself (`%f` included).
fn single(class: i64, ch: i64) -> bool {
    let within = |a: u8, b: u8| (a as i64) <= ch && ch <= (b as i64);
    let r = match u8::try_from(class).map(|c| c.to_ascii_lowercase()) {
        Ok(b'a') => within(b'A', b'Z') || within(b'a', b'z'),
        Ok(b'c') => within(0, 0x1f) || ch == 0x7f,
        Ok(b'd') => within(b'0', b'9'),
        Ok(b'l') => within(b'a', b'z'),
        Ok(b'p') => {
            within(0x21, 0x2f) || within(0x3a, 0x40) || within(0x5b, 0x60) || within(0x7b, 0x7e)
        }
        Ok(b's') => matches!(ch, 0x20 | 0x0c | 0x0a | 0x0d | 0x09 | 0x0b),
        Ok(b'u') => within(b'A', b'Z'),
        Ok(b'w') => within(b'0', b'9') || within(b'A', b'Z') || within(b'a', b'z'),
        Ok(b'x') => within(b'0', b'9') || within(b'a', b'f') || within(b'A', b'F'),
        Ok(b'z') => ch == 0,
        _ => return ch == class,
    };
    if (b'A' as i64..=b'Z' as i64).contains(&class) {
        !r
    } else {
        r
    }
}

enum Pat {
    Single(Class),
    Seq(Seq),
    Repeat(u8, Class),
    PosCap,
    Cap(Seq),
    Number(i64),
    Brace(i64, i64),
}

struct Seq {
    must_head: bool,
    must_tail: bool,
    items: Vec<Pat>,
}

fn parse_class(sc: &mut Scanner, allow_set: bool) -> Result<Class, PatternError> {
    let ch = sc.next();
    Ok(match ch {
        0x25 => Class::Single(sc.next()),
        0x2e if allow_set => Class::Dot,
        0x5b if allow_set => parse_set(sc)?,
        EOS => return Err(perr(sc.st.pos, "unexpected EOS")),
        c => Class::Char(c),
    })
}

fn parse_set(sc: &mut Scanner) -> Result<Class, PatternError> {
    let mut not = false;
    let mut classes: Vec<Class> = Vec::new();
    if sc.peek() == b'^' as i64 {
        not = true;
        sc.next();
    }
    let mut range = false;
    loop {
        let ch = sc.peek();
        if ch == EOS {
            return Err(perr(sc.st.pos, "unexpected EOS"));
        }
        if ch == b']' as i64 && !classes.is_empty() {
            sc.next();
            break;
        }
        if (ch == b']' as i64 || ch == b'-' as i64) && !classes.is_empty() {
            sc.next();
            range = true;
            continue;
        }
        classes.push(parse_class(sc, false)?);
        if range {
            let end = classes.pop().expect("two classes");
            let begin = classes.pop().expect("two classes");
            classes.push(Class::Range(Box::new(begin), Box::new(end)));
            range = false;
        }
    }
    if range {
        classes.push(Class::Char(b'-' as i64));
    }
    Ok(Class::Set(not, classes))
}

fn parse_seq(sc: &mut Scanner, top: bool) -> Result<Seq, PatternError> {
    let mut seq = Seq {
        must_head: false,
        must_tail: false,
        items: Vec::new(),
    };
    if top && sc.peek() == b'^' as i64 {
        sc.next();
        seq.must_head = true;
    }
    loop {
        let ch = sc.peek();
        match u8::try_from(ch).unwrap_or(0) {
            _ if ch == EOS => {
                sc.next();
                return Ok(seq);
            }
            b'%' => {
                sc.saved = sc.st;
                sc.next();
                match u8::try_from(sc.peek()).unwrap_or(0) {
                    b'0' => return Err(perr(sc.st.pos, "invalid capture index")),
                    d @ b'1'..=b'9' => {
                        sc.next();
                        seq.items.push(Pat::Number((d - b'0') as i64));
                    }
                    b'b' => {
                        sc.next();
                        let open = sc.next();
                        let close = sc.next();
                        seq.items.push(Pat::Brace(open, close));
                    }
                    _ => {
                        sc.st = sc.saved;
                        seq.items.push(Pat::Single(parse_class(sc, true)?));
                    }
                }
            }
            b'.' | b'[' | b']' => seq.items.push(Pat::Single(parse_class(sc, true)?)),
            b')' => {
                if top {
                    return Err(perr(sc.st.pos, "invalid ')'"));
                }
                return Ok(seq);
            }
            b'(' => {
                sc.next();
                if sc.peek() == b')' as i64 {
                    sc.next();
                    seq.items.push(Pat::PosCap);
                } else {
                    let inner = parse_seq(sc, false)?;
                    if sc.peek() != b')' as i64 {
                        return Err(perr(sc.st.pos, "unfinished capture"));
                    }
                    sc.next();
                    seq.items.push(Pat::Cap(inner));
                }
            }
            op @ (b'*' | b'+' | b'-' | b'?') => {
                sc.next();
                if let Some(Pat::Single(_)) = seq.items.last() {
                    if let Some(Pat::Single(class)) = seq.items.pop() {
                        seq.items.push(Pat::Repeat(op, class));
                    }
                } else {
                    seq.items.push(Pat::Single(Class::Char(ch)));
                }
            }
            b'$' => {
                let np = sc.next_pos();
                if top && (np == sc.len() - 1 || np == EOS) {
                    seq.must_tail = true;
                } else {
                    seq.items.push(Pat::Single(Class::Char(ch)));
                }
                sc.next();
            }
            _ => {
                sc.next();
                seq.items.push(Pat::Single(Class::Char(ch)));
            }
        }
    }
}

/// gopher's instruction set (`opChar` ... `opNumber`).
enum Inst {
    Char(Class),
    Match,
    TailMatch,
    Jmp(usize),
    Split(usize, usize),
    Save(usize),
    PSave(usize),
    Brace(i64, i64),
    Number(i64),
}

fn compile(p: Pat, out: &mut Vec<Inst>, capture: &mut usize) {
    match p {
        Pat::Single(c) => out.push(Inst::Char(c)),
        Pat::Seq(seq) => {
            for item in seq.items {
                compile(item, out, capture);
            }
        }
        Pat::Repeat(op, c) => {
            let i = out.len();
            match op {
                b'*' => out.extend([Inst::Split(i + 1, i + 3), Inst::Char(c), Inst::Jmp(i)]),
                b'+' => out.extend([Inst::Char(c), Inst::Split(i, i + 2)]),
                b'-' => out.extend([Inst::Split(i + 3, i + 1), Inst::Char(c), Inst::Jmp(i)]),
                _ => out.extend([Inst::Split(i + 1, i + 2), Inst::Char(c)]),
            }
        }
        Pat::PosCap => {
            out.push(Inst::PSave(*capture));
            *capture += 2;
        }
        Pat::Cap(seq) => {
            let (c0, c1) = (*capture, *capture + 1);
            *capture += 2;
            out.push(Inst::Save(c0));
            compile(Pat::Seq(seq), out, capture);
            out.push(Inst::Save(c1));
        }
        Pat::Brace(b, e) => out.push(Inst::Brace(b, e)),
        Pat::Number(n) => out.push(Inst::Number(n)),
    }
}

/// A compiled pattern.
pub(super) struct Pattern {
    insts: Vec<Inst>,
    must_head: bool,
}

impl Pattern {
    /// gopher `parsePattern` + `compilePattern`. Errors: gopher's `pm.Error` texts.
    pub(super) fn compile(pattern: &[u8]) -> Result<Pattern, PatternError> {
        let mut sc = Scanner {
            src: pattern,
            st: ScanState {
                pos: 0,
                started: false,
            },
            saved: ScanState {
                pos: 0,
                started: false,
            },
        };
        let seq = parse_seq(&mut sc, true)?;
        let (must_head, must_tail) = (seq.must_head, seq.must_tail);
        let mut insts = vec![Inst::Save(0)];
        compile(Pat::Seq(seq), &mut insts, &mut 2);
        if must_tail {
            insts.extend([Inst::Save(1), Inst::TailMatch]);
        }
        insts.extend([Inst::Save(1), Inst::Match]);
        Ok(Pattern { insts, must_head })
    }
}

/// The machine's backtracking stack: an alternative to try, or a capture to restore.
enum Undo {
    Alt(usize, usize),
    Restore(usize, u32),
}

/// Counts steps and asks for the deadline every [`CHECK_EVERY`] of them.
pub(super) struct Budget<'a> {
    pub(super) steps: u32,
    pub(super) expired: &'a dyn Fn() -> bool,
    /// Bytes the kept matches may still take.
    pub(super) bytes: usize,
}

impl Budget<'_> {
    fn step(&mut self) -> Result<(), PatternError> {
        self.add(1)
    }

    /// Counts `n` steps of work (bytes scanned by one instruction count one each).
    fn add(&mut self, n: usize) -> Result<(), PatternError> {
        self.steps = self
            .steps
            .saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        if self.steps >= CHECK_EVERY {
            self.steps = 0;
            if (self.expired)() {
                return Err(PatternError::Expired);
            }
        }
        Ok(())
    }
}

/// gopher `recursiveVM` from `pc = 0` at `sp`, as a loop over an explicit stack.
fn run(
    src: &[u8],
    insts: &[Inst],
    start: usize,
    stack: &mut Vec<Undo>,
    budget: &mut Budget,
) -> Result<Option<Match>, PatternError> {
    let mut m = Match {
        captures: Vec::new(),
    };
    stack.clear();
    let (mut pc, mut sp) = (0usize, start);
    loop {
        budget.step()?;
        let ok = match &insts[pc] {
            Inst::Char(c) => {
                if sp < src.len() && c.matches(src[sp] as i64) {
                    pc += 1;
                    sp += 1;
                    continue;
                }
                false
            }
            Inst::Match => return Ok(Some(m)),
            Inst::TailMatch => {
                if sp >= src.len() {
                    return Ok(Some(m));
                }
                false
            }
            Inst::Jmp(to) => {
                pc = *to;
                continue;
            }
            Inst::Split(a, b) => {
                if stack.len() + 1 >= MAX_LEVEL {
                    return Err(PatternError::Pattern("pattern/input too complex".into()));
                }
                stack.push(Undo::Alt(*b, sp));
                pc = *a;
                continue;
            }
            Inst::Save(slot) => {
                if stack.len() + 1 >= MAX_LEVEL {
                    return Err(PatternError::Pattern("pattern/input too complex".into()));
                }
                let old = m.set(*slot, sp);
                stack.push(Undo::Restore(*slot, old));
                pc += 1;
                continue;
            }
            Inst::PSave(slot) => {
                m.set_position(*slot, sp + 1);
                pc += 1;
                continue;
            }
            Inst::Brace(open, close) => {
                let mut found = false;
                if sp < src.len() && src[sp] as i64 == *open {
                    let mut count = 1;
                    let from = sp;
                    sp += 1;
                    while sp < src.len() {
                        if src[sp] as i64 == *close {
                            count -= 1;
                        }
                        if count == 0 {
                            pc += 1;
                            sp += 1;
                            found = true;
                            break;
                        }
                        if src[sp] as i64 == *open {
                            count += 1;
                        }
                        sp += 1;
                    }
                    budget.add(sp - from)?;
                }
                if found {
                    continue;
                }
                false
            }
            Inst::Number(n) => {
                let idx = (*n as usize) * 2;
                if idx + 1 >= m.len() {
                    return Err(PatternError::Pattern("invalid capture index".into()));
                }
                let (a, b) = (m.at(idx), m.at(idx + 1));
                let cap = src.get(a..b).unwrap_or(&[]);
                budget.add(cap.len())?;
                if src.len() >= sp && src[sp..].starts_with(cap) {
                    pc += 1;
                    sp += cap.len();
                    continue;
                }
                false
            }
        };
        debug_assert!(!ok);
        // Failure: unwind to the latest alternative, restoring captures on the way.
        loop {
            match stack.pop() {
                None => return Ok(None),
                Some(Undo::Restore(slot, old)) => m.captures[slot] = old,
                Some(Undo::Alt(a, s)) => {
                    pc = a;
                    sp = s;
                    break;
                }
            }
        }
    }
}

/// gopher `pm.Find`: the matches of `pattern` in `src` from byte `offset`, at most `limit` of
/// them (gopher stops when the count equals `limit`, so `-1` and `0` mean all); an anchored
/// pattern (`^`) is tried at `offset` only. After a match the next try starts at its end, or one
/// byte further when it was empty.
pub(super) fn find(
    pattern: &Pattern,
    src: &[u8],
    offset: usize,
    limit: i64,
    budget: &mut Budget,
) -> Result<Vec<Match>, PatternError> {
    let mut matches = Vec::new();
    let mut stack = Vec::new();
    let mut sp = offset;
    while sp <= src.len() {
        let found = run(src, &pattern.insts, sp, &mut stack, budget)?;
        sp += 1;
        if let Some(m) = found {
            let end = m.at(1);
            if sp < end {
                sp = end;
            }
            let size = std::mem::size_of::<Match>() + 4 * m.len();
            budget.bytes = budget
                .bytes
                .checked_sub(size)
                .ok_or(PatternError::TooLarge)?;
            matches.push(m);
        }
        if matches.len() as i64 == limit || pattern.must_head {
            break;
        }
    }
    Ok(matches)
}

#[cfg(test)]
mod tests {
    //! Expected values follow gopher-lua v1.1.2 `pm/pm.go` (parser, compiler and machine) and its
    //! error texts, measured on gopher-lua v1.1.2.
    use super::*;

    fn all(p: &str, s: &str) -> Result<Vec<Vec<(usize, bool)>>, PatternError> {
        let pat = Pattern::compile(p.as_bytes())?;
        let never = || false;
        let mut b = Budget {
            steps: 0,
            expired: &never,
            bytes: 1 << 20,
        };
        Ok(find(&pat, s.as_bytes(), 0, -1, &mut b)?
            .into_iter()
            .map(|m| (0..m.len()).map(|i| (m.at(i), m.is_position(i))).collect())
            .collect())
    }

    #[test]
    fn pattern_errors_are_gophers() {
        for (p, want) in [
            ("[a", "unexpected EOS at 1"),
            ("(a", "unfinished capture at EOS"),
            ("[ab", "unexpected EOS at 2"),
            ("a)", "invalid ')' at 0"),
            ("%0", "invalid capture index at 0"),
            ("[", "unexpected EOS at 0"),
        ] {
            assert_eq!(
                Pattern::compile(p.as_bytes()).err(),
                Some(PatternError::Pattern(want.into())),
                "{p}"
            );
        }
        assert_eq!(
            all("(a)%2", "aa").err(),
            Some(PatternError::Pattern("invalid capture index".into()))
        );
    }

    #[test]
    fn empty_matches_and_positions() {
        // `%w*` over "ab c": "ab" at 0..2, then an empty match at 2, "c" at 3..4, empty at 4.
        let spans: Vec<(usize, usize)> = all("%w*", "ab c")
            .unwrap()
            .iter()
            .map(|m| (m[0].0, m[1].0))
            .collect();
        assert_eq!(spans, [(0, 2), (2, 2), (3, 4), (4, 4)]);
        // A position capture holds the 1-based position.
        assert_eq!(all("()b", "ab").unwrap()[0][2], (2, true));
        // %f is no frontier in gopher: it matches the byte 'f'.
        assert_eq!(all("%f[%w]", "x").unwrap().len(), 0);
        assert_eq!(
            all("%bxy", "axaybyc").unwrap()[0][..2],
            [(1, false), (4, false)]
        );
    }

    #[test]
    fn pathological_pattern_stops_at_the_deadline() {
        let pat = Pattern::compile(b"a*a*a*a*a*a*a*a*a*a*a*a*b").unwrap();
        let src = vec![b'a'; 5000];
        let calls = std::cell::Cell::new(0);
        let expired = || {
            calls.set(calls.get() + 1);
            calls.get() > 10
        };
        let mut b = Budget {
            steps: 0,
            expired: &expired,
            bytes: 1 << 20,
        };
        assert_eq!(
            find(&pat, &src, 0, 1, &mut b).err(),
            Some(PatternError::Expired)
        );
    }
}

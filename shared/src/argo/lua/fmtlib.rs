//! `string.format` as gopher-lua v1.1.2 runs it (`stringlib.go` `strFormat`): Go's
//! `fmt.Sprintf` (Go 1.26, the toolchain Argo CD builds with: `fmt/print.go` `doPrintf`,
//! `printArg`, `handleMethods`, `printValue`, `badVerb`; `fmt/format.go`; `strconv`
//! `AppendFloat` and `Quote`) over gopher's value types, of which only as many reach it as the
//! format has `%` outside `%%` (`strings.Count`).
//!
//! What each Lua value is to Go (gopher `value.go`):
//!
//! * a number is an `LNumber`, whose `Format` (a `fmt.Formatter`) hands Go its `String()` for
//!   `%s`/`%q`, `int64(n)` for `%b %c %d %o %x %X %U` (and `%i` as `%d`), `float64(n)` for
//!   `%e %E %f %F %g %G`, and for any other verb `int64(n)` when the number is whole, else
//!   `float64(n)`: so `%g` is Go's shortest representation, exponents have two digits at
//!   least, `%e` of infinity is `+Inf`, `%t` of 5 is `%!t(int64=5)`;
//! * a string is an `LString`, whose `Format` prints `%d`/`%i` of a numeric string as the
//!   string itself and of any other string as 0, and hands every other verb the Go string
//!   (`%q` is Go's quoting: `"a\nb"`, `%x` is hex of the bytes);
//! * nil, booleans, tables, functions, userdata and threads are `fmt.Stringer`s, printed by
//!   their `String()` (`nil`, `true`, `table: 0x...`) for `%v %s %x %X %q`; a boolean takes
//!   `%t`, nil prints as the pointer to an empty struct it is (`&{}`) under any other verb;
//! * `%T` names the Go type (`lua.LNumber`), `%p` is an address or `%!p(lua.LNumber=5)`, `%w`
//!   is always a bad verb; `%[n]d`, `*` widths (never an integer here: `%!(BADWIDTH)`), missing
//!   and surplus values, `%!(NOVERB)` follow `doPrintf`.
//!
//! Not reproduced: Go prints a table, function, userdata or thread under a verb a `Stringer`
//! does not take (`%d` of a table) as gopher's internal struct with Go addresses; this prints
//! Go's bad-verb form with the value's `String()` instead. Addresses (`%p`, `table: 0x...`) are
//! the LuaJIT state's, not Go's. `%q` and `%#U` decide what is printable from the Unicode
//! tables of the `regex` crate rather than Go's (they differ only on characters assigned after
//! Unicode 15).
//!
//! Beyond gopher: the result is held to the evaluation's memory cap and a long format checks
//! the deadline.

use super::channel;
use super::gofmt::{decode_rune, Flags, Printer};
use super::strlib::{check_string, go_int, raise, Bounds};
use crate::argo::gopher;
use mlua::{Lua, LuaString, MultiValue, Value as LuaValue};

/// Installs `string.format` in `string`.
pub(super) fn install(lua: &Lua, string: &mlua::Table, bounds: Bounds) -> mlua::Result<()> {
    string.raw_set(
        "format",
        lua.create_function(move |lua, args: MultiValue| str_format(lua, &args, &bounds))?,
    )
}

/// A Lua value as Go's fmt receives it from gopher.
enum GoArg {
    /// `lua.LNumber`.
    Number(f64),
    /// `lua.LString`.
    Str(Vec<u8>),
    /// `*lua.LNilType`.
    Nil,
    /// `lua.LBool`.
    Bool(bool),
    /// `lua.LChannel` (a Go channel: a pointer to fmt) at this address.
    Chan(usize),
    /// A pointer to a gopher struct: its Go type, its `String()`, its address.
    Ref(&'static str, String, usize),
}

impl GoArg {
    fn from_lua(v: &LuaValue) -> GoArg {
        let addr = v.to_pointer() as usize;
        match v {
            LuaValue::Nil => GoArg::Nil,
            LuaValue::Boolean(b) => GoArg::Bool(*b),
            LuaValue::Integer(i) => GoArg::Number(*i as f64),
            LuaValue::Number(x) => GoArg::Number(*x),
            LuaValue::String(s) => GoArg::Str(s.as_bytes().to_vec()),
            LuaValue::Table(_) => GoArg::Ref("*lua.LTable", format!("table: {addr:#x}"), addr),
            LuaValue::Function(_) => {
                GoArg::Ref("*lua.LFunction", format!("function: {addr:#x}"), addr)
            }
            LuaValue::Thread(_) => GoArg::Ref("*lua.LState", format!("thread: {addr:#x}"), addr),
            LuaValue::UserData(ud) if channel::is_channel(ud) => GoArg::Chan(addr),
            _ => GoArg::Ref("*lua.LUserData", format!("userdata: {addr:#x}"), addr),
        }
    }

    fn go_type(&self) -> &'static str {
        match self {
            GoArg::Number(_) => "lua.LNumber",
            GoArg::Str(_) => "lua.LString",
            GoArg::Nil => "*lua.LNilType",
            GoArg::Bool(_) => "lua.LBool",
            GoArg::Chan(_) => "lua.LChannel",
            GoArg::Ref(t, _, _) => t,
        }
    }

    /// The `String()` of a `fmt.Stringer` argument.
    fn string(&self) -> Vec<u8> {
        match self {
            GoArg::Number(x) => gopher::number_to_string(*x).into_bytes(),
            GoArg::Str(s) => s.clone(),
            GoArg::Nil => b"nil".to_vec(),
            GoArg::Bool(b) => b.to_string().into_bytes(),
            GoArg::Chan(a) => format!("channel: {a:#x}").into_bytes(),
            GoArg::Ref(_, s, _) => s.clone().into_bytes(),
        }
    }
}

/// gopher `strFormat`: the format (a string, or a number in gopher's format), then
/// `fmt.Sprintf` over at most as many values as the format has `%` outside `%%`.
fn str_format(lua: &Lua, args: &MultiValue, bounds: &Bounds) -> mlua::Result<LuaString> {
    let format = check_string(lua, args, 1)?;
    let format = format.as_bytes();
    let npat = count(&format, b"%") - count(&format, b"%%");
    let values: Vec<GoArg> = args
        .iter()
        .skip(1)
        .take(npat)
        .map(GoArg::from_lua)
        .collect();
    let cap = bounds.memory_bytes.get();
    let out = sprintf(&format, &values, &|| (bounds.expired)(), cap).map_err(|e| match e {
        Stop::Expired => raise(lua, "context deadline exceeded"),
        Stop::TooLarge => mlua::Error::MemoryError(format!(
            "the result of string.format would exceed {cap} bytes"
        )),
    })?;
    lua.create_string(&out)
}

/// Go `strings.Count` of a non-empty pattern: non-overlapping, from the left.
fn count(s: &[u8], pat: &[u8]) -> usize {
    let (mut n, mut i) = (0, 0);
    while i + pat.len() <= s.len() {
        if &s[i..i + pat.len()] == pat {
            n += 1;
            i += pat.len();
        } else {
            i += 1;
        }
    }
    n
}

/// Why formatting stopped early.
#[derive(Debug)]
enum Stop {
    Expired,
    TooLarge,
}

/// A Go value the bad-verb form prints after `=`.
enum Plain<'a> {
    Int(i64),
    Float(f64),
    Str(&'a [u8]),
    Lua(&'a GoArg),
}

/// Go `fmt.doPrintf` over `args`; `Err` when `expired` says the time is up or the result
/// passes `cap` bytes.
fn sprintf(
    format: &[u8],
    args: &[GoArg],
    expired: &dyn Fn() -> bool,
    cap: usize,
) -> Result<Vec<u8>, Stop> {
    let mut p = Printer {
        buf: Vec::with_capacity(format.len() + 16),
        f: Flags::default(),
    };
    let end = format.len();
    let mut arg_num = 0usize;
    let mut reordered = false;
    let mut verbs = 0usize;
    let mut i = 0;
    while i < end {
        let mut good_arg_num = true;
        let last = i;
        while i < end && format[i] != b'%' {
            i += 1;
        }
        p.buf.extend_from_slice(&format[last..i]);
        if i >= end {
            break;
        }
        verbs += 1;
        if verbs.is_multiple_of(4096) && expired() {
            return Err(Stop::Expired);
        }
        if p.buf.len() > cap {
            return Err(Stop::TooLarge);
        }
        i += 1;
        p.f = Flags::default();
        // Flags, and the fast path of a lower-case verb right after them.
        let mut simple = false;
        while i < end {
            match format[i] {
                b'#' => p.f.sharp = true,
                b'0' => p.f.zero = true,
                b'+' => p.f.plus = true,
                b'-' => p.f.minus = true,
                b' ' => p.f.space = true,
                c if c.is_ascii_lowercase() && arg_num < args.len() => {
                    if c == b'v' || c == b'w' {
                        p.f.sharp_v = p.f.sharp;
                        p.f.sharp = false;
                        p.f.plus_v = p.f.plus;
                        p.f.plus = false;
                    }
                    p.print_arg(&args[arg_num], c as char);
                    arg_num += 1;
                    i += 1;
                    simple = true;
                    break;
                }
                _ => break,
            }
            i += 1;
        }
        if simple {
            continue;
        }
        let mut after_index;
        (arg_num, i, after_index) = arg_number(
            arg_num,
            format,
            i,
            args.len(),
            &mut reordered,
            &mut good_arg_num,
        );
        if i < end && format[i] == b'*' {
            // An LNumber is a float64 to Go: never an integer width.
            i += 1;
            if arg_num < args.len() {
                arg_num += 1;
            }
            p.buf.extend_from_slice(b"%!(BADWIDTH)");
            after_index = false;
        } else {
            let (n, present, next) = parsenum(format, i, end);
            (p.f.wid, p.f.wid_present, i) = (n, present, next);
            if after_index && p.f.wid_present {
                good_arg_num = false;
            }
        }
        if i + 1 < end && format[i] == b'.' {
            i += 1;
            if after_index {
                good_arg_num = false;
            }
            (arg_num, i, after_index) = arg_number(
                arg_num,
                format,
                i,
                args.len(),
                &mut reordered,
                &mut good_arg_num,
            );
            if i < end && format[i] == b'*' {
                i += 1;
                if arg_num < args.len() {
                    arg_num += 1;
                }
                p.buf.extend_from_slice(b"%!(BADPREC)");
                after_index = false;
            } else {
                let (n, _, next) = parsenum(format, i, end);
                (p.f.prec, p.f.prec_present, i) = (n, true, next);
            }
        }
        if !after_index {
            (arg_num, i, _) = arg_number(
                arg_num,
                format,
                i,
                args.len(),
                &mut reordered,
                &mut good_arg_num,
            );
        }
        if i >= end {
            p.buf.extend_from_slice(b"%!(NOVERB)");
            break;
        }
        let (verb, size) = match decode_rune(&format[i..]) {
            (r, w, true) => (char::from_u32(r).unwrap_or('\u{FFFD}'), w),
            (_, w, false) => ('\u{FFFD}', w),
        };
        i += size;
        if verb == '%' {
            p.buf.push(b'%');
        } else if !good_arg_num {
            p.bang(verb, "(BADINDEX)");
        } else if arg_num >= args.len() {
            p.bang(verb, "(MISSING)");
        } else {
            if verb == 'v' || verb == 'w' {
                p.f.sharp_v = p.f.sharp;
                p.f.sharp = false;
                p.f.plus_v = p.f.plus;
                p.f.plus = false;
            }
            p.print_arg(&args[arg_num], verb);
            arg_num += 1;
        }
    }
    if !reordered && arg_num < args.len() {
        p.f = Flags::default();
        p.buf.extend_from_slice(b"%!(EXTRA ");
        for (k, arg) in args[arg_num..].iter().enumerate() {
            if k > 0 {
                p.buf.extend_from_slice(b", ");
            }
            p.buf.extend_from_slice(arg.go_type().as_bytes());
            p.buf.push(b'=');
            p.print_arg(arg, 'v');
        }
        p.buf.push(b')');
    }
    if p.buf.len() > cap {
        return Err(Stop::TooLarge);
    }
    Ok(p.buf)
}

/// Go `fmt.parsenum`: the number at `start` (no number: 0, false); a number that grows past
/// 1e6 before its last digit consumes the rest of the format.
fn parsenum(s: &[u8], start: usize, end: usize) -> (usize, bool, usize) {
    if start >= end {
        return (0, false, end);
    }
    let (mut num, mut isnum, mut i) = (0usize, false, start);
    while i < end && s[i].is_ascii_digit() {
        if num > 1_000_000 {
            return (0, false, end);
        }
        num = num * 10 + (s[i] - b'0') as usize;
        isnum = true;
        i += 1;
    }
    (num, isnum, i)
}

/// Go `pp.argNumber` with `parseArgNumber`: an explicit `[n]` index.
fn arg_number(
    arg_num: usize,
    format: &[u8],
    i: usize,
    num_args: usize,
    reordered: &mut bool,
    good: &mut bool,
) -> (usize, usize, bool) {
    if format.len() <= i || format[i] != b'[' {
        return (arg_num, i, false);
    }
    *reordered = true;
    let rest = &format[i..];
    let (index, wid, ok) = if rest.len() < 3 {
        (0, 1, false)
    } else {
        match rest.iter().position(|&c| c == b']') {
            None => (0, 1, false),
            Some(close) => {
                let (n, isnum, next) = parsenum(rest, 1, close);
                if !isnum || next != close {
                    (0, close + 1, false)
                } else {
                    (n as i64 - 1, close + 1, true)
                }
            }
        }
    };
    if ok && index >= 0 && (index as usize) < num_args {
        return (index as usize, i + wid, true);
    }
    *good = false;
    (arg_num, i + wid, ok)
}

/// gopher `isInteger`: `float64(int64(n)) == n`.
fn is_integer(x: f64) -> bool {
    go_int(x) as f64 == x
}

impl Printer {
    fn bang(&mut self, verb: char, what: &str) {
        self.buf.extend_from_slice(b"%!");
        self.push_char(verb);
        self.buf.extend_from_slice(what.as_bytes());
    }

    fn push_char(&mut self, c: char) {
        self.buf
            .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }

    /// Go `pp.printArg` on a gopher value (`handleMethods`: `Formatter` for numbers and
    /// strings, `Stringer` for the rest).
    fn print_arg(&mut self, arg: &GoArg, verb: char) {
        match verb {
            'T' => return self.fmt_s(arg.go_type().as_bytes()),
            'p' => return self.fmt_pointer(arg, 'p'),
            'w' => return self.bad_verb('w', arg.go_type(), Plain::Lua(arg)),
            _ => {}
        }
        match arg {
            GoArg::Number(x) => self.number_format(*x, verb),
            GoArg::Str(s) => match verb {
                'd' | 'i' => match std::str::from_utf8(s).ok().and_then(gopher::parse_number) {
                    Some(_) => self.fmt_string(s, 's'),
                    None => self.number_format(0.0, 'd'),
                },
                _ => self.fmt_string(s, verb),
            },
            _ if !self.f.sharp_v && matches!(verb, 'v' | 's' | 'x' | 'X' | 'q') => {
                self.fmt_string(&arg.string(), verb)
            }
            _ => self.print_value(arg, verb),
        }
    }

    /// gopher `LNumber.Format`.
    fn number_format(&mut self, x: f64, verb: char) {
        match verb {
            'q' | 's' => self.fmt_string(gopher::number_to_string(x).as_bytes(), verb),
            'b' | 'c' | 'd' | 'o' | 'x' | 'X' | 'U' => self.fmt_int(go_int(x) as u64, true, verb),
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => self.fmt_float_verb(x, verb),
            'i' => self.fmt_int(go_int(x) as u64, true, 'd'),
            _ if is_integer(x) => self.fmt_int(go_int(x) as u64, true, verb),
            _ => self.fmt_float_verb(x, verb),
        }
    }

    /// Go `pp.printValue` at depth 0 for the `Stringer` types.
    fn print_value(&mut self, arg: &GoArg, verb: char) {
        match arg {
            GoArg::Bool(b) => match verb {
                't' | 'v' => self.fmt_boolean(*b),
                _ => self.bad_verb(verb, "lua.LBool", Plain::Lua(arg)),
            },
            // A pointer to an empty struct.
            GoArg::Nil if self.f.sharp_v => self.buf.extend_from_slice(b"&lua.LNilType{}"),
            GoArg::Nil => self.buf.extend_from_slice(b"&{}"),
            GoArg::Chan(_) => self.fmt_pointer(arg, verb),
            _ => self.bad_verb(verb, arg.go_type(), Plain::Lua(arg)),
        }
    }

    /// Go `pp.fmtPointer`.
    fn fmt_pointer(&mut self, arg: &GoArg, verb: char) {
        let u = match arg {
            GoArg::Nil => std::ptr::addr_of!(NIL) as usize,
            GoArg::Chan(a) | GoArg::Ref(_, _, a) => *a,
            _ => return self.bad_verb(verb, arg.go_type(), Plain::Lua(arg)),
        } as u64;
        match verb {
            'v' if self.f.sharp_v => {
                self.buf.push(b'(');
                self.buf.extend_from_slice(arg.go_type().as_bytes());
                self.buf.extend_from_slice(b")(");
                self.fmt_0x64(u, true);
                self.buf.push(b')');
            }
            'v' | 'p' => self.fmt_0x64(u, !self.f.sharp),
            'b' | 'o' | 'd' | 'x' | 'X' => self.fmt_int(u, false, verb),
            _ => self.bad_verb(verb, arg.go_type(), Plain::Lua(arg)),
        }
    }

    fn fmt_0x64(&mut self, u: u64, leading: bool) {
        let sharp = self.f.sharp;
        self.f.sharp = leading;
        self.fmt_integer(u, 16, false, 'v', false);
        self.f.sharp = sharp;
    }

    /// Go `pp.badVerb`: `%!verb(type=value)`, the value printed with `%v` and no methods.
    fn bad_verb(&mut self, verb: char, go_type: &str, v: Plain) {
        self.bang(verb, "(");
        self.buf.extend_from_slice(go_type.as_bytes());
        self.buf.push(b'=');
        match v {
            Plain::Int(i) => self.fmt_int(i as u64, true, 'v'),
            Plain::Float(x) => self.fmt_float(x, 'g', -1),
            Plain::Str(s) => self.fmt_string(s, 'v'),
            Plain::Lua(GoArg::Number(x)) => self.fmt_float(*x, 'g', -1),
            Plain::Lua(GoArg::Str(s)) => self.fmt_string(s, 'v'),
            Plain::Lua(GoArg::Bool(b)) => self.fmt_boolean(*b),
            Plain::Lua(GoArg::Nil) if self.f.sharp_v => {
                self.buf.extend_from_slice(b"&lua.LNilType{}")
            }
            Plain::Lua(GoArg::Nil) => self.buf.extend_from_slice(b"&{}"),
            Plain::Lua(a @ GoArg::Chan(_)) => self.fmt_pointer(a, 'v'),
            Plain::Lua(GoArg::Ref(_, s, _)) => self.buf.extend_from_slice(s.as_bytes()),
        }
        self.buf.push(b')');
    }

    /// Go `pp.fmtInteger`.
    fn fmt_int(&mut self, u: u64, signed: bool, verb: char) {
        match verb {
            'v' if self.f.sharp_v && !signed => self.fmt_0x64(u, true),
            'v' | 'd' => self.fmt_integer(u, 10, signed, verb, false),
            'b' => self.fmt_integer(u, 2, signed, verb, false),
            'o' | 'O' => self.fmt_integer(u, 8, signed, verb, false),
            'x' => self.fmt_integer(u, 16, signed, verb, false),
            'X' => self.fmt_integer(u, 16, signed, verb, true),
            'c' => self.fmt_c(u),
            'U' => self.fmt_unicode(u),
            _ => self.bad_verb(verb, "int64", Plain::Int(u as i64)),
        }
    }

    /// Go `pp.fmtFloat` (64 bits).
    fn fmt_float_verb(&mut self, x: f64, verb: char) {
        match verb {
            'v' => self.fmt_float(x, 'g', -1),
            'g' | 'G' => self.fmt_float(x, verb, -1),
            'f' | 'e' | 'E' => self.fmt_float(x, verb, 6),
            'F' => self.fmt_float(x, 'f', 6),
            _ => self.bad_verb(verb, "float64", Plain::Float(x)),
        }
    }

    /// Go `pp.fmtString`.
    fn fmt_string(&mut self, s: &[u8], verb: char) {
        match verb {
            'v' if self.f.sharp_v => self.fmt_q(s),
            'v' | 's' => self.fmt_s(s),
            'x' => self.fmt_sx(s, false),
            'X' => self.fmt_sx(s, true),
            'q' => self.fmt_q(s),
            _ => self.bad_verb(verb, "string", Plain::Str(s)),
        }
    }
}

/// Any address for `%p` of nil (Go prints that of gopher's one `LNilType` value).
static NIL: u8 = 0;

#[cfg(test)]
mod tests {
    //! Expected values follow gopher-lua v1.1.2 (`stringlib.go` `strFormat`, `value.go`
    //! `LNumber.Format`/`LString.Format`, `utils.go` `defaultFormat`) and Go's `fmt` documentation
    //! (`fmt/doc.go`), whose rules are quoted beside the cases.
    use crate::argo::lua::testing::{eval_with, msg};
    use serde_json::json;

    fn format_cases(cases: &[(&str, &str)]) {
        for (expr, want) in cases {
            assert_eq!(
                msg(&format!("string.format({expr})"), true),
                *want,
                "{expr}"
            );
        }
    }

    /// "%e scientific notation, e.g. -1.234456e+78"; "%g %e for large exponents, %f otherwise";
    /// "For formats other than %b the exponent is at least two digits"; "The default precision
    /// for %e, %f and %#g is 6; for %g it is the smallest number of digits necessary to
    /// identify the value uniquely"; "for %g/%G precision sets the maximum number of
    /// significant digits (trailing zeros are removed)". strconv rounds to nearest, ties to
    /// even, and prints infinities as +Inf/-Inf and NaN as NaN.
    #[test]
    fn floats_as_go() {
        format_cases(&[
            ("'%g|%g|%g', 100000, 1e21, 0.1", "100000|1e+21|0.1"),
            ("'%g|%g|%g|%g|%g', 1e6, 123456789, 1e-5, 0.0001, 1e100", "1e+06|1.23456789e+08|1e-05|0.0001|1e+100"),
            ("'%g|%g|%G|%g', 1e-7, 123456, 1e21, 5e-324", "1e-07|123456|1E+21|5e-324"),
            ("'%g|%g', -0.0, 2^53", "-0|9.007199254740992e+15"),
            ("'%.3g|%.10g|%.0g|%g', 1234.5678, 0.1, 123, 100", "1.23e+03|0.1|1e+02|100"),
            ("'%.15g|%.17g|%.2g|%.3g', 0.1, 0.1, 0.995, 99950", "0.1|0.10000000000000001|0.99|1e+05"),
            ("'%e|%E|%.2e|%.0e|%e', 123456.789, 0.000123, 1.125, 5, 0", "1.234568e+05|1.230000E-04|1.12e+00|5e+00|0.000000e+00"),
            ("'%f|%.0f|%.0f|%.0f|%.1f|%.2f', 1/3, 0.5, 1.5, 2.5, 0.25, 1.005", "0.333333|0|2|2|0.2|1.00"),
            ("'%F|%f|%e', 1e20, 2^53 + 1, 2^70", "100000000000000000000.000000|9007199254740992.000000|1.180592e+21"),
            ("'%.0f|%.0f', 1e15, 123456789012345678", "1000000000000000|123456789012345680"),
            ("'%e|%f|%g|%E|%5.1f|%-8e|', 1/0, -1/0, 0/0, 0/0, 1/0, 0/0", "+Inf|-Inf|NaN|NaN| +Inf|NaN     |"),
            // "'+' always print a sign for numeric values"; "' ' leave a space for elided sign";
            // "'0' ... for numbers, this moves the padding after the sign"; "'-' pad with spaces
            // on the right".
            ("'%+f|% f|%+ f|%08.3f|%-08.3f|%+08.3f|%08f', 1.5, 1.5, 1.5, -3.14159, 3.14159, 3.14159, 1/0", "+1.500000| 1.500000|+1.500000|-003.142|3.142   |+003.142|    +Inf"),
            ("'%010.3f|%+010.3f|% 010.3f', -1.5, 1.5, 1.5", "-00001.500|+00001.500| 00001.500"),
            // "'#' ... always print a decimal point for %e, %E, %f, %F, %g and %G; do not remove
            // trailing zeros for %g and %G".
            ("'%#g|%#.3g|%#.0e|%#.0f|%#g|%#.4g|%#e', 1.5, 1, 5, 3, 100000, 1, 2", "1.50000|1.00|5.e+00|3.|100000.|1.000|2.000000e+00"),
            ("'%+.3e|% .0f|%+.0f', 1e-7, 0.4, -0.4", "+1.000e-07| 0|-0"),
            ("'%6.2f%%|%.1f%%', 99.555, 12.345", " 99.56%|12.3%"),
            // LNumber.Format: %v of a whole number is int64, else float64 (%v of a float is %g).
            ("'%v|%v|%v|%+v|% v|%05v|%#v|%v', 5, 1.5, 1e21, 5, 1.5, 5, 1.5, 0/0", "5|1.5|1e+21|5| 1.5|00005|1.5|NaN"),
            ("'%v %v %v', 1e15, 1e16, -1e300", "1000000000000000 10000000000000000 -1e+300"),
        ]);
    }

    /// LNumber.Format hands %b %c %d %o %x %X %U `int64(n)` (saturating to the minimum int64 on
    /// amd64): "%b base 2", "%c the character represented by the corresponding Unicode code
    /// point", "%O base 8 with 0o prefix", "%U Unicode format: U+1234; same as \"U+%04X\"";
    /// "'#' alternate format: add leading 0b for binary (%#b), 0 for octal (%#o), 0x or 0X for
    /// hex (%#x or %#X) ... write e.g. U+0078 'x' if the character is printable for %U (%#U)".
    #[test]
    fn integers_as_go() {
        format_cases(&[
            ("'%d|%d|%x|%x|%X', 3.7, -3.7, -1, 255, 255", "3|-3|-1|ff|FF"),
            (
                "'%d|%d|%d|%x', 2^63, -2^63, 1e300, -(2^63)",
                "-9223372036854775808|-9223372036854775808|-9223372036854775808|-8000000000000000",
            ),
            (
                "'%o|%O|%#o|%#b|%#x|%#08x', 8, 8, 8, 5, 255, 255",
                "10|0o10|010|0b101|0xff|0x000000ff",
            ),
            (
                "'%#o|%#o|%#x|%#X|%#b|%O', 0, 8, 0, -255, -5, -8",
                "0|010|0x0|-0XFF|-0b101|-0o10",
            ),
            (
                "'%+d|% d|%08d|%-08d|%+08d|%.3d|%8.3d|%.0d', 5, 5, -42, 42, 42, 7, 7, 0",
                "+5| 5|-0000042|42      |+0000042|007|     007|",
            ),
            (
                "'%+x|% x|%+o|% 5d|%+5d|%-+5d|', 10, 10, 8, 3, 3, 3",
                "+a| a|+10|    3|   +3|+3   |",
            ),
            (
                "'%.3x|%8.3X|%-8x|%08b|%08.3d|%.10d|%3.0d|', 255, 255, 255, 5, 42, -42, 0",
                "0ff|     0FF|ff      |00000101|     042|-0000000042|   |",
            ),
            (
                "'%c|%c|%c|%c', 65, -1, 0x110000, 0xD800",
                "A|\u{FFFD}|\u{FFFD}|\u{FFFD}",
            ),
            ("'%c%c%c|%c', 72, 105, 0x1F600, 228", "Hi\u{1F600}|ä"),
            (
                "'%U|%#U|%.6U|%U', 0x1F600, 0x41, 0x41, -1",
                "U+1F600|U+0041 'A'|U+000041|U+FFFFFFFFFFFFFFFF",
            ),
            ("'%U|%#U|%#U', 0, 0x7F, 0x2028", "U+0000|U+007F|U+2028"),
            (
                "'%x|%X|%o|%b|%c|%U', 1e300, -1e300, 0/0, 1.9, 65.9, 65.9",
                "-8000000000000000|-8000000000000000|-1000000000000000000000|1|A|U+0041",
            ),
        ]);
    }

    /// LString.Format: %d/%i of a numeric string is the string, of any other 0; every other
    /// verb gets the Go string. "%s the uninterpreted bytes of the string", "%q a double-quoted
    /// string safely escaped with Go syntax", "%x base 16, lower-case, two characters per
    /// byte"; "Width and precision are measured in units of Unicode code points"; "precision
    /// limits the length of the input ... for %x or %X ... measured in bytes"; "'0' pad with
    /// leading zeros rather than spaces"; "'+' ... guarantee ASCII-only output for %q (%+q)";
    /// "'#' ... for %q, print a raw (backquoted) string if strconv.CanBackquote returns true";
    /// "' ' ... put spaces between bytes printing strings or slices in hex (% x, % X)".
    #[test]
    fn strings_as_go() {
        format_cases(&[
            ("'%d|%5d|%.1d|%i', 'abc', '42', '42', 'x'", "0|   42|4|0"),
            (
                "'%d|%5.1d|%i|%d', ' 12 ', '3.5', '1e3', '0x10'",
                " 12 |    3|1e3|0x10",
            ),
            (
                "'%5s|%-5s|%.2s|%05s', 'héllo', 'é', 'héllo', 'é'",
                "héllo|é    |hé|0000é",
            ),
            (
                "'é%5sé|%010s|%-010s', 'ab', 'x', 'x'",
                "é   abé|000000000x|x         ",
            ),
            (
                "'%x|% x|%#x|% #X|%X', 'hi', 'hi', 'hi', 'hi', 'é'",
                "6869|68 69|0x6869|0X68 0X69|C3A9",
            ),
            (
                "'%x|%X|%5x|%-5x|%05x|', '', 'Ab', '', 'a', 'a'",
                "|4162|     |61   |00061|",
            ),
            ("'%.2x|%.0x|%.1q', 'abcd', 'abcd', 'abcd'", "6162||\"a\""),
            (
                "'%q|%+q|%#q|%q', 'é\\1\\n\"\\\\', 'é', 'a`b', '\\255'",
                "\"é\\x01\\n\\\"\\\\\"|\"\\u00e9\"|\"a`b\"|\"\\xff\"",
            ),
            (
                "'%q|%q', 'tab\\there', 'nul\\0x'",
                "\"tab\\there\"|\"nul\\x00x\"",
            ),
            (
                "'%q', '\\226\\128\\168|\\194\\160|\\239\\187\\191'",
                "\"\\u2028|\\u00a0|\\ufeff\"",
            ),
            (
                "'%#q|%#q|%#q', 'a\\tb', '\\239\\187\\191', 'é'",
                "`a\tb`|\"\\ufeff\"|`é`",
            ),
            (
                "'%10.3q|%-10q|%010q', 'abcdef', 'ab', 'ab'",
                "     \"abc\"|\"ab\"      |000000\"ab\"",
            ),
            (
                "'%s|%q|%5.1s', 1e15, 5, 123",
                "1000000000000000|\"5\"|    1",
            ),
            (
                "'%5.1v|%.3v|%.3v', 'abcdef', 1.23456, 12345",
                "    a|1.23|12345",
            ),
        ]);
    }

    /// nil, booleans and tables are fmt.Stringers (`nil`, `true`, `table: 0x...`) for
    /// %v %s %x %X %q; a boolean takes %t; nil is a pointer to an empty struct (`&{}`) under
    /// other verbs; "%T a Go-syntax representation of the type of the value"; "Wrong type or
    /// unknown verb: %!verb(type=value)"; "Too many arguments: %!(EXTRA type=value)"; "Too few
    /// arguments: %!verb(MISSING)"; "Non-int for width or precision: %!(BADWIDTH) or
    /// %!(BADPREC)" (a Lua number is a float64 to Go); "Invalid or invalid use of argument
    /// index: %!(BADINDEX)". strFormat passes only as many values as the format has '%'
    /// outside "%%".
    #[test]
    fn other_values_and_bad_verbs_as_go() {
        format_cases(&[
            ("'%d %s', 3", "3 %!s(MISSING)"),
            ("'%t|%t|%5t|%t', 5, 1.5, 5, 'x'", "%!t(int64=5)|%!t(float64=1.5)|%!t(int64=    5)|%!t(string=x)"),
            ("'%f|%u', '3.', 3", "%!f(string=3.)|%!u(int64=3)"),
            ("'%s|%v|%q|%x|%d|%t|%5.2s', nil, nil, nil, nil, nil, nil, nil", "nil|nil|\"nil\"|6e696c|&{}|&{}|   ni"),
            ("'%s|%v|%q|%x|%d|%t|%5s|%e', true, false, true, true, true, true, true, false", "true|false|\"true\"|74727565|%!d(lua.LBool=true)|true| true|%!e(lua.LBool=false)"),
            ("'%5.1s|%-6v|%6v|%-6d|', true, nil, false, 'abc'", "    t|nil   | false|0     |"),
            ("'%y|%y|%y|%!|%%|%5%', 5, 1.5, 'x', 1", "%!y(int64=5)|%!y(float64=1.5)|%!y(string=x)|%!!(int64=1)|%|%"),
            ("'%T|%T|%T|%T|%10T', nil, true, 1, 'x', 1", "*lua.LNilType|lua.LBool|lua.LNumber|lua.LString|lua.LNumber"),
            ("'%T|%T', {}, print", "*lua.LTable|*lua.LFunction"),
            ("'%p|%p|%p|%w|%w', 1, 'x', true, 5, 'x'", "%!p(lua.LNumber=1)|%!p(lua.LString=x)|%!p(lua.LBool=true)|%!w(lua.LNumber=5)|%!w(lua.LString=x)"),
            ("'%[1]d %[1]d|%[3]d|%[0]d|%[x]d|%[2]*d', 1, 2", "1 1|%!d(BADINDEX)|%!d(BADINDEX)|%!d(BADINDEX)|%!(BADWIDTH)%!d(MISSING)"),
            ("'%[2]s %[1]s|%[1].[1]d|%[1]2d', 'a', 'b'", "b a|%!d(BADINDEX)|%!d(BADINDEX)"),
            ("'%.*d|%-*d', 1, 2, 3", "%!(BADPREC)2|%!(BADWIDTH)%!d(MISSING)"),
            ("'%d %d %d', 1", "1 %!d(MISSING) %!d(MISSING)"),
            ("'%d', 1, 2, 'x', nil, true, {}", "1"),
            ("'%d%%%d', 1, 2, 3", "1%2%!(EXTRA lua.LNumber=3)"),
            ("'%d%%', 5, 6", "5%%!(EXTRA lua.LNumber=6)"),
            ("'%', 1", "%!(NOVERB)%!(EXTRA lua.LNumber=1)"),
            ("'%5.', 1", "%!.(int64=    1)"),
            ("'%.d|%.f|%.e|%.g|%.s', 0, 1.5, 1.5, 1.5, 'abc'", "|2|2e+00|2|"),
            // A width past Go's limit (1e6 before the last digit) swallows the rest.
            ("'%099999999d', 1", "%!(NOVERB)%!(EXTRA lua.LNumber=1)"),
            ("'x', 1", "x"),
            ("5, 1", "5"),
        ]);
        // A table prints its String() under %s (its __tostring is not consulted: Go calls
        // LTable.String).
        let t = msg(
            "string.format('%s', setmetatable({}, {__tostring = function() return 'T' end}))",
            true,
        );
        assert!(t.starts_with("table: 0x"), "{t}");
        let e = eval_with("string.format(nil)", &json!({}), true).unwrap_err();
        assert_eq!(
            e,
            "<string>:1: bad argument #1 to format (string expected, got nil)"
        );
    }
}

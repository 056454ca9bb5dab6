//! Bounded reading of every input a command reads: object files and standard input, argocd-cm,
//! kubeconfigs, test suites. A file, a pipe or a device that holds more than the bound is refused
//! with an error naming the bound and the flag that raises it (`--max-input-bytes`), so that
//! `-f /dev/zero` or an endless pipe ends with an error instead of exhausting memory.
//!
//! The bound is process-wide: the binaries set it once from their flags
//! ([`set_max_input_bytes`]) before reading anything; the library reads it where it opens inputs.

use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The default bound on one input, in bytes: 1 GiB, larger than any real cluster dump.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 1 << 30;

/// The flag that raises [`max_input_bytes`], for messages.
pub const MAX_INPUT_FLAG: &str = "--max-input-bytes";

static MAX_INPUT_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_INPUT_BYTES);

/// Sets the bound on one input (bytes) for the rest of the process; 0 stands for the default.
pub fn set_max_input_bytes(n: u64) {
    let n = if n == 0 { DEFAULT_MAX_INPUT_BYTES } else { n };
    MAX_INPUT_BYTES.store(n, Ordering::Relaxed);
}

/// The bound on one input in bytes (see [`set_max_input_bytes`]).
pub fn max_input_bytes() -> u64 {
    MAX_INPUT_BYTES.load(Ordering::Relaxed)
}

/// A byte count for messages: `1 GiB`, `256 MiB`, `12 KiB` when exact, else `N bytes`.
pub fn size_words(n: u64) -> String {
    for (unit, shift) in [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} bytes")
}

/// Parses a size flag: a byte count with an optional Kubernetes quantity suffix, binary (`Ki`,
/// `Mi`, `Gi`, `Ti`) or decimal (`k`, `M`, `G`, `T`): `1Gi`, `512Mi`, `1000000`. Errors: anything
/// else, zero, or more than 2^63 bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, suffix) = t.split_at(digits);
    let mult: u64 = match suffix {
        "" => 1,
        "k" => 1_000,
        "M" => 1_000_000,
        "G" => 1_000_000_000,
        "T" => 1_000_000_000_000,
        "Ki" => 1 << 10,
        "Mi" => 1 << 20,
        "Gi" => 1 << 30,
        "Ti" => 1 << 40,
        _ => {
            return Err(format!(
                "{s:?}: expected a size such as 1Gi, 512Mi or 1000000"
            ))
        }
    };
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?}: expected a size such as 1Gi, 512Mi or 1000000"))?;
    match n.checked_mul(mult) {
        Some(0) => Err(format!("{s:?}: the size must be more than 0")),
        Some(v) if v <= 1 << 63 => Ok(v),
        _ => Err(format!("{s:?}: larger than 8Ei")),
    }
}

/// The error of an input larger than `limit`: `larger than 1 GiB (--max-input-bytes; give a
/// larger bound to read it)`. Kind: `FileTooLarge`.
pub fn too_large(limit: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::FileTooLarge,
        format!(
            "larger than {} ({MAX_INPUT_FLAG}; give a larger bound to read it)",
            size_words(limit)
        ),
    )
}

/// A file that a run reads on its own, named in another file (a test suite's `inputPath`): a
/// FIFO, a socket or a device there would block the run or never end, so only a regular file
/// (or a missing one, whose open error says so) is read. Errors: `PATH: not a regular file (a
/// FIFO, socket or device is not read)`.
pub fn only_regular(path: &Path) -> Result<(), String> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() && !m.is_dir() => Err(format!(
            "{}: not a regular file (a FIFO, socket or device is not read)",
            path.display()
        )),
        _ => Ok(()),
    }
}

/// Reads a whole file as UTF-8 text, at most [`max_input_bytes`]. Errors (the file name is the
/// caller's to add): the open error, a directory, more than the bound ([`too_large`]), text
/// that is not UTF-8 (`InvalidData`, with the byte offset).
pub fn read_text(path: &Path) -> std::io::Result<String> {
    if path.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a directory, not a file",
        ));
    }
    let limit = max_input_bytes();
    let file = std::fs::File::open(path)?;
    read_text_from(file, limit)
}

/// Reads all of `r` as UTF-8 text, at most `limit` bytes (errors as [`read_text`]). A NUL byte,
/// which no text file holds and which `/dev/zero` is made of, ends the reading at once with an
/// error naming its offset.
pub fn read_text_from(mut r: impl Read, limit: u64) -> std::io::Result<String> {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if let Some(i) = chunk[..n].iter().position(|b| *b == 0) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("a NUL byte at offset {}: not text", buf.len() + i),
            ));
        }
        if (buf.len() + n) as u64 > limit {
            return Err(too_large(limit));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8(buf).map_err(|e| not_utf8(e.utf8_error().valid_up_to() as u64))
}

fn not_utf8(offset: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("not UTF-8 text (invalid byte at offset {offset})"),
    )
}

/// Lines of a text stream, read with a bound on the whole stream, never more than one line in
/// memory. A NUL byte (which no YAML or JSON text holds, and which `/dev/zero` is made of) ends
/// the stream with an error at once, as does text that is not UTF-8.
pub struct BoundedLines<R> {
    inner: R,
    limit: u64,
    read: u64,
}

impl<R: BufRead> BoundedLines<R> {
    /// Reads `inner` up to `limit` bytes in all.
    pub fn new(inner: R, limit: u64) -> Self {
        BoundedLines {
            inner,
            limit,
            read: 0,
        }
    }

    /// The next line with its `\n` (the last may lack one), or None at the end. Errors: the
    /// stream's own, more than the bound ([`too_large`]), a NUL byte or invalid UTF-8
    /// (`InvalidData`, with the byte offset).
    pub fn next_line(&mut self, line: &mut String) -> std::io::Result<bool> {
        line.clear();
        let mut bytes = Vec::new();
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                break;
            }
            let (take, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (buf.len(), false),
            };
            if let Some(at) = buf[..take].iter().position(|&b| b == 0) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "a NUL byte at offset {}: not YAML or JSON text",
                        self.read + bytes.len() as u64 + at as u64
                    ),
                ));
            }
            if self.read + (bytes.len() + take) as u64 > self.limit {
                return Err(too_large(self.limit));
            }
            bytes.extend_from_slice(&buf[..take]);
            self.inner.consume(take);
            if done {
                break;
            }
        }
        let start = self.read;
        self.read += bytes.len() as u64;
        if bytes.is_empty() {
            return Ok(false);
        }
        match String::from_utf8(bytes) {
            Ok(s) => *line = s,
            Err(e) => return Err(not_utf8(start + e.utf8_error().valid_up_to() as u64)),
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_flags_and_words() {
        assert_eq!(parse_size("1Gi"), Ok(1 << 30));
        assert_eq!(parse_size("512Mi"), Ok(512 << 20));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("2k"), Ok(2000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("1GB").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("99999999999Ti").is_err());
        assert_eq!(size_words(1 << 30), "1 GiB");
        assert_eq!(size_words(256 << 20), "256 MiB");
        assert_eq!(size_words(1000), "1000 bytes");
    }

    #[test]
    fn lines_end_at_the_bound_at_a_nul_and_at_bad_utf8() {
        let mut l = BoundedLines::new(&b"a: 1\nb: 2"[..], 100);
        let mut s = String::new();
        assert!(l.next_line(&mut s).unwrap());
        assert_eq!(s, "a: 1\n");
        assert!(l.next_line(&mut s).unwrap());
        assert_eq!(s, "b: 2");
        assert!(!l.next_line(&mut s).unwrap());

        let mut l = BoundedLines::new(&b"0123456789\n0123456789\n"[..], 15);
        assert!(l.next_line(&mut s).unwrap());
        let e = l.next_line(&mut s).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
        assert_eq!(
            e.to_string(),
            "larger than 15 bytes (--max-input-bytes; give a larger bound to read it)"
        );

        // An endless stream of NUL bytes (/dev/zero) ends at the first one.
        let mut l = BoundedLines::new(std::io::BufReader::new(std::io::repeat(0)), u64::MAX);
        let e = l.next_line(&mut s).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a NUL byte at offset 0: not YAML or JSON text"
        );

        let mut l = BoundedLines::new(&b"ok\n\xff\n"[..], 100);
        assert!(l.next_line(&mut s).unwrap());
        let e = l.next_line(&mut s).unwrap_err();
        assert_eq!(e.to_string(), "not UTF-8 text (invalid byte at offset 3)");
    }

    #[test]
    fn whole_files_are_bounded() {
        let e = read_text_from(std::io::repeat(b'a'), 1000).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
        assert_eq!(read_text_from(&b"abc"[..], 3).unwrap(), "abc");
        let dir = tempfile::tempdir().unwrap();
        let e = read_text(dir.path()).unwrap_err();
        assert_eq!(e.to_string(), "is a directory, not a file");
    }
}

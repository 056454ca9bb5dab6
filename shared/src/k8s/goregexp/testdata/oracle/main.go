// Command goregexp-oracle prints what Go's regexp package answers for a list of patterns, as the
// fixture the Rust tests of shared/src/k8s/goregexp compare against (testdata/go.json).
//
// For each pattern it records whether regexp.Compile accepts it (the call cosign and sigstore-go
// make on a matchOIDCIdentity issuer or subject), the error text when it does not, the parse
// tree of regexp/syntax.Parse(pattern, syntax.Perl) in a compact dump, and MatchString on the
// pattern's own subjects and on the common probes.
//
// Usage, from this directory:
//
//	go run . ../cases.txt "$(go env GOROOT)/src/regexp/testdata/re2-search.txt" > ../go.json
//
// cases.txt holds one entry a line (a line starting with # is a comment):
//
//	~ SUBJECT        a common probe, matched against every pattern
//	PATTERN          a pattern, raw to the end of the line
//	= SUBJECT        a subject of the pattern above
//	! NAME PART...   a hostile pattern: each PART is a Go-quoted string, optionally *N (repeated N times)
//
// A PATTERN or SUBJECT that starts with a double quote is Go-quoted (strconv.Unquote). The RE2
// search table adds its regexps with its strings as subjects (entries that are not valid UTF-8
// are left out: the Rust side matches strings).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"regexp/syntax"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

type entry struct {
	Pattern  string   `json:"pattern"`
	Error    *string  `json:"error"`
	Dump     string   `json:"dump,omitempty"`
	DumpHash string   `json:"dump_fnv,omitempty"`
	Matches  [][2]any `json:"matches,omitempty"`
	Probes   string   `json:"probes,omitempty"`
	subjects []string
}

type hostile struct {
	Name    string   `json:"name"`
	Parts   [][2]any `json:"parts"`
	Code    *string  `json:"code"`
	ExprLen int      `json:"expr_len,omitempty"`
	Expr    string   `json:"expr,omitempty"`
	Probes  string   `json:"probes,omitempty"`
}

type output struct {
	Go         string            `json:"go"`
	Unicode    string            `json:"unicode"`
	Categories []string          `json:"categories"`
	Scripts    []string          `json:"scripts"`
	Aliases    map[string]string `json:"category_aliases"`
	FoldCats   []string          `json:"fold_categories"`
	FoldScrs   []string          `json:"fold_scripts"`
	Tables     map[string]string `json:"tables"`
	SimpleFold string            `json:"simple_fold"`
	ProbeList  []string          `json:"probe_subjects"`
	Cases      []*entry          `json:"cases"`
	Hostile    []*hostile        `json:"hostile"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: goregexp-oracle CASES.txt RE2-SEARCH.txt")
		os.Exit(2)
	}
	var out output
	out.Go = runtime.Version()
	out.Unicode = unicode.Version
	for k := range unicode.Categories {
		out.Categories = append(out.Categories, k)
	}
	for k := range unicode.Scripts {
		out.Scripts = append(out.Scripts, k)
	}
	sort.Strings(out.Categories)
	sort.Strings(out.Scripts)
	out.Aliases = unicode.CategoryAliases
	for k := range unicode.FoldCategory {
		out.FoldCats = append(out.FoldCats, k)
	}
	for k := range unicode.FoldScript {
		out.FoldScrs = append(out.FoldScrs, k)
	}
	sort.Strings(out.FoldCats)
	sort.Strings(out.FoldScrs)
	out.Tables = map[string]string{}
	for k, t := range unicode.Categories {
		out.Tables["gc="+k] = tableRanges(t)
	}
	for k, t := range unicode.Scripts {
		out.Tables["sc="+k] = tableRanges(t)
	}
	var folds []string
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if f := unicode.SimpleFold(r); f != r {
			folds = append(folds, fmt.Sprintf("%x:%x", r, f))
		}
	}
	out.SimpleFold = strings.Join(folds, " ")

	cases, hostiles, probes := readCases(os.Args[1])
	cases = append(cases, readRE2(os.Args[2])...)
	out.ProbeList = probes
	seen := map[string]*entry{}
	for _, c := range cases {
		if prev, ok := seen[c.Pattern]; ok {
			prev.subjects = append(prev.subjects, c.subjects...)
			continue
		}
		seen[c.Pattern] = c
		out.Cases = append(out.Cases, c)
	}
	for _, c := range out.Cases {
		run(c, probes)
	}
	for _, h := range hostiles {
		runHostile(h, probes)
	}
	out.Hostile = hostiles
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// tableRanges is a table's code points as merged ranges "lo-hi lo-hi ..." in hex.
func tableRanges(t *unicode.RangeTable) string {
	var out []int
	add := func(c int) {
		if n := len(out); n > 0 && out[n-1]+1 == c {
			out[n-1] = c
			return
		}
		out = append(out, c, c)
	}
	for _, r := range t.R16 {
		for c := int(r.Lo); c <= int(r.Hi); c += int(r.Stride) {
			add(c)
		}
	}
	for _, r := range t.R32 {
		for c := int(r.Lo); c <= int(r.Hi); c += int(r.Stride) {
			add(c)
		}
	}
	var b strings.Builder
	for i := 0; i < len(out); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%x-%x", out[i], out[i+1])
	}
	return b.String()
}

func unquote(s string) string {
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bad quoted string %s: %v\n", s, err)
			os.Exit(1)
		}
		return u
	}
	return s
}

func readCases(path string) (cases []*entry, hostiles []*hostile, probes []string) {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "~ "):
			probes = append(probes, unquote(line[2:]))
		case strings.HasPrefix(line, "= "):
			if len(cases) == 0 {
				fmt.Fprintln(os.Stderr, "subject before any pattern")
				os.Exit(1)
			}
			c := cases[len(cases)-1]
			c.subjects = append(c.subjects, unquote(line[2:]))
		case strings.HasPrefix(line, "! "):
			fields := strings.Fields(line[2:])
			h := &hostile{Name: fields[0]}
			for _, p := range fields[1:] {
				n := 1
				if i := strings.LastIndex(p, `"*`); i >= 0 {
					n, err = strconv.Atoi(p[i+2:])
					if err != nil {
						fmt.Fprintln(os.Stderr, "bad repeat in", line)
						os.Exit(1)
					}
					p = p[:i+1]
				}
				h.Parts = append(h.Parts, [2]any{unquote(p), n})
			}
			hostiles = append(hostiles, h)
		default:
			cases = append(cases, &entry{Pattern: unquote(line)})
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return
}

// readRE2 reads the strings and regexps blocks of Go's RE2 search table.
func readRE2(path string) []*entry {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var out []*entry
	var strs []string
	mode := ""
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "strings":
			mode, strs = "strings", nil
			continue
		case line == "regexps":
			mode = "regexps"
			continue
		case !strings.HasPrefix(line, `"`):
			continue
		}
		s, err := strconv.Unquote(line)
		if err != nil || !utf8.ValidString(s) {
			continue
		}
		if mode == "strings" {
			strs = append(strs, s)
			continue
		}
		e := &entry{Pattern: s}
		for _, t := range strs {
			if utf8.ValidString(t) {
				e.subjects = append(e.subjects, t)
			}
		}
		out = append(out, e)
	}
	return out
}

func run(c *entry, probes []string) {
	re, err := regexp.Compile(c.Pattern)
	if err != nil {
		msg := err.Error()
		c.Error = &msg
		return
	}
	tree, err := syntax.Parse(c.Pattern, syntax.Perl)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Compile accepted what Parse refused:", c.Pattern)
		os.Exit(1)
	}
	d := dump(tree)
	if len(d) <= 400 {
		c.Dump = d
	} else {
		c.DumpHash = fnv(d)
	}
	for _, s := range dedupe(c.subjects) {
		c.Matches = append(c.Matches, [2]any{s, re.MatchString(s)})
	}
	c.Probes = probeBits(re, probes)
}

func runHostile(h *hostile, probes []string) {
	var b strings.Builder
	for _, p := range h.Parts {
		b.WriteString(strings.Repeat(p[0].(string), p[1].(int)))
	}
	pattern := b.String()
	re, err := regexp.Compile(pattern)
	if err != nil {
		var se *syntax.Error
		if !errors.As(err, &se) {
			fmt.Fprintln(os.Stderr, "not a syntax error:", err)
			os.Exit(1)
		}
		code := string(se.Code)
		h.Code = &code
		h.ExprLen = len(se.Expr)
		if len(se.Expr) <= 200 {
			h.Expr = se.Expr
		}
		return
	}
	h.Probes = probeBits(re, probes)
}

func probeBits(re *regexp.Regexp, probes []string) string {
	var b strings.Builder
	for _, s := range probes {
		if re.MatchString(s) {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// fnv is the 64-bit FNV-1a hash of s in hex, for dumps too long to keep.
func fnv(s string) string {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return fmt.Sprintf("%016x", h)
}

var opName = map[syntax.Op]string{
	syntax.OpNoMatch:        "no",
	syntax.OpEmptyMatch:     "emp",
	syntax.OpLiteral:        "lit",
	syntax.OpCharClass:      "cc",
	syntax.OpAnyCharNotNL:   "dnl",
	syntax.OpAnyChar:        "dot",
	syntax.OpBeginLine:      "bol",
	syntax.OpEndLine:        "eol",
	syntax.OpBeginText:      "bot",
	syntax.OpEndText:        "eot",
	syntax.OpWordBoundary:   "wb",
	syntax.OpNoWordBoundary: "nwb",
	syntax.OpCapture:        "cap",
	syntax.OpStar:           "star",
	syntax.OpPlus:           "plus",
	syntax.OpQuest:          "que",
	syntax.OpRepeat:         "rep",
	syntax.OpConcat:         "cat",
	syntax.OpAlternate:      "alt",
}

// dump writes the tree: an op name, then its contents in braces. Literals show their runes as
// hex (with "fold" when case-insensitive), classes their ranges, repeats "min,max", captures
// their name, the non-greedy repeats a leading "n", and $ (as opposed to \z) is "eot{$}".
func dump(re *syntax.Regexp) string {
	var b strings.Builder
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		name := opName[re.Op]
		switch re.Op {
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			if re.Flags&syntax.NonGreedy != 0 {
				name = "n" + name
			}
		case syntax.OpLiteral:
			if re.Flags&syntax.FoldCase != 0 {
				name += "fold"
			}
		}
		b.WriteString(name)
		b.WriteByte('{')
		switch re.Op {
		case syntax.OpEndText:
			if re.Flags&syntax.WasDollar != 0 {
				b.WriteByte('$')
			}
		case syntax.OpLiteral:
			for i, r := range re.Rune {
				if i > 0 {
					b.WriteByte(' ')
				}
				fmt.Fprintf(&b, "%x", r)
			}
		case syntax.OpCharClass:
			for i := 0; i+1 < len(re.Rune); i += 2 {
				if i > 0 {
					b.WriteByte(' ')
				}
				fmt.Fprintf(&b, "%x-%x", re.Rune[i], re.Rune[i+1])
			}
		case syntax.OpRepeat:
			fmt.Fprintf(&b, "%d,%d ", re.Min, re.Max)
		case syntax.OpCapture:
			fmt.Fprintf(&b, "%d:%s ", re.Cap, re.Name)
		}
		for _, sub := range re.Sub {
			walk(sub)
		}
		b.WriteByte('}')
	}
	walk(re)
	return b.String()
}

// Command yaml-oracle prints what kubectl's YAML printer makes of JSON values, as the fixture
// the Rust tests of shared/src/k8s/yaml/emit compare against (testdata/emit.json).
//
// kubectl v1.32 prints `-o yaml` with cli-runtime's YAMLPrinter: sigs.k8s.io/yaml v1.4.0
// `Marshal` of the object, which is `json.Marshal` and then `JSONToYAML` (go-yaml v2's decoder
// and encoder). The objects it prints were decoded the apimachinery way (`util/json`: a whole
// number that fits int64 is an int64, any other number a float64), so each case is decoded
// like that first.
//
// Usage, from this directory:
//
//	go run . ../emit-cases.jsonl > ../emit.json
//
// emit-cases.jsonl holds one JSON value a line; empty lines and lines starting with # are
// skipped. A value that Marshal refuses is recorded with its error text instead.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

type entry struct {
	JSON  string `json:"json"`
	YAML  string `json:"yaml,omitempty"`
	Error string `json:"error,omitempty"`
}

// convert turns json.Number values into int64 or float64, as apimachinery's util/json does.
func convert(v interface{}) (interface{}, error) {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		f, err := t.Float64()
		if err != nil {
			return nil, err
		}
		return f, nil
	case map[string]interface{}:
		for k, x := range t {
			c, err := convert(x)
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
		return t, nil
	case []interface{}:
		for i, x := range t {
			c, err := convert(x)
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
		return t, nil
	}
	return v, nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: yaml-oracle CASES.jsonl")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	var out []entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		d := json.NewDecoder(bytes.NewReader([]byte(line)))
		d.UseNumber()
		var v interface{}
		if err := d.Decode(&v); err != nil {
			fmt.Fprintf(os.Stderr, "line %d: %v\n", n, err)
			os.Exit(1)
		}
		v, err = convert(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "line %d: %v\n", n, err)
			os.Exit(1)
		}
		y, err := yaml.Marshal(v)
		if err != nil {
			// What kubectl prints after "error: " (cli-runtime's YAMLPrinter returns it as is).
			out = append(out, entry{JSON: line, Error: err.Error()})
			continue
		}
		out = append(out, entry{JSON: line, YAML: string(y)})
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

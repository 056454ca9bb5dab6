// The Flux CEL oracle of the test suite: fluxcd/pkg runtime/cel itself, at the version
// kustomize-controller v1.9.4 builds with (runtime v0.110.1, cel-go v0.26.1). It reads cases as
// JSON lines, {"exprs": {"current": "...", "failed": "...", "inProgress": "..."}, "object": {...}},
// and prints for each a JSON line {"status": "...", "error": "..."}: what the StatusEvaluator
// makes of the object (Invalid: the expressions do not compile).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"

	"github.com/fluxcd/pkg/apis/kustomize"
	"github.com/fluxcd/pkg/runtime/cel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

type input struct {
	Exprs  kustomize.HealthCheckExpressions `json:"exprs"`
	Object json.RawMessage                  `json:"object"`
}

type output struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

func judge(line []byte) output {
	var in input
	if err := json.Unmarshal(line, &in); err != nil {
		return output{Error: "bad case: " + err.Error()}
	}
	se, err := cel.NewStatusEvaluator(&in.Exprs)
	if err != nil {
		return output{Status: "Invalid", Error: err.Error()}
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(in.Object); err != nil {
		return output{Status: "BadObject", Error: err.Error()}
	}
	r, err := se.Evaluate(context.Background(), u)
	if err != nil {
		return output{Status: "Unknown", Error: err.Error()}
	}
	return output{Status: string(r.Status)}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		_ = enc.Encode(judge(in.Bytes()))
	}
	_ = out.Flush()
}

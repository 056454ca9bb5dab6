#!/usr/bin/env bash
# cel-spec conformance of pacto-gates' Flux CEL environment (shared/src/flux/cel.rs).
#
# Installs the npm package @bufbuild/cel-spec (the official cel-spec conformance tests, compiled
# to JS; no textproto is shipped) into a temporary directory, dumps the suites relevant to Flux
# health expressions to JSON with node, and runs them through the example runner
# shared/examples/cel_spec.rs, which prints passed / failed / skipped per suite, the failing tests
# and the reasons for skipping. Nothing fetched is kept.
#
# Usage: bash tests/cel-spec/run.sh [suite ...]
#   CEL_SPEC_VERSION   npm version of @bufbuild/cel-spec (default 0.6.1: cel-spec v0.25.1)
#   CEL_SPEC_VERBOSE=1 also print each failure's expected and actual outcome
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
version=${CEL_SPEC_VERSION:-0.6.1}
suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
  suites=(basic comparisons conversions fields fp_math integer_math lists logic macros optionals
    parse string string_ext encoders_ext timestamps)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "installing @bufbuild/cel-spec@$version" >&2
(
  cd "$work"
  npm init -y >/dev/null
  npm install --no-audit --no-fund --silent "@bufbuild/cel-spec@$version" >/dev/null
)

# The package layout: dist/{cjs,esm}/testdata/conformance.js exports `tests`, a tree of suites
# ({name, suites?, tests?}) whose tests hold the cel-spec SimpleTest in protobuf JSON form under
# `original`. Flatten each requested suite to {name, tests: [{section, ...SimpleTest}]}.
(
  cd "$work"
  node -e '
    const { tests } = require("@bufbuild/cel-spec/testdata/conformance.js");
    const wanted = process.argv.slice(1);
    const out = { source: "@bufbuild/cel-spec", suites: [] };
    for (const name of wanted) {
      const suite = tests.suites.find((s) => s.name === name);
      if (!suite) { console.error("no such suite: " + name); process.exit(2); }
      const flat = [];
      const walk = (node, section) => {
        for (const t of node.tests || []) flat.push({ section, ...t.original });
        for (const s of node.suites || []) walk(s, section ? section + "/" + s.name : s.name);
      };
      walk(suite, "");
      out.suites.push({ name, tests: flat });
    }
    process.stdout.write(JSON.stringify(out));
  ' "${suites[@]}" >suites.json
)

cd "$root"
cargo run --quiet -p pacto-gates --example cel_spec -- "$work/suites.json"

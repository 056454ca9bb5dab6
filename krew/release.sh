#!/usr/bin/env bash
# Builds the release archives of kubectl-pacto and renders the krew manifest for them.
#
#   krew/release.sh VERSION OUTDIR [--bin-dir DIR --target TARGET]
#
# For each platform of krew/pacto.yaml whose Rust target this machine can build (the host's, or
# one `rustup target list --installed` names), it runs `cargo build --release --locked --target
# TARGET -p kubectl-pacto`, packs OUTDIR/kubectl-pacto-vVERSION-TARGET.tar.gz (kubectl-pacto,
# kubectl_complete-pacto, LICENSE, man/*.1 at the top level, as the manifest's comment says), and
# says which targets it skipped. It then writes OUTDIR/pacto.yaml: krew/pacto.yaml with only the
# platforms it packed, pointed at VERSION with each archive's sha256 (krew/update-sha256.sh).
#
# --bin-dir DIR --target TARGET packs already built binaries from DIR as TARGET instead of
# building (the tests use it). Plain bash, coreutils, tar and cargo; no network.

set -euo pipefail
here=$(cd "$(dirname -- "$0")" && pwd)
root=$(dirname -- "$here")

die() {
    echo "release.sh: $*" >&2
    exit 1
}

[[ $# -eq 2 || $# -eq 6 ]] || {
    echo "usage: $0 VERSION OUTDIR [--bin-dir DIR --target TARGET]" >&2
    exit 2
}
version=${1#v}
out=$2
# krew's version rule (k8s.io/apimachinery ParseSemantic), checked before anything is built.
id='[0-9A-Za-z-]+'
num='(0|[1-9][0-9]*)'
semver="^$num\\.$num\\.$num(-$id(\\.$id)*)?(\\+$id(\\.$id)*)?\$"
[[ $version =~ $semver ]] || die "VERSION '$1' is not a semantic version"
[[ -n $out && $out != -* ]] || die "OUTDIR '$out' must be a directory name (not empty, not starting with -)"
bin_dir=""
only=""
if [[ $# -eq 6 ]]; then
    [[ $3 == --bin-dir && $5 == --target ]] || die "expected --bin-dir DIR --target TARGET"
    bin_dir=$4
    only=$6
fi
mkdir -p -- "$out"
out=$(cd -- "$out" && pwd)

manifest="$root/krew/pacto.yaml"
# The target of each platform: what follows kubectl-pacto-v<the manifest's version>- in its uri.
listed=$(sed -n 's/^  version: *"\{0,1\}v\([^"]*\)"\{0,1\} *$/\1/p' "$manifest")
[[ -n $listed ]] || die "$manifest: no spec.version line"
targets=""
while IFS= read -r uri; do
    name=${uri##*/}
    name=${name#"kubectl-pacto-v$listed-"}
    targets+="${name%.tar.gz} "
done < <(sed -n 's/^ *uri: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$manifest")
[[ -n $targets ]] || die "$manifest: no platform uri"

host=""
installed=""
if [[ -z $only ]]; then
    host=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p' || true)
    installed=$(rustup target list --installed 2>/dev/null || true)
fi

packed=()
for target in $targets; do
    if [[ -n $only ]]; then
        [[ $target == "$only" ]] || continue
        bins=$bin_dir
    else
        if [[ $target != "$host" ]] && ! grep -qx "$target" <<<"$installed"; then
            echo "skipped $target: this machine cannot build it (rustup target add $target)"
            continue
        fi
        (cd "$root" && cargo build --release --locked --target "$target" -p kubectl-pacto)
        bins="$root/target/$target/release"
    fi
    for b in kubectl-pacto kubectl_complete-pacto; do
        [[ -x $bins/$b ]] || die "$bins/$b: not built"
    done
    stage=$(mktemp -d)
    cp -- "$bins/kubectl-pacto" "$bins/kubectl_complete-pacto" "$root/LICENSE" "$stage/"
    mkdir "$stage/man"
    cp -- "$root"/man/*.1 "$stage/man/"
    archive="$out/kubectl-pacto-v$version-$target.tar.gz"
    tar -C "$stage" -czf "$archive" kubectl-pacto kubectl_complete-pacto LICENSE man
    rm -rf -- "$stage"
    echo "packed $archive"
    packed+=("$target")
done
[[ ${#packed[@]} -gt 0 ]] || die "no target packed"

# The manifest with only the packed platforms: a platform is the list item from its
# "- selector:" line to the line before the next one (or the end of the platforms list).
rendered="$out/pacto.yaml"
keep=" ${packed[*]} "
awk -v keep="$keep" '
    function flush() {
        if (buf != "") {
            if (match(buf, /kubectl-pacto-v[^-]*-[^ ]*\.tar\.gz/)) {
                t = substr(buf, RSTART, RLENGTH); sub(/^kubectl-pacto-v[^-]*-/, "", t); sub(/\.tar\.gz$/, "", t)
                if (index(keep, " " t " ") > 0) printf "%s", buf
            } else printf "%s", buf
        }
        buf = ""
    }
    /^    - selector:/ { flush(); inplat = 1 }
    inplat && /^[^ ]/ { flush(); inplat = 0 }
    { if (inplat) buf = buf $0 "\n"; else print }
    END { flush() }
' "$manifest" >"$rendered"
"$here/update-sha256.sh" "$version" "$out" "$rendered"

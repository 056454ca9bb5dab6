#!/usr/bin/env bash
# Release step for the krew manifest: point krew/pacto.yaml at release VERSION and write the
# sha256 of each platform's archive, taken from the archives in DIR.
#
#   krew/update-sha256.sh VERSION DIR [MANIFEST]
#
# VERSION  the release version, with or without the leading "v" (0.2.0 or v0.2.0).
# DIR      a directory holding every archive the manifest names, by file name
#          (kubectl-pacto-vVERSION-<target>.tar.gz).
# MANIFEST the manifest to rewrite; krew/pacto.yaml (beside this script) by default.
#
# For every platform it sets the version in `uri`, checks that the archive exists, holds the
# `bin` and a license file (validate-krew-manifest installs each platform and fails without a
# LICENSE), and replaces `sha256` with the archive's hash. It also sets spec.version and drops
# the "# PLACEHOLDER:" comment lines. Nothing is written unless every platform succeeded.
# Plain bash, coreutils and tar; no network.

set -euo pipefail

die() {
    echo "update-sha256.sh: $*" >&2
    exit 1
}

[[ $# -eq 2 || $# -eq 3 ]] || {
    echo "usage: $0 VERSION DIR [MANIFEST]" >&2
    exit 2
}

version=${1#v}
dir=$2
manifest=${3:-"$(dirname -- "$0")/pacto.yaml"}

# krew's version rule: "v" + semantic version (k8s.io/apimachinery ParseSemantic).
id='[0-9A-Za-z-]+'
num='(0|[1-9][0-9]*)'
semver="^$num\\.$num\\.$num(-$id(\\.$id)*)?(\\+$id(\\.$id)*)?\$"
[[ $version =~ $semver ]] || die "VERSION '$1' is not a semantic version"
[[ -d $dir ]] || die "DIR '$dir' is not a directory"
[[ -f $manifest ]] || die "manifest '$manifest' not found"

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum <"$1" | cut -d' ' -f1
    else
        shasum -a 256 <"$1" | cut -d' ' -f1
    fi
}

list_archive() {
    case $1 in
    *.tar.gz) tar -tzf "$1" ;;
    *.zip) unzip -Z1 "$1" ;;
    *) die "$1: krew only installs .tar.gz and .zip archives" ;;
    esac
}

# The version the manifest names now, so that it can be replaced in the uris.
old=$(sed -n 's/^  version: *"\{0,1\}v\([^"]*\)"\{0,1\} *$/\1/p' "$manifest")
[[ -n $old ]] || die "$manifest: no spec.version line ('  version: vX.Y.Z')"

# Every platform has the same bin; read it once.
bins=$(sed -n 's/^ *\(- \)\{0,1\}bin: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\2/p' "$manifest" | sort -u)
[[ -n $bins ]] || die "$manifest: no bin"
[[ $bins != *$'\n'* ]] || die "$manifest: the platforms name different bins; this script expects one"
bin=${bins#./}

tmp=$(mktemp "$manifest.XXXXXX")
trap 'rm -f -- "$tmp"' EXIT

pending=""
uris=0
sums=0
re_uri='^([ ]*(- )?)uri: *"?([^"]*)"? *$'
re_sha='^([ ]*(- )?)sha256: .*$'
while IFS= read -r line || [[ -n $line ]]; do
    if [[ $line == "# PLACEHOLDER:"* ]]; then
        continue
    elif [[ $line == "  version:"* ]]; then
        line="  version: v$version"
    elif [[ $line =~ $re_uri ]]; then
        [[ -z $pending ]] || die "$manifest: a uri without a sha256 before: $line"
        lead=${BASH_REMATCH[1]}
        uri=${BASH_REMATCH[3]}
        uri=${uri//"v$old"/"v$version"}
        archive="$dir/${uri##*/}"
        [[ -f $archive ]] || die "missing archive: $archive"
        entries=$(list_archive "$archive") || die "$archive: cannot be listed"
        grep -qxE "(\\./)?$bin" <<<"$entries" || die "$archive: has no $bin at its top level"
        grep -qiE '(^|/)(license|licenses|copying)(\.txt|\.md)?$' <<<"$entries" ||
            die "$archive: has no LICENSE file"
        pending=$(sha256_of "$archive")
        line="${lead}uri: $uri"
        uris=$((uris + 1))
    elif [[ $line =~ $re_sha ]]; then
        [[ -n $pending ]] || die "$manifest: a sha256 without a uri before it: $line"
        line="${BASH_REMATCH[1]}sha256: \"$pending\""
        pending=""
        sums=$((sums + 1))
    fi
    printf '%s\n' "$line" >>"$tmp"
done <"$manifest"

[[ -z $pending ]] || die "$manifest: the last uri has no sha256"
[[ $uris -gt 0 ]] || die "$manifest: no platform uri"
[[ $uris -eq $sums ]] || die "$manifest: $uris uris but $sums sha256 values"

chmod --reference="$manifest" "$tmp" 2>/dev/null || chmod 644 "$tmp"
mv -- "$tmp" "$manifest"
trap - EXIT
echo "updated $manifest to v$version: $uris platforms"

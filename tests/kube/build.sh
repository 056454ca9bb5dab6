#!/usr/bin/env bash
# Builds a real kube-apiserver and etcd from Go modules for the live tests, or finds them built.
#
#   tests/kube/build.sh                       build (or find) the pinned versions; prints their directory
#   tests/kube/build.sh --update K8S [ETCD]   re-pin apiserver/go.mod and etcd/go.mod to k8s.io/kubernetes
#                                             K8S (e.g. v1.36.3) and etcd ETCD (default: the etcd version
#                                             that release's kubeadm names as DefaultEtcdVersion)
#
# Versions come from the two go.mod files beside this script. The Go toolchain is the one the
# Kubernetes release names in its `.go-version` file (GOTOOLCHAIN=go<version>, fetched by the go
# command from the module proxy): a newer Go builds a server whose OpenAPI documents lose their
# x-kubernetes-* extensions. k8s.io/kubernetes lists its staging modules (k8s.io/api, ...) at
# v0.0.0 and replaces them with local directories; here each is replaced with the v0.X.Y tag that
# matches v1.X.Y, and the build checks that the list matches the release's own go.mod.
#
# Binaries are kept in ${KUBECTL_PACTO_KUBE_CACHE:-$HOME/.cache/kubectl-pacto/kube}/
# <k8s-version>_<etcd-version>_go<go-version>/{kube-apiserver,etcd}: built into a temporary
# directory and renamed into place, under flock so that concurrent callers build once.
# The last line on stdout is that directory; progress goes to stderr. Exit status 1 with an
# `error:` line when Go, the module proxy or the build fails.
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "$0")" && pwd)
api_mod="$here/apiserver"
etcd_mod="$here/etcd"

die() { echo "error: $*" >&2; exit 1; }
log() { echo "kube/build.sh: $*" >&2; }

command -v go >/dev/null || die "the Go command is not installed (needed to build kube-apiserver and etcd from Go modules; install Go 1.21 or newer)"
command -v jq >/dev/null || die "jq is not installed (needed to read go.mod files)"
command -v flock >/dev/null || die "flock is not installed (util-linux)"


# Directory of module $1 at version $2 in the module cache, downloading it if needed.
module_dir() {
  local json why
  if ! json=$(cd / && GOTOOLCHAIN=local GOFLAGS= go mod download -json "$1@$2" 2>&1); then
    why=$(jq -r '.Error // empty' <<<"$json" 2>/dev/null || true)
    die "cannot download Go module $1@$2 (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY)): ${why:-$json}"
  fi
  jq -r .Dir <<<"$json"
}

# Staging modules that k8s.io/kubernetes $1 requires at v0.0.0, one per line.
staging_modules() {
  local dir
  dir=$(module_dir k8s.io/kubernetes "$1")
  (cd "$dir" && GOTOOLCHAIN=local go mod edit -json) |
    jq -r '.Require[] | select(.Version == "v0.0.0") | .Path' | sort
}

# v1.36.3 -> v0.36.3
staging_version() { echo "v0.${1#v1.}"; }

go_version_of() {
  local dir
  dir=$(module_dir k8s.io/kubernetes "$1")
  [[ -s "$dir/.go-version" ]] || die "k8s.io/kubernetes@$1 has no .go-version file"
  tr -d ' \n' <"$dir/.go-version"
}

if [[ ${1:-} == --update ]]; then
  k8s=${2:?usage: build.sh --update v1.X.Y [v3.X.Y]}
  kdir=$(module_dir k8s.io/kubernetes "$k8s")
  etcd=${3:-v$(sed -n 's/^\s*DefaultEtcdVersion = "\([0-9.]*\)-[0-9]*"$/\1/p' "$kdir/cmd/kubeadm/app/constants/constants.go")}
  [[ $etcd == v3.* ]] || die "cannot find kubeadm's DefaultEtcdVersion in k8s.io/kubernetes@$k8s; pass the etcd version"
  gover=$(go_version_of "$k8s")
  sv=$(staging_version "$k8s")
  log "pinning k8s.io/kubernetes $k8s (staging $sv), etcd $etcd, Go $gover"
  export GOTOOLCHAIN="go$gover"
  (
    cd "$api_mod"
    rm -f go.mod go.sum
    go mod init kubectl-pacto.invalid/tests/kube/apiserver >/dev/null 2>&1
    go mod edit -go=1.26.0 -toolchain="go$gover" -require="k8s.io/kubernetes@$k8s"
    while read -r m; do go mod edit -replace="$m=$m@$sv"; done < <(staging_modules "$k8s")
    go get -tool "k8s.io/kubernetes/cmd/kube-apiserver@$k8s"
    go mod tidy
  )
  (
    cd "$etcd_mod"
    rm -f go.mod go.sum
    go mod init kubectl-pacto.invalid/tests/kube/etcd >/dev/null 2>&1
    go mod edit -go=1.26.0 -toolchain="go$gover" -require="go.etcd.io/etcd/server/v3@$etcd"
    go mod tidy
  )
  log "updated $api_mod/go.mod and $etcd_mod/go.mod"
  exit 0
fi

# --- versions pinned in the go.mod files ---
k8s=$(cd "$api_mod" && GOTOOLCHAIN=local go mod edit -json | jq -r '.Require[] | select(.Path == "k8s.io/kubernetes") | .Version')
etcd=$(cd "$etcd_mod" && GOTOOLCHAIN=local go mod edit -json | jq -r '.Require[] | select(.Path == "go.etcd.io/etcd/server/v3") | .Version')
pinned_go=$(cd "$api_mod" && GOTOOLCHAIN=local go mod edit -json | jq -r '.Toolchain // empty')
[[ -n $k8s && -n $etcd && -n $pinned_go ]] || die "tests/kube/{apiserver,etcd}/go.mod do not pin k8s.io/kubernetes, go.etcd.io/etcd/server/v3 and a toolchain"
gover=${pinned_go#go}

cache_root=${KUBECTL_PACTO_KUBE_CACHE:-$HOME/.cache/kubectl-pacto/kube}
key="${k8s}_${etcd}_go${gover}"
out="$cache_root/$key"

if [[ -x $out/kube-apiserver && -x $out/etcd ]]; then
  echo "$out"
  exit 0
fi

mkdir -p "$cache_root"
exec 9>"$cache_root/$key.lock"
log "taking the build lock $cache_root/$key.lock"
flock 9
if [[ -x $out/kube-apiserver && -x $out/etcd ]]; then
  echo "$out"
  exit 0
fi

# The release's own Go version must be the pinned one, and its staging list the replaced one.
want_go=$(go_version_of "$k8s")
[[ $want_go == "$gover" ]] ||
  die "tests/kube/apiserver/go.mod pins toolchain go$gover but k8s.io/kubernetes@$k8s names Go $want_go in .go-version; run tests/kube/build.sh --update $k8s"
sv=$(staging_version "$k8s")
want_replace=$(staging_modules "$k8s" | sed "s|\$| $sv|")
have_replace=$(cd "$api_mod" && GOTOOLCHAIN=local go mod edit -json |
  jq -r '.Replace[]? | select(.Old.Path == .New.Path) | "\(.Old.Path) \(.New.Version)"' | sort)
[[ $want_replace == "$have_replace" ]] ||
  die "tests/kube/apiserver/go.mod does not replace exactly the staging modules of k8s.io/kubernetes@$k8s with $sv; run tests/kube/build.sh --update $k8s
--- wanted
$want_replace
--- found
$have_replace"

export GOTOOLCHAIN="go$gover"
export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -trimpath -buildvcs=false"
log "fetching Go $gover (GOTOOLCHAIN=$GOTOOLCHAIN)"
(cd "$api_mod" && go version >&2) || die "cannot get Go toolchain go$gover from the module proxy (GOPROXY=$(GOTOOLCHAIN=local go env GOPROXY))"

tmp=$(mktemp -d "$cache_root/.build.$key.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The version stamps that Kubernetes' own build (hack/lib/version.sh) sets.
minor=${k8s#v1.}; minor=${minor%%.*}
build_date=$(cd / && GOTOOLCHAIN=local GOFLAGS= go mod download -json "k8s.io/kubernetes@$k8s" | jq -r .Info | xargs jq -r .Time)
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$k8s -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
done

log "building kube-apiserver $k8s (go$gover; several minutes and ~3 GB of build cache on a cold cache)"
(cd "$api_mod" && nice -n 15 go build -ldflags "$ldflags" -o "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver) ||
  die "building k8s.io/kubernetes/cmd/kube-apiserver@$k8s failed (see above)"
log "building etcd $etcd"
(cd "$etcd_mod" && nice -n 15 go build -ldflags "-s -w" -o "$tmp/etcd" .) ||
  die "building etcd (go.etcd.io/etcd/server/v3@$etcd) failed (see above)"

"$tmp/kube-apiserver" --version >&2
"$tmp/etcd" --version >&2
chmod 0755 "$tmp"
mv -T "$tmp" "$out"
trap - EXIT
echo "$out"

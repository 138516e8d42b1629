#!/bin/sh
# make bench-pipelines: the wall time of every pipeline the README documents, with gateway2tyk and without it, on
# the generated fleet of each size (bench/gen -app: the same objects as kustomize, kpt and Argo CD applications),
# in one run, and prints a table. Without gateway2tyk is the same pipeline on the same objects with the function
# left out: kustomize build of the kustomization without the transformer, kpt fn render of the package without
# the pipeline, the Argo CD plugin's sidecar running `kustomize build .`, the no-op KRM function.
#
#   SIZES    route counts                        (default "1000 5000 10000")
#   TIMEOUT  seconds allowed for one run         (default 200: a run that takes longer shows as "> 200 s", and the
#            same pipeline is not run at larger sizes, which would take longer still)
#   SEED     generator seed                      (default 1)
#   KPT      kpt binary                          (default: kpt on PATH; the kpt rows are skipped without one)
#
# Each number is one run (the machine is shared; BENCHMARKS.md says how the key numbers were repeated). The
# Argo CD plugin runs as the sidecar runs it (bench/cmpgenerate: plugin.yaml's command, a 0644 copy of the
# application, the sidecar's PATH and Argo CD's variables). Plain sh: every step checks its own status.

SIZES=${SIZES:-"1000 5000 10000"}
TIMEOUT=${TIMEOUT:-200}
SEED=${SEED:-1}
GO=${GO:-go}
KUSTOMIZE=${KUSTOMIZE:-bin/kustomize}
OUT=bench/out/pipelines

cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
mkdir -p "$OUT/bin" || exit 1

TIME=/usr/bin/time
if ! "$TIME" -f %M true >/dev/null 2>&1; then
	echo "bench-pipelines: GNU time (/usr/bin/time) is missing: apt-get install time" >&2
	exit 1
fi
if [ ! -x "$KUSTOMIZE" ]; then
	echo "bench-pipelines: $KUSTOMIZE is missing: run make bin/kustomize" >&2
	exit 1
fi
KPT=${KPT:-$(command -v kpt || true)}

echo "bench-pipelines: building"
for p in cmd/gateway2tyk bench/noop bench/gen bench/cmpgenerate; do
	CGO_ENABLED=0 $GO build -trimpath -o "$OUT/bin/$(basename "$p")" "./$p" || exit 1
done
ln -sf "$ROOT/$KUSTOMIZE" "$OUT/bin/kustomize" || exit 1
TOOLS="$ROOT/$OUT/bin:/usr/bin:/bin"
# The plugin without gateway2tyk: the sidecar runs only kustomize build.
cat >"$OUT/plugin-plain.yaml" <<'EOF'
apiVersion: argoproj.io/v1alpha1
kind: ConfigManagementPlugin
metadata: {name: kustomize-only}
spec:
  generate:
    command: [sh, -c]
    args: ["exec kustomize build ."]
EOF

machine() {
	echo "$(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
		"$(awk '/^MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
echo "bench-pipelines: machine: $(machine)"
echo "bench-pipelines: kustomize $("$KUSTOMIZE" version), kpt ${KPT:+$("$KPT" version 2>/dev/null)}${KPT:-absent}"

# measure: runs "$@" with the tools on PATH, output to $OUT/stdout.yaml; sets result to the wall time ("12.34 s"),
# "> TIMEOUT s", or "failed", and rss to the peak RSS in MB.
measure() {
	rss=
	PATH=$TOOLS timeout "$TIMEOUT" "$TIME" -o "$OUT/time.txt" -f '%e %M' "$@" >"$OUT/stdout.yaml" 2>"$OUT/stderr.txt"
	status=$?
	if [ "$status" -eq 124 ]; then
		result="> $TIMEOUT s"
		return 1
	fi
	if [ "$status" -ne 0 ]; then
		result=failed
		echo "bench-pipelines: $* failed (exit $status):" >&2
		tail -n 5 "$OUT/stderr.txt" >&2
		return 1
	fi
	set -- $(tail -n 1 "$OUT/time.txt")
	result="$1 s"
	rss=$(awk -v k="$2" 'BEGIN {printf "%.0f", k/1024}')
}

# Pipelines that ran out of time at a smaller size are not run again at a larger one.
given_up=
skip() { case " $given_up " in *" $1 "*) return 0 ;; esac; return 1; }
give_up() { given_up="$given_up $1"; }

# run_one KEY ARGS...: measures unless KEY gave up; sets value (and rss).
run_one() {
	key=$1
	shift
	if skip "$key"; then
		value="> $TIMEOUT s (not run)"
		rss=
		return
	fi
	if ! measure "$@"; then
		[ "$result" = failed ] || give_up "$key"
	fi
	value=$result
}

ratio() {
	case "$1$2" in
	*">"* | *failed*) echo "—" ;;
	*) awk -v a="${1% s}" -v b="${2% s}" 'BEGIN {printf "%.2fx", a/b}' ;;
	esac
}

rows=
row() { # pipeline routes without with rss
	rows="$rows| $1 | $2 | $3 | $4 | $(ratio "$4" "$3") | ${5:+$5 MB} |
"
	echo "bench-pipelines: $1, $2 routes: without $3, with $4"
}

for n in $SIZES; do
	apps="$ROOT/$OUT/apps-$n"
	rm -rf "$apps"
	"$OUT/bin/gen" -routes "$n" -seed "$SEED" -app "$apps" || exit 1
	"$OUT/bin/gen" -routes "$n" -seed "$SEED" >"$OUT/routes-$n.yaml" || exit 1
	# The large-app kustomize path: the kustomization without the transformer, the RenderConfig beside it.
	cp -r "$apps/kustomize" "$apps/kustomize-large" || exit 1
	PATH=$TOOLS gateway2tyk configure --detach-transformer "$apps/kustomize-large" || exit 1
	echo "bench-pipelines: $n routes ($(awk -v b="$(wc -c <"$apps/yaml/resources.yaml")" 'BEGIN {printf "%.1f MB", b/1048576}')), load average $(cut -d' ' -f1-3 /proc/loadavg)"

	run_one plain-kustomize kustomize build "$apps/kustomize-plain"
	plain=$value
	run_one transformer kustomize build --enable-alpha-plugins --enable-exec "$apps/kustomize"
	row "kustomize build, gateway2tyk as transformer" "$n" "$plain" "$value" "$rss"

	run_one large-app sh -c 'kustomize build "$1" >"$2" && gateway2tyk render -k "$1" "$2"' sh \
		"$apps/kustomize-large" "$OUT/inputs.yaml"
	row "kustomize build && gateway2tyk render -k (large-app path)" "$n" "$plain" "$value" "$rss"

	run_one argo-plain "$OUT/bin/cmpgenerate" -plugin "$OUT/plugin-plain.yaml" -app "$apps/kustomize-plain" -path "$TOOLS"
	argo_plain=$value
	run_one argo-kustomize "$OUT/bin/cmpgenerate" -plugin plugin.yaml -app "$apps/kustomize" -path "$TOOLS"
	row "Argo CD plugin, kustomization (sidecar)" "$n" "$argo_plain" "$value" "$rss"
	run_one argo-yaml "$OUT/bin/cmpgenerate" -plugin plugin.yaml -app "$apps/yaml" -path "$TOOLS"
	row "Argo CD plugin, plain YAML directory (sidecar)" "$n" "$argo_plain" "$value" "$rss"

	if [ -n "$KPT" ]; then
		run_one kpt-plain "$KPT" fn render "$apps/kpt-plain" -o unwrap
		kpt_plain=$value
		run_one kpt "$KPT" fn render --allow-exec "$apps/kpt" -o unwrap
		row "kpt fn render --allow-exec" "$n" "$kpt_plain" "$value" "$rss"
	else
		echo "bench-pipelines: kpt is not on PATH and \$KPT is unset: the kpt row is skipped"
	fi

	run_one noop "$OUT/bin/noop" <"$OUT/routes-$n.yaml"
	noop=$value
	run_one function "$OUT/bin/gateway2tyk" <"$OUT/routes-$n.yaml"
	row "gateway2tyk alone (KRM function; without: no-op kyaml function)" "$n" "$noop" "$value" "$rss"
done
rm -f "$OUT/stdout.yaml" "$OUT/stderr.txt" "$OUT/time.txt" "$OUT/inputs.yaml"

echo
echo "Machine: $(machine) (at the end of the run)"
echo
echo "| pipeline | routes | without gateway2tyk | with gateway2tyk | ratio | peak RSS with |"
echo "|---|---:|---:|---:|---:|---:|"
printf '%s' "$rows"

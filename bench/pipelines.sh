#!/bin/sh
# make bench-pipelines: the wall time of every pipeline docs/pipelines documents, with gateway2tyk and without it, on
# the generated fleet of each size (bench/gen -app: the same objects as kustomize, kpt and Argo CD applications),
# in one run, and prints a table. Without gateway2tyk is the same pipeline on the same objects with the function
# left out: kustomize build of the kustomization without the transformer, kpt fn render of the package without
# the pipeline, the Argo CD plugin's sidecar running `kustomize build .`, the no-op KRM function.
#
#   SIZES    route counts                        (default "1000 5000 10000")
#   TIMEOUT  seconds allowed for one run         (default 120: a run that takes longer shows as "> 120 s", and the
#            same pipeline is not run at larger sizes, which would take longer still)
#   RUNS     runs of each pipeline, with and without alternating (default 2); the best of each is reported, as
#            the machine is shared and a run can be slowed by other work. A run over REPEAT_BELOW seconds
#            (default 30) is not repeated: its ratio does not hinge on a few seconds.
#   SEED     generator seed                      (default 1)
#   KPT      kpt binary                          (default: kpt on PATH; the kpt rows are skipped without one)
#
# The Argo CD plugin runs as the sidecar runs it (bench/cmpgenerate: plugin.yaml's command, a 0644 copy of the
# application, the sidecar's PATH and Argo CD's variables). Plain sh: every step checks its own status.

SIZES=${SIZES:-"1000 5000 10000"}
TIMEOUT=${TIMEOUT:-120}
RUNS=${RUNS:-2}
REPEAT_BELOW=${REPEAT_BELOW:-30}
SEED=${SEED:-1}
GO=${GO:-go}
KUSTOMIZE=${KUSTOMIZE:-bin/kustomize}
OUT=bench/out/pipelines

cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
mkdir -p "$OUT/bin" || exit 1

. bench/gnutime.sh
need_gnu_time bench-pipelines || exit 1
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

# run_one KEY ARGS...: measures once unless KEY gave up; sets value (and rss).
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

# better A B: true when the time A is less than B (B empty counts as worse).
better() {
	case "$1" in *">"* | failed) return 1 ;; esac
	case "$2" in "" | *">"* | failed) return 0 ;; esac
	awk -v a="${1% s}" -v b="${2% s}" 'BEGIN {exit !(a < b)}'
}

# pair NAME KEY_WITHOUT KEY_WITH CMD_WITHOUT CMD_WITH: runs without and with alternately, RUNS times (a run
# longer than REPEAT_BELOW seconds is not repeated), and adds the best of each to the table. The commands are
# strings run by sh with the tools on PATH ($APPS, $OUT and $ROUTES set). An empty CMD_WITHOUT reuses the
# previous pair's best time without gateway2tyk (the same pipeline without it).
pair() {
	name=$1 kw=$2 kg=$3 cw=$4 cg=$5
	[ -z "$cw" ] || best_w=
	best_g= best_rss=
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		if [ -n "$cw" ] && { [ "$i" -eq 0 ] || repeat "$best_w"; }; then
			run_one "$kw" sh -c "$cw"
			if better "$value" "$best_w" || [ -z "$best_w" ]; then best_w=$value; fi
		fi
		if [ "$i" -eq 0 ] || repeat "$best_g"; then
			run_one "$kg" sh -c "$cg"
			if better "$value" "$best_g" || [ -z "$best_g" ]; then best_g=$value best_rss=$rss; fi
		fi
		i=$((i + 1))
	done
	row "$name" "$n" "$best_w" "$best_g" "$best_rss" "$(bound "$name")"
}

# bound NAME: the ratio the pipeline must stay within (issue 44), or "—" where none is set: the paths large
# applications take stay within 1.5x of plain kustomize build; the transformer path is kustomize's own quadratic
# cost (small applications only), kpt's and the function's rows are for comparison.
bound() {
	case "$1" in
	*"large-app path"* | "Argo CD plugin"*) echo "1.50x" ;;
	*) echo "—" ;;
	esac
}

# verdict RATIO BOUND: "within" or "OVER" when a bound is set, "—" otherwise.
verdict() {
	case "$1$2" in
	*—*) echo "—" ;;
	*) awk -v r="${1%x}" -v b="${2%x}" 'BEGIN {print (r <= b ? "within" : "OVER")}' ;;
	esac
}

# repeat T: true when a run that took T is worth repeating.
repeat() {
	case "$1" in *">"* | failed) return 1 ;; esac
	awk -v a="${1% s}" -v b="$REPEAT_BELOW" 'BEGIN {exit !(a < b)}'
}

ratio() {
	case "$1$2" in
	*">"* | *failed*) echo "—" ;;
	*) awk -v a="${1% s}" -v b="${2% s}" 'BEGIN {printf "%.2fx", a/b}' ;;
	esac
}

rows=
row() { # pipeline routes without with rss bound
	r=$(ratio "$4" "$3")
	rows="$rows| $1 | $2 | $3 | $4 | $r | $6 | $(verdict "$r" "$6") | ${5:+$5 MB} |
"
	echo "bench-pipelines: $1, $2 routes: without $3, with $4 ($r; bound $6)"
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

	# The documented sidecar keeps the memory of verdicts on its emptyDir (GATEWAY2TYK_CACHE in
	# examples/argocd/repo-server-patch.yaml), so its renders after the first find it warm, as the large-app path's
	# do in the user's cache: emptied here, the first plugin run of each size is cold and the best of RUNS warm.
	SIDECAR_CACHE="$ROOT/$OUT/sidecar-cache-$n" # absolute: the plugin runs in its copy of the application
	rm -rf "$SIDECAR_CACHE"
	export APPS="$apps" OUT ROUTES="$OUT/routes-$n.yaml" KPT SIDECAR_CACHE
	pair "kustomize build, gateway2tyk as transformer" plain-kustomize transformer \
		'kustomize build "$APPS/kustomize-plain"' \
		'kustomize build --enable-alpha-plugins --enable-exec "$APPS/kustomize"'
	pair "kustomize build && gateway2tyk render -k (large-app path)" plain-kustomize large-app '' \
		'kustomize build "$APPS/kustomize-large" >"$OUT/inputs.yaml" && gateway2tyk render -k "$APPS/kustomize-large" "$OUT/inputs.yaml"'
	pair "Argo CD plugin, kustomization (sidecar)" argo-plain argo-kustomize \
		'cmpgenerate -plugin "$OUT/plugin-plain.yaml" -app "$APPS/kustomize-plain" -path "$PATH"' \
		'cmpgenerate -plugin plugin.yaml -app "$APPS/kustomize" -path "$PATH" -cache "$SIDECAR_CACHE"'
	pair "Argo CD plugin, plain YAML directory (sidecar)" argo-plain argo-yaml '' \
		'cmpgenerate -plugin plugin.yaml -app "$APPS/yaml" -path "$PATH" -cache "$SIDECAR_CACHE"'
	if [ -n "$KPT" ]; then
		pair "kpt fn render --allow-exec" kpt-plain kpt \
			'"$KPT" fn render "$APPS/kpt-plain" -o unwrap' \
			'"$KPT" fn render --allow-exec "$APPS/kpt" -o unwrap'
	else
		echo "bench-pipelines: kpt is not on PATH and \$KPT is unset: the kpt row is skipped"
	fi
	pair "gateway2tyk alone (KRM function; without: no-op kyaml function)" noop function \
		'noop <"$ROUTES"' 'gateway2tyk <"$ROUTES"'
done
rm -f "$OUT/stdout.yaml" "$OUT/stderr.txt" "$OUT/time.txt" "$OUT/inputs.yaml"

echo
echo "Machine: $(machine) (at the end of the run)"
echo
echo "| pipeline | routes | without gateway2tyk | with gateway2tyk | ratio | bound | | peak RSS with |"
echo "|---|---:|---:|---:|---:|---:|---|---:|"
printf '%s' "$rows"

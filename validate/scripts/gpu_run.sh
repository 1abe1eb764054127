#!/bin/bash
# The GPU run (issue #40), one script for a machine with an NVIDIA GPU, PyTorch 2.x with CUDA and the
# CUDA toolkit, and no Debian packages: run from the repository root as
#
#   OUT=/some/dir bash validate/scripts/gpu_run.sh [DEPS_DIR]
#
# DEPS_DIR holds Debian's header-only packages as .deb files (libboost1.81-dev, libeigen3-dev,
# libcli11-dev; `apt-get download` them on a Debian machine), unpacked here with dpkg -x. It writes to
# $OUT, each file as soon as it has something:
#   env.txt        the GPU, driver, CUDA, PyTorch, compiler; nvidia-smi's clocks and power
#   smi.csv        SM and memory clocks, power and temperature every half second of the run
#   kernels.csv    validate/scripts/gpu_kernels.py: GEMMs, attention, streaming ops, convolutions
#   networks.csv   validate/scripts/gpu_networks.py: whole networks, inference and a training step
#                  (both with a leading `run` column: each run is a fresh process)
#   dispatch.csv   validate/scripts/gpu_dispatch.py: the host's cost per eager op, autograd node, optimizer tensor
#   build.log      calibrate built against the machine's LibTorch (validate only, no ONNX import)
#   calibrate.tgz  calibrate --device cuda for bf16 and tf32: the .hw files, per-layer CSVs, reports
#   run.log        every stage: its time limit, exit status and seconds, and what it printed
# The order: run 1 of kernels and networks (the build runs on the CPUs meanwhile), calibrate bf16, run 2,
# calibrate tf32, dispatch, then runs 3..RIDGE_GPU_RUNS (default 3) while the budget lasts. Every stage has a time limit
# (RIDGE_GPU_KERNELS_S, _NETWORKS_S, _CALIBRATE_S), so the whole run ends inside RIDGE_GPU_BUDGET_S
# (default 540) seconds. RIDGE_GPU_STAGES picks stages (default "kernels networks dispatch calibrate"),
# RIDGE_GPU_DTYPES calibrate's precisions (default "bf16 tf32"), RIDGE_GPU_NETWORKS_ARGS gpu_networks.py's
# further arguments (`--cases blind`: the weak rows' networks instead of the base set), RIDGE_GPU_KERNELS_ARGS
# gpu_kernels.py's (`--groups attention_fp32,conv_backward`: only those groups).
set -u
OUT=${OUT:?set OUT to the folder the results go to}
DEPS=${1:-.gpu}
BUDGET=${RIDGE_GPU_BUDGET_S:-540}
START=$(date +%s)
left() { echo $(( BUDGET - ($(date +%s) - START) )); }
mkdir -p "$OUT"
PY=python3

{
  date -u
  nvidia-smi
  nvidia-smi -q -d CLOCK,POWER,PERFORMANCE,ECC
  $PY -c 'import torch, sys; print("python", sys.version.split()[0]); print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version()); p = torch.cuda.get_device_properties(0); print("device", p.name, "SMs", p.multi_processor_count, "memory", p.total_memory, "L2", getattr(p, "L2_cache_size", "?"))'
  $PY -c 'import transformers, torchvision; print("transformers", transformers.__version__, "torchvision", torchvision.__version__)'
  nvcc --version; g++ --version | head -1; cmake --version | head -1
} > "$OUT/env.txt" 2>&1

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu \
  --format=csv -lms 500 > "$OUT/smi.csv" 2>/dev/null &
SMI=$!

# The build runs on the CPUs (niced) while the GPU measures.
(
  set -e
  mkdir -p /tmp/ridge-deps
  for deb in "$DEPS"/*.deb; do dpkg -x "$deb" /tmp/ridge-deps; done
  TORCH_PREFIX=$($PY -c 'import torch; print(torch.utils.cmake_prefix_path)')
  CUDA_ROOT=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
  if command -v ninja >/dev/null; then GEN=Ninja; else GEN="Unix Makefiles"; fi
  # The distribution's compiler where there is one (the image's newer GCC on the PATH drops transitive
  # standard includes this code has not been checked against); a forced <cstdint> as the safety net.
  CXX_CHOICE=; for c in /usr/bin/g++-13 /usr/bin/g++-12 /usr/bin/g++; do [ -x "$c" ] && { CXX_CHOICE=$c; break; }; done
  echo "compiler: ${CXX_CHOICE:-$(command -v g++)}"
  nice -n 10 cmake -S . -B build-gpu -G "$GEN" -DCMAKE_BUILD_TYPE=Release ${CXX_CHOICE:+-DCMAKE_CXX_COMPILER=$CXX_CHOICE} \
    -DCMAKE_CXX_FLAGS="-include cstdint" \
    -DRIDGE_WITH_ONNX=OFF -DRIDGE_BUILD_TESTS=OFF -DRIDGE_BUILD_BENCHMARKS=OFF -DRIDGE_BUILD_PYTHON=OFF \
    -DCMAKE_PREFIX_PATH="$TORCH_PREFIX;/tmp/ridge-deps/usr" \
    -DBoost_DIR=/tmp/ridge-deps/usr/lib/x86_64-linux-gnu/cmake/Boost-1.81.0 \
    -DCUDAToolkit_ROOT="$CUDA_ROOT" -DCMAKE_CUDA_COMPILER="$CUDA_ROOT/bin/nvcc" -DTORCH_CUDA_ARCH_LIST=9.0
  nice -n 10 cmake --build build-gpu --target calibrate -j "$(nproc)"
) > "$OUT/build.log" 2>&1 &
BUILD=$!

export PYTHONUNBUFFERED=1
# stage NAME MAX_S CMD...: runs CMD for at most MAX_S seconds and never past the budget (less 10 s for
# the archive); skipped when under 20 s would be left for it.
stage() {
  local name=$1 max=$2; shift 2
  local t=$(( $(left) - 10 )); [ "$t" -gt "$max" ] && t=$max
  if [ "$t" -lt 20 ]; then echo "== $name: skipped ($(left) s left)" >> "$OUT/run.log"; return 1; fi
  echo "== $name (at most $t s; $(left) s left)" >> "$OUT/run.log"
  local t0=$(date +%s)
  timeout "$t" "$@" >> "$OUT/run.log" 2>&1; local rc=$?
  echo "== $name: exit $rc in $(( $(date +%s) - t0 )) s" >> "$OUT/run.log"
}
# append_run N FROM TO: FROM's rows added to TO with a leading run column (TO's header written once).
append_run() {
  [ -s "$2" ] || return 0
  [ -s "$3" ] || sed -n '1s/^/run,/p' "$2" > "$3"
  sed -n "2,\$ s/^/$1,/p" "$2" >> "$3"
}
measure() {   # measure N: run N of the kernels and the networks
  local r=$1
  if [[ $STAGES == *" kernels "* ]]; then
    stage "gpu_kernels.py, run $r" "$KERNELS_S" $PY validate/scripts/gpu_kernels.py --out /tmp/kernels-$r.csv $KERNELS_ARGS
    append_run "$r" /tmp/kernels-$r.csv "$OUT/kernels.csv"
  fi
  if [[ $STAGES == *" networks "* ]]; then
    stage "gpu_networks.py, run $r" "$NETWORKS_S" $PY validate/scripts/gpu_networks.py --out /tmp/networks-$r.csv $NETWORKS_ARGS
    append_run "$r" /tmp/networks-$r.csv "$OUT/networks.csv"
  fi
}
STAGES=" ${RIDGE_GPU_STAGES:-kernels networks dispatch calibrate} "
RUNS=${RIDGE_GPU_RUNS:-3}
KERNELS_S=${RIDGE_GPU_KERNELS_S:-170}
NETWORKS_S=${RIDGE_GPU_NETWORKS_S:-110}
NETWORKS_ARGS=${RIDGE_GPU_NETWORKS_ARGS:-}
KERNELS_ARGS=${RIDGE_GPU_KERNELS_ARGS:-}
CALIBRATE_S=${RIDGE_GPU_CALIBRATE_S:-120}

# Run 1 first, while the build has the CPUs: every stage has something to show if the time runs out.
measure 1

echo "== waiting for the build ($(left) s left)" >> "$OUT/run.log"
# At most until 120 s are left (calibrate needs them); a build still running then is stopped, children too.
while kill -0 $BUILD 2>/dev/null && [ "$(left)" -gt 120 ]; do sleep 2; done
if kill -0 $BUILD 2>/dev/null; then pkill -TERM -f "cmake --build build-gpu"; kill $BUILD 2>/dev/null; fi
wait $BUILD; echo "build exit $? ($(left) s left)" >> "$OUT/run.log"

WORK=/tmp/ridge-calibrate; mkdir -p "$WORK"
case "$(nvidia-smi --query-gpu=name --format=csv,noheader)" in
  *H200*) BASE=hw/h200-sxm.hw ;;
  *H100*PCIe*) BASE=hw/h100-pcie.hw ;;
  *H100*) BASE=hw/h100-sxm5.hw ;;
  *A100*) BASE=hw/a100-sxm4-80gb.hw ;;
  *) BASE= ;;
esac
calibrate_one() {   # calibrate_one DTYPE: its report (stdout) in a file beside the .hw and the layer times
  [[ $STAGES == *" calibrate "* ]] && [ -x build-gpu/calibrate ] || return 0
  stage "calibrate --dtype $1" "$CALIBRATE_S" bash -c 'exec "$@" > "$0" 2>&1' "$WORK/calibrate-$1.txt" \
    build-gpu/calibrate --device cuda --dtype "$1" --batch 32 --seq-len 128 ${BASE:+--base $BASE} \
    --warmup 3 --repeats 10 --budget 0.05 --out "$WORK/gpu-$1.hw" --measurements "$WORK/$1.csv" \
    models/resnet50.net models/bert_base.net models/vgg16.net \
    --holdout models/gpt2.net models/mobilenet_v2.net models/vit_b_16.net
  tail -5 "$WORK/calibrate-$1.txt" >> "$OUT/run.log" 2>/dev/null
  tar czf "$OUT/calibrate.tgz" -C "$WORK" . 2>/dev/null
}
DTYPES=(${RIDGE_GPU_DTYPES:-bf16 tf32})
# Interleaved so that a budget cut short still leaves a calibration and two runs to compare.
calibrate_one "${DTYPES[0]}"
[ "$RUNS" -ge 2 ] && measure 2
for dtype in "${DTYPES[@]:1}"; do calibrate_one "$dtype"; done
if [[ $STAGES == *" dispatch "* ]]; then
  stage gpu_dispatch.py 40 $PY validate/scripts/gpu_dispatch.py --out "$OUT/dispatch.csv"
fi
for r in $(seq 3 "$RUNS"); do measure "$r"; done

kill $SMI 2>/dev/null
echo "== done in $(( $(date +%s) - START )) s" >> "$OUT/run.log"

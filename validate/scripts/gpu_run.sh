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
#   dispatch.csv   validate/scripts/gpu_dispatch.py: the host's cost per eager op, autograd node, optimizer tensor
#   run.log        what those and calibrate printed
# RIDGE_GPU_STAGES picks the measurements (default "kernels networks dispatch"); calibrate runs when it builds.
#   build.log      calibrate built against the machine's LibTorch (validate only, no ONNX import)
#   calibrate.tgz  calibrate --device cuda for bf16 and tf32: the .hw files, per-layer CSVs, reports
# Every stage has a time limit, so the whole run ends inside RIDGE_GPU_BUDGET_S (default 500) seconds.
set -u
OUT=${OUT:?set OUT to the folder the results go to}
DEPS=${1:-.gpu}
BUDGET=${RIDGE_GPU_BUDGET_S:-500}
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
STAGES=" ${RIDGE_GPU_STAGES:-kernels networks dispatch} "
if [[ $STAGES == *" kernels "* ]]; then
  echo "== gpu_kernels.py ($(left) s left)" >> "$OUT/run.log"
  timeout $(( $(left) * 2 / 5 )) $PY validate/scripts/gpu_kernels.py --out "$OUT/kernels.csv" >> "$OUT/run.log" 2>&1
fi
if [[ $STAGES == *" networks "* ]]; then
  echo "== gpu_networks.py ($(left) s left)" >> "$OUT/run.log"
  timeout $(( $(left) / 2 )) $PY validate/scripts/gpu_networks.py --out "$OUT/networks.csv" >> "$OUT/run.log" 2>&1
fi
if [[ $STAGES == *" dispatch "* ]]; then
  echo "== gpu_dispatch.py ($(left) s left)" >> "$OUT/run.log"
  timeout 90 $PY validate/scripts/gpu_dispatch.py --out "$OUT/dispatch.csv" >> "$OUT/run.log" 2>&1
fi

echo "== waiting for the build ($(left) s left)" >> "$OUT/run.log"
( sleep $(( $(left) - 120 )); kill $BUILD 2>/dev/null ) &
wait $BUILD; echo "build exit $?" >> "$OUT/run.log"

WORK=/tmp/ridge-calibrate; mkdir -p "$WORK"
if [ -x build-gpu/calibrate ]; then
  case "$(nvidia-smi --query-gpu=name --format=csv,noheader)" in
    *H200*) BASE=hw/h200-sxm.hw ;;
    *H100*PCIe*) BASE=hw/h100-pcie.hw ;;
    *H100*) BASE=hw/h100-sxm5.hw ;;
    *A100*) BASE=hw/a100-sxm4-80gb.hw ;;
    *) BASE= ;;
  esac
  for dtype in ${RIDGE_GPU_DTYPES:-bf16 tf32}; do
    t=$(( $(left) / 2 - 5 )); [ "$dtype" = tf32 ] && t=$(( $(left) - 10 ))
    echo "== calibrate --dtype $dtype ($t s)" >> "$OUT/run.log"
    timeout "$t" build-gpu/calibrate --device cuda --dtype $dtype --batch 32 --seq-len 128 ${BASE:+--base $BASE} \
      --warmup 3 --repeats 10 --budget 0.05 --out "$WORK/gpu-$dtype.hw" --measurements "$WORK/$dtype.csv" \
      models/resnet50.net models/bert_base.net models/vgg16.net \
      --holdout models/gpt2.net models/mobilenet_v2.net models/vit_b_16.net > "$WORK/calibrate-$dtype.txt" 2>&1
    echo "calibrate $dtype exit $?" >> "$OUT/run.log"
    tail -5 "$WORK/calibrate-$dtype.txt" >> "$OUT/run.log"
  done
fi
tar czf "$OUT/calibrate.tgz" -C "$WORK" . 2>/dev/null
kill $SMI 2>/dev/null
echo "== done in $(( $(date +%s) - START )) s" >> "$OUT/run.log"

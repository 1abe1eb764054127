// The CUPTI implementation of cupti/tracer.hpp. Compiled only where the CUDA toolkit is found, and
// never beside a torch header. It only translates CUPTI's activity structs into records.hpp's plain
// records; every decision about them is made (and tested) there.
#include "validate/cupti/tracer.hpp"

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace ridge::validate::cupti {
namespace {

// The record layouts of the CUPTI this is compiled against (CUDA 13 grew the kernel and memcpy
// structs; CUDA 12 has the previous versions).
#if CUPTI_API_VERSION >= 130000
using KernelStruct = CUpti_ActivityKernel10;
using MemcpyStruct = CUpti_ActivityMemcpy6;
#else
using KernelStruct = CUpti_ActivityKernel9;
using MemcpyStruct = CUpti_ActivityMemcpy5;
#endif
using MemsetStruct = CUpti_ActivityMemset4;

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  throw std::runtime_error(std::string("CUPTI: ") + what + ": " + (text ? text : "unknown error"));
}

void check(cudaError_t r, const char* what) {
  if (r != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(r));
}

constexpr std::size_t kBufferBytes = 8 * 1024 * 1024;
constexpr std::size_t kAlign = 8;

// CUPTI calls these from its own threads; what they gather waits here until collect().
struct Sink {
  std::mutex mutex;
  std::vector<ActivityRecord> records;
  std::vector<ExternalCorrelation> correlations;
  std::size_t dropped = 0;
};
Sink& sink() {
  static Sink s;
  return s;
}

const char* memcpy_name(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "memcpy DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "memcpy PtoP";
    default: return "memcpy";
  }
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  // aligned_alloc/free pair: CUPTI owns the buffer between the two callbacks, a C API boundary.
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  std::vector<ActivityRecord> records;
  std::vector<ExternalCorrelation> correlations;
  CUpti_Activity* raw = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &raw) == CUPTI_SUCCESS) {
    switch (raw->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const KernelStruct*>(raw);
        records.push_back({ActivityKind::Kernel, k->name ? k->name : "?", k->start, k->end, k->correlationId, 0});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const MemcpyStruct*>(raw);
        records.push_back({ActivityKind::Memcpy, memcpy_name(m->copyKind), m->start, m->end, m->correlationId, m->bytes});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const MemsetStruct*>(raw);
        records.push_back({ActivityKind::Memset, "memset", m->start, m->end, m->correlationId, m->bytes});
        break;
      }
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(raw);
        if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
          correlations.push_back({e->externalId, e->correlationId});
        break;
      }
      default:
        break;   // runtime and driver API records: enabled only so CUPTI emits the external correlations
    }
  }
  std::size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(context, stream, &dropped);
  std::free(buffer);
  auto& s = sink();
  const std::lock_guard lock(s.mutex);
  s.records.insert(s.records.end(), records.begin(), records.end());
  s.correlations.insert(s.correlations.end(), correlations.begin(), correlations.end());
  s.dropped += dropped;
}

std::uint64_t cupti_now() {
  std::uint64_t t = 0;
  check(cuptiGetTimestamp(&t), "read the timestamp");
  return t;
}

class CuptiTracer final : public ActivityTracer {
 public:
  CuptiTracer() {
    // The buffer callbacks belong to the process, not to one tracer: register them once.
    static const CUptiResult registered = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    check(registered, "register buffer callbacks");
    for (const auto kind : kKinds) check(cuptiActivityEnable(kind), "enable activity kind");
  }
  ~CuptiTracer() override {
    cuptiActivityFlushAll(0);
    for (const auto kind : kKinds) cuptiActivityDisable(kind);
  }
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  void push(std::uint64_t id) override {
    check(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id), "push correlation id");
    open_ = Window{id, cupti_now(), 0};
  }
  void pop() override {
    std::uint64_t last = 0;
    check(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last), "pop correlation id");
    open_.end_ns = cupti_now();
    windows_.push_back(open_);
  }
  ActivityLog collect() override {
    check(cudaDeviceSynchronize(), "synchronize");
    check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "flush");
    ActivityLog log;
    log.windows = std::exchange(windows_, {});
    auto& s = sink();
    const std::lock_guard lock(s.mutex);
    log.records = std::exchange(s.records, {});
    log.correlations = std::exchange(s.correlations, {});
    log.dropped = std::exchange(s.dropped, 0);
    return log;
  }

 private:
  // RUNTIME and DRIVER records are not read: CUPTI emits an external correlation only for an API call
  // it records, and cuBLAS and cuDNN launch many kernels through the driver API.
  static constexpr CUpti_ActivityKind kKinds[] = {
      CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
      CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER};
  Window open_{};
  std::vector<Window> windows_;
};

class CudaEventTimer final : public EventTimer {
 public:
  CudaEventTimer() {
    check(cudaEventCreate(&start_), "create event");
    check(cudaEventCreate(&stop_), "create event");
  }
  ~CudaEventTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;
  void start() override { check(cudaEventRecord(start_, nullptr), "record start event"); }
  double stop_seconds() override {
    check(cudaEventRecord(stop_, nullptr), "record stop event");
    check(cudaEventSynchronize(stop_), "wait for stop event");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "elapsed time");
    return ms * 1e-3;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

}  // namespace

bool cupti_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

std::unique_ptr<ActivityTracer> start_cupti_tracer() {
  if (!cupti_available()) throw std::runtime_error("CUPTI: no CUDA device is present");
  return std::make_unique<CuptiTracer>();
}

std::unique_ptr<EventTimer> make_event_timer() { return std::make_unique<CudaEventTimer>(); }

std::string cuda_device_name(int index) {
  cudaDeviceProp prop{};
  if (!cupti_available() || cudaGetDeviceProperties(&prop, index) != cudaSuccess) return {};
  return prop.name;
}

void device_synchronize() {
  if (cupti_available()) cudaDeviceSynchronize();
}

}  // namespace ridge::validate::cupti

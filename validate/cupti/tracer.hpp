// The small interface the measurement code sees of GPU tracing. The CUPTI implementation lives in
// cupti_tracer.cpp, which is compiled only where the CUDA toolkit is found and includes no torch
// header; measure.cpp reaches it only through this header.
#pragma once

#include "validate/cupti/records.hpp"

#include <memory>
#include <string>
#include <vector>

namespace ridge::validate::cupti {

// What a tracer gathered: the records, CUPTI's external correlations, and the window of each push/pop.
struct ActivityLog {
  std::vector<ActivityRecord> records;
  std::vector<ExternalCorrelation> correlations;
  std::vector<Window> windows;
  std::size_t dropped = 0;   // records CUPTI could not buffer since the last collect(): lost work
};

class ActivityTracer {
 public:
  virtual ~ActivityTracer() = default;
  // Attribute the device work of the calls that follow to `external_id` (a layer id), until pop().
  // The caller waits for the device before each, so the window between them holds only this work.
  virtual void push(std::uint64_t external_id) = 0;
  virtual void pop() = 0;
  // Flush CUPTI's buffers and hand over (and forget) everything gathered so far.
  virtual ActivityLog collect() = 0;
};

// True where this build has CUPTI (RIDGE_HAVE_CUPTI) and a CUDA device is present.
bool cupti_available();

// Starts CUPTI activity tracing: the process's one subscriber (never run the PyTorch/Kineto profiler
// beside it). Throws std::runtime_error where CUPTI is missing or fails.
std::unique_ptr<ActivityTracer> start_cupti_tracer();

// CUDA events around a region on the current stream, for end-to-end GPU timing.
class EventTimer {
 public:
  virtual ~EventTimer() = default;
  virtual void start() = 0;
  virtual double stop_seconds() = 0;   // records the stop event, waits for it, returns the elapsed time
};
std::unique_ptr<EventTimer> make_event_timer();   // throws where CUDA is missing

// Waits for the device (cudaDeviceSynchronize); a no-op without CUDA.
void device_synchronize();

// The CUDA device's name ("NVIDIA H100 80GB HBM3"); empty without CUDA.
std::string cuda_device_name(int index);

}  // namespace ridge::validate::cupti

// tracer.hpp where the build has no CUDA toolkit: GPU measurement reports that it is unavailable.
#include "validate/cupti/tracer.hpp"

#include <stdexcept>

namespace ridge::validate::cupti {

bool cupti_available() { return false; }

std::unique_ptr<ActivityTracer> start_cupti_tracer() {
  throw std::runtime_error("this build of Ridge has no CUPTI (the CUDA toolkit was not found at configure time)");
}

std::unique_ptr<EventTimer> make_event_timer() {
  throw std::runtime_error("this build of Ridge has no CUDA runtime (the CUDA toolkit was not found at configure time)");
}

std::string cuda_device_name(int) { return {}; }

void device_synchronize() {}

}  // namespace ridge::validate::cupti

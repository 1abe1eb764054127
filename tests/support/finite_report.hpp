// The check the hostile-input tests and the fuzz targets share: every figure a report carries must be
// finite and non-negative, so no inf or NaN reaches a user.
#pragma once

#include "engine/simulate.hpp"
#include "engine/timing.hpp"

#include <cmath>

namespace ridge::testing {

// Every figure a report carries must be finite and non-negative: no inf or NaN reaches a user (the
// JSON writer would print them as null, hiding the problem, so look at the numbers themselves).
inline bool finite(double v) { return std::isfinite(v) && v >= 0.0; }
inline bool finite(const engine::PassTime& t) { return finite(t.roofline_s) && finite(t.paleo_s) && finite(t.intensity); }
inline bool finite(const engine::PassCost& c) { return finite(c.flops) && finite(c.bytes_read) && finite(c.bytes_written); }

inline bool all_finite(const engine::Report& r) {
  const engine::Totals& t = r.totals;
  for (const double v : {t.params, t.macs, t.flops_fwd, t.flops_fwd_train, t.flops_bwd, t.flops_update, t.bytes_fwd,
                         t.bytes_fwd_train, t.bytes_bwd, t.bytes_update, t.roofline_fwd_s, t.roofline_bwd_s,
                         t.time_fwd_s, t.time_bwd_s, t.time_update_s, t.time_train_step_s, t.roofline_train_step_s,
                         t.throughput_infer, t.throughput_train, t.weight_bytes, t.peak_activation_bytes,
                         t.saved_activation_bytes, t.memory_infer_bytes, t.memory_train_bytes})
    if (!finite(v)) return false;
  for (const engine::LayerRow& l : r.layers)
    if (!finite(l.params) || !finite(l.macs) || !finite(l.fwd) || !finite(l.bwd) || !finite(l.fwd_train) ||
        !finite(l.time_fwd) || !finite(l.time_bwd) || !finite(l.time_fwd_train))
      return false;
  return true;
}

}  // namespace ridge::testing

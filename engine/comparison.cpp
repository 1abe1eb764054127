#include "engine/comparison.hpp"

namespace ridge::engine {

Comparison compare(const std::vector<Report>& reports) {
  Comparison c;
  if (!reports.empty()) c.network = reports.front().network;
  for (const Report& r : reports) {
    const Totals& t = r.totals;
    c.rows.push_back({r.device.name, r.device.id, r.batch, r.precision, t.time_fwd_s, t.time_train_step_s,
                      t.roofline_fwd_s, t.roofline_train_step_s, t.throughput_infer, t.throughput_train,
                      t.memory_infer_bytes, t.memory_train_bytes, r.device.memory_bytes, t.fits_infer,
                      t.fits_train});
  }
  return c;
}

}  // namespace ridge::engine

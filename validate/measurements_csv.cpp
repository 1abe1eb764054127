#include "validate/measurements_csv.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace ridge::validate {

std::string measurements_csv(const std::vector<MeasuredPass>& passes) {
  std::string out = "layer,pass,seconds\n";
  for (const MeasuredPass& m : passes) {
    if (m.layer.find_first_of(",\r\n") != std::string::npos)
      throw std::invalid_argument("measurements: layer name '" + m.layer + "' cannot be written as a CSV field");
    if (!(m.seconds > 0.0) || !std::isfinite(m.seconds)) continue;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.9g", m.seconds);   // 9 digits: nanoseconds of a second-long pass
    out += m.layer + "," + std::string(ir::pass_name(m.pass)) + "," + seconds + "\n";
  }
  return out;
}

std::string measurements_path(const std::string& path, const std::string& network) {
  const std::filesystem::path p(path);
  const std::string ext = p.has_extension() ? p.extension().string() : ".csv";
  return (p.parent_path() / (p.stem().string() + "-" + network + ext)).string();
}

}  // namespace ridge::validate

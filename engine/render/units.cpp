#include "engine/render/units.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace ridge::engine::render {

std::string si(double value, std::string_view unit) {
  if (!std::isfinite(value)) return "-";
  // Built by append: GCC 12 warns falsely (-Wrestrict) on "x" + std::string.
  const auto with_unit = [&](std::string s) {
    if (!unit.empty()) s.append(" ").append(unit);
    return s;
  };
  if (value == 0.0) return with_unit("0");
  static constexpr std::array<const char*, 11> kPrefixes{"p", "n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  const double magnitude = std::fabs(value);
  int index = static_cast<int>(std::floor(std::log10(magnitude) / 3.0)) + 4;
  if (index < 0 || index >= static_cast<int>(kPrefixes.size())) {
    // Beyond the prefixes (1e30 FLOP, 1e-20 s): three significant digits with an exponent, never the
    // 63-digit mantissa "%.0f" of 1e60 / 1e18 would print.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", value);
    return with_unit(buf);
  }
  double mantissa = value / std::pow(1000.0, index - 4);
  // Rounding to three digits may reach 1000 (999.7 -> "1000"): move up a prefix.
  if (std::fabs(mantissa) >= 999.5 && index + 1 < static_cast<int>(kPrefixes.size())) {
    ++index;
    mantissa /= 1000.0;
  }
  const double m = std::fabs(mantissa);
  const int decimals = m >= 99.95 ? 0 : m >= 9.995 ? 1 : 2;
  // Nudge by one part in 10^12 so decimal halves round up as people expect (1555e9 B/s prints
  // "1.56 TB/s", although 1.555 is stored as 1.55499...). std::to_chars rounds exactly as printf's
  // "%.*f" does, without parsing a format: a layer table formats 10^4 numbers.
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, mantissa * (1.0 + 1e-12), std::chars_format::fixed, decimals);
  std::string out(buf, ec == std::errc{} ? end : buf);
  const std::string_view prefix = kPrefixes[static_cast<std::size_t>(index)];
  if (prefix.empty() && unit.empty()) return out;
  out.reserve(out.size() + 1 + prefix.size() + unit.size());
  return out.append(" ").append(prefix).append(unit);
}

std::string memory(double bytes) {
  if (!std::isfinite(bytes)) return "-";
  static constexpr std::array<const char*, 7> kPrefixes{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  std::size_t index = 0;
  double mantissa = bytes;
  // Three significant digits may round up to 1024 or more (1023.7 MiB -> "1024 MiB"): move up then.
  while (std::fabs(mantissa) >= 999.5 && index + 1 < kPrefixes.size()) {
    mantissa /= 1024.0;
    ++index;
  }
  const double m = std::fabs(mantissa);
  const int decimals = index == 0 || m >= 99.95 ? 0 : m >= 9.995 ? 1 : 2;
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, mantissa * (1.0 + 1e-12), std::chars_format::fixed, decimals);
  std::string out(buf, ec == std::errc{} ? end : buf);
  return out.append(" ").append(kPrefixes[index]).append("B");
}

std::string_view rate_unit(ir::Precision p) { return p == ir::Precision::INT8 ? "OP/s" : "FLOP/s"; }
std::string_view intensity_unit(ir::Precision p) { return p == ir::Precision::INT8 ? "OP/B" : "FLOP/B"; }

std::string count(double value) {
  if (!std::isfinite(value)) return "-";
  if (std::fabs(value) < 1e4 && value == std::floor(value)) {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, 0);
    return std::string(buf, ec == std::errc{} ? end : buf);
  }
  return si(value, "");
}

std::string ratio(double value, std::string_view unit) {
  if (!std::isfinite(value) || value == 0.0 || std::fabs(value) >= 1.0) return si(value, unit);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", value * (1.0 + 1e-12));
  std::string s = buf;
  // %.3g drops trailing zeros; keep three significant digits for aligned columns.
  const std::size_t digits = s.size() - s.find_first_not_of("-0.");
  if (s.find('e') == std::string::npos && digits < 3) s.append(3 - digits, '0');
  return s.append(" ").append(unit);
}

std::string percent(double fraction, bool spaced, bool sign) {
  char buf[48];
  std::snprintf(buf, sizeof buf, sign ? "%+.1f%s%%" : "%.1f%s%%", 100.0 * fraction, spaced ? " " : "");
  return buf;
}

std::string fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

}  // namespace ridge::engine::render

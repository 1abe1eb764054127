#include "hw_writer.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ridge::validate {
namespace {

std::string number(double v) {
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%.6g", v);
  return buf.data();
}

std::string with_prefix(double v, const std::string& unit) {
  static constexpr std::array<const char*, 6> prefixes{"", "k", "M", "G", "T", "P"};
  std::size_t i = 0;
  while (i + 1 < prefixes.size() && std::abs(v) >= 1000.0) v /= 1000.0, ++i;
  return number(v) + " " + prefixes[i] + unit;
}

// The language has no escapes inside strings: quotes and line breaks cannot be written, so they
// become apostrophes and spaces.
std::string quoted(std::string s) {
  for (char& c : s) {
    if (c == '"') c = '\'';
    else if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return "\"" + s + "\"";
}

struct Writer {
  std::ostringstream out;
  void figure(const std::string& key, const std::string& value, const std::string& source) {
    out << "  " << key << " = " << value << "  source " << quoted(source.empty() ? "unknown" : source) << "\n";
  }
};

}  // namespace

std::string format_flops(double v) { return with_prefix(v, "FLOP/s"); }
std::string format_bandwidth(double v) { return with_prefix(v, "B/s"); }

std::string format_bytes(double v) {
  static constexpr std::array<const char*, 5> prefixes{"", "Ki", "Mi", "Gi", "Ti"};
  std::size_t i = 0;
  while (i + 1 < prefixes.size() && v >= 1024.0) v /= 1024.0, ++i;
  return number(v) + " " + prefixes[i] + "B";
}

std::string format_seconds(double v) {
  if (v >= 1.0) return number(v) + " s";
  if (v >= 1e-3) return number(v * 1e3) + " ms";
  if (v >= 1e-6) return number(v * 1e6) + " us";
  return number(v * 1e9) + " ns";
}

std::string write_hw(const ir::Device& d, const std::string& header) {
  Writer w;
  if (!header.empty()) {
    std::istringstream lines(header);
    for (std::string line; std::getline(lines, line);) w.out << "# " << line << "\n";
  }
  w.out << "device " << quoted(d.name.empty() ? d.id : d.name) << " {\n";
  w.out << "  kind = " << ir::device_kind_name(d.kind) << "\n";
  for (const auto& [p, f] : d.vector_peak) w.figure("peak." + std::string(ir::precision_name(p)), format_flops(f.value), f.source);
  for (const auto& [p, f] : d.matrix_peak) w.figure("matrix." + std::string(ir::precision_name(p)), format_flops(f.value), f.source);
  if (d.memory_size) w.figure("memory.size", format_bytes(d.memory_size->value), d.memory_size->source);
  if (d.memory_bandwidth) w.figure("memory.bandwidth", format_bandwidth(d.memory_bandwidth->value), d.memory_bandwidth->source);
  if (d.l2_size) w.figure("l2.size", format_bytes(d.l2_size->value), d.l2_size->source);
  if (d.launch_overhead) w.figure("launch_overhead", format_seconds(d.launch_overhead->value), d.launch_overhead->source);
  for (const auto& [name, link] : d.links) {
    w.figure("link." + name + ".bandwidth", format_bandwidth(link.bandwidth.value), link.bandwidth.source);
    if (link.latency) w.figure("link." + name + ".latency", format_seconds(link.latency->value), link.latency->source);
  }
  for (const auto& [key, eff] : d.ppp) {
    std::string base = "ppp." + std::string(ir::op_class_name(key.first)) + ".";
    if (key.second) base += std::string(ir::pass_name(*key.second)) + ".";
    if (eff.compute) w.figure(base + "compute", number(eff.compute->value), eff.compute->source);
    if (eff.memory) w.figure(base + "memory", number(eff.memory->value), eff.memory->source);
  }
  for (const auto& [p, f] : d.measured_peak) w.figure("measured." + std::string(ir::precision_name(p)), format_flops(f.value), f.source);
  if (d.measured_bandwidth) w.figure("measured.bandwidth", format_bandwidth(d.measured_bandwidth->value), d.measured_bandwidth->source);
  if (d.count > 1) {
    w.out << "  system.count = " << d.count << "\n";
    if (!d.interconnect.empty()) w.out << "  system.interconnect = " << d.interconnect << "\n";
  }
  for (const auto& line : d.provenance) w.out << "  provenance = " << quoted(line) << "\n";
  w.out << "}\n";
  return w.out.str();
}

}  // namespace ridge::validate

#include "validate/hw_writer.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>
#include <algorithm>

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

// A string as the language reads it (docs/language.md: escapes \" \\ \n \t, and a string ends on its
// line): those four are escaped, a carriage return becomes \n and other control bytes a space, so any
// name or provenance text parses back whole.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
    }
  }
  return out + "\"";
}

// check() refuses a zero or negative figure and a PPP outside (0, 1]. The writer never writes one: it
// leaves the figure out (the reader then uses its default) and says so in the provenance, and it caps
// a PPP that rounding lifted above 1 at 1.
struct Writer {
  std::ostringstream out;
  std::vector<std::string> dropped;
  bool usable(const std::string& key, double value) {
    if (value > 0.0 && std::isfinite(value)) return true;
    dropped.push_back(key + " (" + number(value) + ")");
    return false;
  }
  void figure(const std::string& key, const std::string& value, const std::string& source) {
    out << "  " << key << " = " << value << "  source " << quoted(source.empty() ? "unknown" : source) << "\n";
  }
  template <class Format>
  void figure(const std::string& key, double value, const std::string& source, Format&& format) {
    if (usable(key, value)) figure(key, format(value), source);
  }
  void ppp(const std::string& key, const ir::Figure& f) {
    if (usable(key, f.value)) figure(key, number(std::min(f.value, 1.0)), f.source);
  }
  // `[1 GFLOP: 0.6, 16 GFLOP: 0.9]`, points that are not positive left out.
  template <class Format>
  void curve(const std::string& key, const ir::SizeCurve& c, Format&& format_size) {
    std::string text;
    for (const auto& p : c.points)
      if (usable(key, p.size) && usable(key, p.fraction))
        text += (text.empty() ? "[" : ", ") + format_size(p.size) + ": " + number(std::min(p.fraction, 1.0));
    if (!text.empty()) figure(key, text + "]", c.source);
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
  for (const auto& [p, f] : d.vector_peak) w.figure("peak." + std::string(ir::precision_name(p)), f.value, f.source, format_flops);
  for (const auto& [p, f] : d.matrix_peak) w.figure("matrix." + std::string(ir::precision_name(p)), f.value, f.source, format_flops);
  if (d.memory_size) w.figure("memory.size", d.memory_size->value, d.memory_size->source, format_bytes);
  if (d.memory_bandwidth) w.figure("memory.bandwidth", d.memory_bandwidth->value, d.memory_bandwidth->source, format_bandwidth);
  if (d.l2_size) w.figure("l2.size", d.l2_size->value, d.l2_size->source, format_bytes);
  if (d.arch) {
    const ir::Microarchitecture& a = *d.arch;
    const auto per_clock = [](double v) { return number(v) + " FLOP/clk"; };
    const auto hertz = [](double v) { return with_prefix(v, "Hz"); };
    if (!a.family.empty()) w.out << "  arch.family = " << a.family << "\n";
    if (w.usable("arch.units", a.units.value)) w.figure("arch.units", number(a.units.value), a.units.source);
    w.figure("arch.clock", a.clock.value, a.clock.source, hertz);
    if (a.matrix_clock) w.figure("arch.matrix_clock", a.matrix_clock->value, a.matrix_clock->source, hertz);
    for (const auto& [p, f] : a.vector_per_clock) w.figure("arch.vector." + std::string(ir::precision_name(p)), f.value, f.source, per_clock);
    for (const auto& [p, f] : a.matrix_per_clock) w.figure("arch.matrix." + std::string(ir::precision_name(p)), f.value, f.source, per_clock);
    if (a.shared_memory) w.figure("arch.shared_memory", a.shared_memory->value, a.shared_memory->source, format_bytes);
    if (a.registers) w.figure("arch.registers", a.registers->value, a.registers->source, format_bytes);
    if (a.threads) w.figure("arch.threads", number(a.threads->value), a.threads->source);
    if (a.l2_bandwidth) w.figure("l2.bandwidth", a.l2_bandwidth->value, a.l2_bandwidth->source, format_bandwidth);
  }
  if (d.launch_overhead) w.figure("launch_overhead", d.launch_overhead->value, d.launch_overhead->source, format_seconds);
  if (d.price) w.figure("price", number(d.price->value) + " USD/h", d.price->source);
  for (const auto& [name, link] : d.links) {
    if (!w.usable("link." + name + ".bandwidth", link.bandwidth.value)) continue;   // a link needs its bandwidth
    w.figure("link." + name + ".bandwidth", format_bandwidth(link.bandwidth.value), link.bandwidth.source);
    if (link.latency) w.figure("link." + name + ".latency", link.latency->value, link.latency->source, format_seconds);
    if (link.efficiency) w.ppp("link." + name + ".efficiency", *link.efficiency);
  }
  for (const auto& [key, eff] : d.ppp) {
    std::string base = "ppp." + std::string(ir::op_class_name(key.first)) + ".";
    if (key.second) base += std::string(ir::pass_name(*key.second)) + ".";
    if (eff.compute) w.ppp(base + "compute", *eff.compute);
    else if (eff.compute_curve) w.curve(base + "compute", *eff.compute_curve, [](double v) { return with_prefix(v, "FLOP"); });
    if (eff.memory) w.ppp(base + "memory", *eff.memory);
    else if (eff.memory_curve) w.curve(base + "memory", *eff.memory_curve, format_bytes);
  }
  for (const auto& [p, f] : d.measured_peak) w.figure("measured." + std::string(ir::precision_name(p)), f.value, f.source, format_flops);
  if (d.measured_bandwidth) w.figure("measured.bandwidth", d.measured_bandwidth->value, d.measured_bandwidth->source, format_bandwidth);
  if (d.measured_threads) w.figure("measured.threads", number(d.measured_threads->value), d.measured_threads->source);
  if (d.count > 1) {
    w.out << "  system.count = " << d.count << "\n";
    if (!d.interconnect.empty()) w.out << "  system.interconnect = " << d.interconnect << "\n";
    if (d.node_size > 0) w.out << "  system.node_size = " << d.node_size << "\n";
    if (!d.node_interconnect.empty()) w.out << "  system.node_interconnect = " << d.node_interconnect << "\n";
    if (!d.torus.empty()) {
      std::string dims;
      for (const int t : d.torus) dims += (dims.empty() ? "" : "x") + std::to_string(t);
      w.out << "  system.torus = \"" << dims << "\"  source " << quoted(d.torus_source) << "\n";
    }
  }
  if (d.step_overhead) w.figure("system.step_overhead", d.step_overhead->value, d.step_overhead->source, format_seconds);
  if (d.first_touch) w.figure("allocator.first_touch", d.first_touch->value, d.first_touch->source, format_bandwidth);
  if (d.mmap_threshold) w.figure("allocator.mmap_threshold", d.mmap_threshold->value, d.mmap_threshold->source, format_bytes);
  for (const auto& line : d.provenance) w.out << "  provenance = " << quoted(line) << "\n";
  if (!w.dropped.empty()) {
    std::string line = "left out (not a positive figure):";
    for (const auto& k : w.dropped) line += " " + k;
    w.out << "  provenance = " << quoted(line) << "\n";
  }
  w.out << "}\n";
  return w.out.str();
}

}  // namespace ridge::validate

#include "lang/hw/units.hpp"

#include <array>
#include <utility>

namespace ridge::lang::hw {
namespace {

struct Prefix {
  std::string_view symbol;
  double factor;
};

// SI prefixes for every rate, bandwidth and size. 'E' is there for exascale systems.
constexpr std::array<Prefix, 7> kDecimal{{{"", 1.0}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12},
                                           {"P", 1e15}, {"E", 1e18}}};
// Binary prefixes: memory is sold in GiB (and vendors often write "GB" meaning GiB, which is why
// the catalogue uses whichever the datasheet means).
constexpr std::array<Prefix, 5> kBinary{{{"Ki", 1024.0},
                                          {"Mi", 1024.0 * 1024.0},
                                          {"Gi", 1024.0 * 1024.0 * 1024.0},
                                          {"Ti", 1024.0 * 1024.0 * 1024.0 * 1024.0},
                                          {"Pi", 1024.0 * 1024.0 * 1024.0 * 1024.0 * 1024.0}}};
// Times take the sub-second prefixes only: nobody writes a kilosecond launch overhead.
constexpr std::array<Prefix, 4> kTime{{{"", 1.0}, {"m", 1e-3}, {"u", 1e-6}, {"n", 1e-9}}};

template <std::size_t N>
std::optional<double> prefix_factor(const std::array<Prefix, N>& table, std::string_view prefix) {
  for (const auto& p : table)
    if (p.symbol == prefix) return p.factor;
  return std::nullopt;
}

// `text` = PREFIX + `base`? Then the factor of that prefix from the tables given.
template <class... Tables>
std::optional<double> with_base(std::string_view text, std::string_view base, const Tables&... tables) {
  if (text.size() < base.size() || text.substr(text.size() - base.size()) != base) return std::nullopt;
  const std::string_view prefix = text.substr(0, text.size() - base.size());
  std::optional<double> factor;
  ((factor = factor ? factor : prefix_factor(tables, prefix)), ...);
  return factor;
}

}  // namespace

std::optional<Unit> parse_unit(std::string_view text) {
  if (text == "%") return Unit{Dimension::Fraction, 0.01};
  for (const std::string_view base : {"FLOP/s", "OP/s"})
    if (auto f = with_base(text, base, kDecimal)) return Unit{Dimension::Rate, *f};
  if (auto f = with_base(text, "B/s", kDecimal, kBinary)) return Unit{Dimension::Bandwidth, *f};
  // Network links are quoted in bits per second (100 Gb/s InfiniBand); 8 bits to the byte.
  for (const std::string_view base : {"bit/s", "b/s"})
    if (auto f = with_base(text, base, kDecimal)) return Unit{Dimension::Bandwidth, *f / 8.0};
  if (auto f = with_base(text, "B", kDecimal, kBinary)) return Unit{Dimension::Size, *f};
  for (const std::string_view base : {"FLOP", "OP"})
    if (auto f = with_base(text, base, kDecimal)) return Unit{Dimension::Work, *f};
  if (auto f = with_base(text, "s", kTime)) return Unit{Dimension::Time, *f};
  if (auto f = with_base(text, "Hz", kDecimal)) return Unit{Dimension::Frequency, *f};
  for (const std::string_view base : {"FLOP/clk", "OP/clk", "B/clk"})
    if (text == base) return Unit{Dimension::PerClock, 1.0};
  if (text == "USD/h") return Unit{Dimension::Price, 1.0};
  return std::nullopt;
}

std::string_view dimension_noun(Dimension d) {
  switch (d) {
    case Dimension::Rate: return "a rate";
    case Dimension::Bandwidth: return "a bandwidth";
    case Dimension::Size: return "a size";
    case Dimension::Work: return "an amount of work";
    case Dimension::Time: return "a time";
    case Dimension::Fraction: return "a fraction";
    case Dimension::Frequency: return "a frequency";
    case Dimension::PerClock: return "work per clock";
    case Dimension::Price: return "a price";
  }
  return "a value";
}

std::string_view dimension_example(Dimension d) {
  switch (d) {
    case Dimension::Rate: return "19.5 TFLOP/s";
    case Dimension::Bandwidth: return "1555 GB/s";
    case Dimension::Size: return "40 GiB";
    case Dimension::Work: return "1 GFLOP";
    case Dimension::Time: return "5 us";
    case Dimension::Fraction: return "0.7' or '70 %";
    case Dimension::Frequency: return "1.41 GHz";
    case Dimension::PerClock: return "2048 FLOP/clk";
    case Dimension::Price: return "2.99 USD/h";
  }
  return "";
}

std::string suggest_unit(std::string_view text) {
  // The datasheet spellings that are not units here: TFLOPS, TOPS, GBps, sec, usec, GiB/sec.
  const std::pair<std::string_view, std::string_view> rewrites[] = {
      {"FLOPS", "FLOP/s"}, {"Flops", "FLOP/s"}, {"flops", "FLOP/s"}, {"FLOP", "FLOP/s"}, {"TOPS", "TOP/s"},
      {"OPS", "OP/s"},     {"Bps", "B/s"},      {"B/sec", "B/s"},   {"sec", "s"},       {"usec", "us"},
      {"msec", "ms"},      {"nsec", "ns"},    {"$/h", "USD/h"},  {"$/hr", "USD/h"},  {"USD/hr", "USD/h"},
      {"USD/hour", "USD/h"}};
  for (const auto& [wrong, right] : rewrites) {
    if (text.size() >= wrong.size() && text.substr(text.size() - wrong.size()) == wrong) {
      std::string candidate(text.substr(0, text.size() - wrong.size()));
      candidate += right;
      if (parse_unit(candidate)) return candidate;
    }
  }
  // Lower-case prefixes: "gb/s", "tflop/s", "gib".
  std::string upper(text);
  for (char& c : upper)
    if (c >= 'a' && c <= 'z' && c != 's' && c != 'i') c = static_cast<char>(c - 'a' + 'A');
  if (upper != text && parse_unit(upper)) return upper;
  return {};
}

}  // namespace ridge::lang::hw

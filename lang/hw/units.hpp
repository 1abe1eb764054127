// Units of `.hw` figures: what `TFLOP/s`, `GiB`, `us` or `%` mean, as a dimension and a factor to
// SI base units (FLOP/s, B/s, B, s, plain fraction, USD/h). No Spirit here: the grammar keeps the unit as
// text and the checks ask this file what it means.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ridge::lang::hw {

enum class Dimension {
  Rate,       // FLOP/s (OP/s counts the same: int8 "TOPS" are operations per second)
  Bandwidth,  // B/s
  Size,       // B
  Work,       // FLOP (an op's size, for a PPP curve over size)
  Time,       // s
  Fraction,   // no unit, or %
  Frequency,  // Hz
  PerClock,   // FLOP (or B) per clock cycle: a microarchitecture's work per unit per clock
  Price,      // US dollars per hour: what renting one device costs
};

struct Unit {
  Dimension dimension;
  double scale;  // multiply the number by this to get SI base units
};

// The unit spelled `text` ("TFLOP/s", "GiB", "%"), or nothing if there is no such unit.
std::optional<Unit> parse_unit(std::string_view text);

// "a rate", "a bandwidth", ... and an example, for "expected a size such as '40 GiB'".
std::string_view dimension_noun(Dimension d);
std::string_view dimension_example(Dimension d);

// What an unknown unit was probably meant to be ("TFLOPS" -> "TFLOP/s"), or empty.
std::string suggest_unit(std::string_view text);

}  // namespace ridge::lang::hw

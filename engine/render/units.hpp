// Numbers for people: SI prefixes and units ("1.81 GMAC", "11.7 M", "3.42 ms", "1.56 TB/s").
// Decimal prefixes for rates and traffic (1 MB = 1e6 B), as datasheets quote bandwidth and peaks;
// binary ones for memory sizes ("40.0 GiB"), as memory is sold and as nvidia-smi and torch report it.
#pragma once

#include "lang/ir/device.hpp"

#include <string>
#include <string_view>

namespace ridge::engine::render {

// Three significant digits and the prefix that puts the mantissa in [1, 1000): si(1.81e9, "MAC")
// gives "1.81 GMAC"; si(0.00342, "s") "3.42 ms"; si(0, "B") "0 B". Non-finite values print as "-".
std::string si(double value, std::string_view unit);

// A memory size with binary prefixes and three significant digits: memory(42949672960) gives
// "40.0 GiB", memory(600e6) "572 MiB", memory(512) "512 B".
std::string memory(double bytes);

// "OP/s" for integer precisions, "FLOP/s" for the others (an int8 peak is not floating point).
std::string_view rate_unit(ir::Precision p);
// "OP/B" or "FLOP/B", likewise, for arithmetic intensity and ridge points.
std::string_view intensity_unit(ir::Precision p);

// Whole counts below 10^4 verbatim, larger ones with a prefix: params read better as "11.7 M".
std::string count(double value);

// A fraction as a percentage with one decimal: percent(0.125) "12.5%"; spaced "12.5 %"; signed "+12.5 %".
std::string percent(double fraction, bool spaced = false, bool sign = false);
// A number with `digits` decimals: fixed(3.14159, 2) "3.14".
std::string fixed(double value, int digits);

// Ratios such as arithmetic intensity: below 1 as plain decimals ("0.250 FLOP/B", not "250 mFLOP/B"),
// above as si().
std::string ratio(double value, std::string_view unit);

}  // namespace ridge::engine::render

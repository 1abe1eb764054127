// Numbers for people: SI prefixes and units ("1.81 GMAC", "11.7 M", "3.42 ms", "1.56 TB/s").
// Decimal prefixes throughout (1 MB = 1e6 B), as datasheets quote bandwidth and peaks.
#pragma once

#include <string>
#include <string_view>

namespace ridge::engine::render {

// Three significant digits and the prefix that puts the mantissa in [1, 1000): si(1.81e9, "MAC")
// gives "1.81 GMAC"; si(0.00342, "s") "3.42 ms"; si(0, "B") "0 B". Non-finite values print as "-".
std::string si(double value, std::string_view unit);

// Whole counts below 10^4 verbatim, larger ones with a prefix: params read better as "11.7 M".
std::string count(double value);

// Ratios such as arithmetic intensity: below 1 as plain decimals ("0.250 FLOP/B", not "250 mFLOP/B"),
// above as si().
std::string ratio(double value, std::string_view unit);

}  // namespace ridge::engine::render

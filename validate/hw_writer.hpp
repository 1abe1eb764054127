// Writes an ir::Device as `.hw` text (docs/language.md), the inverse of lang::parse_device: what it
// writes parses back to an equal device, up to the printed precision of each figure.
#pragma once

#include "lang/ir/device.hpp"

#include <string>

namespace ridge::validate {

// `header` lines are written as `#` comments above the device (e.g. how the file was made).
std::string write_hw(const ir::Device& device, const std::string& header = {});

// "19.5 TFLOP/s", "1.555 TB/s", "40 GiB", "5 us": the value scaled to a prefix that keeps it in
// [1, 1000) (binary prefixes for sizes), with 6 significant digits.
std::string format_flops(double flop_per_s);
std::string format_bandwidth(double bytes_per_s);
std::string format_bytes(double bytes);
std::string format_seconds(double seconds);

}  // namespace ridge::validate

// The language's façade: text (or a file) in, IR or diagnostics out. No other folder includes a
// Spirit header; everything the rest of Ridge needs from the syntax goes through here.
#pragma once

#include "diagnostics.hpp"
#include "ir/device.hpp"
#include "ir/network.hpp"

#include <map>
#include <string>
#include <vector>

namespace ridge::lang {

// Values given from outside the file (`simulate --set classes=10`): they replace the defaults of the
// network's parameters. Naming a parameter the network does not have is an error.
using Overrides = std::map<std::string, std::string>;

// Parse and elaborate a `.net` text. `file` names it in diagnostics. Throws lang::Error.
ir::Network parse_network(const std::string& text, const std::string& file, const Overrides& overrides = {});
// Parse and check a `.hw` text. Throws lang::Error.
ir::Device parse_device(const std::string& text, const std::string& file);

// The same for files on disk; unreadable, missing, oversized or binary files are diagnostics too.
ir::Network load_network(const std::string& path, const Overrides& overrides = {});
ir::Device load_device(const std::string& path);

// The parameters a `.net` file's network declares (what --set may name), in declaration order. Parses
// the file but does not elaborate it. Throws lang::Error for a file that does not parse.
std::vector<std::string> network_parameters(const std::string& path);

// Reads a whole source file, refusing what cannot be source text (see limits in the README).
std::string read_source(const std::string& path);
inline constexpr std::size_t kMaxSourceBytes = 4 * 1024 * 1024;

}  // namespace ridge::lang

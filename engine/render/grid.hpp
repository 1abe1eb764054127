// A plain-text table: rows of cells (the first row the header, ruled off below it), two spaces apart,
// every cell made printable and cut to kMaxCell. The first column left-aligned when it holds names,
// the rest right-aligned.
#pragma once

#include <string>
#include <vector>

namespace ridge::engine::render {

std::string grid(const std::vector<std::vector<std::string>>& rows, bool first_left = true);

}  // namespace ridge::engine::render

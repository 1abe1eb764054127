#include "engine/render/grid.hpp"
#include "engine/render/json_writer.hpp"

#include <algorithm>

namespace ridge::engine::render {

// The first column left-aligned when it holds names, the rest right-aligned, two spaces apart.
std::string grid(const std::vector<std::vector<std::string>>& raw_rows, bool first_left) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& raw : raw_rows) {
    std::vector<std::string>& row = rows.emplace_back();
    for (const std::string& c : raw) row.push_back(table_cell(c));
  }
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (std::size_t c = 0; c < rows[r].size(); ++c) {
      const std::string& cell = rows[r][c];
      const std::string fill(width[c] - cell.size(), ' ');
      line += (c ? "  " : "") + (c == 0 && first_left ? cell + fill : fill + cell);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    if (r == 0) {
      std::size_t total = 0;
      for (const std::size_t w : width) total += w + 2;
      out += std::string(total - 2, '-') + "\n";
    }
  }
  return out;
}

}  // namespace ridge::engine::render

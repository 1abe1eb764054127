// Byte offsets in a source text to diagnostics: file:line:col, the source line and a caret. The one
// position machinery of both languages (.net: net/, .hw: hw/error_handler.hpp) and of read_source().
#pragma once

#include "lang/diagnostics.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ridge::lang {

class SourceMap {
 public:
  SourceMap(std::string file, const std::string& text) : file_(std::move(file)), text_(text) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }

  const std::string& file() const { return file_; }
  const std::string& text() const { return text_; }

  // Binary search over line starts: every layer's origin asks, so a scan would be quadratic.
  SourceLocation location(std::size_t offset) const {
    const std::size_t end = offset < text_.size() ? offset : text_.size();
    const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), end) - 1;
    return {file_, static_cast<int>(it - line_starts_.begin()) + 1, static_cast<int>(end - *it) + 1};
  }

  // "file:line:col", what ir::Layer::origin holds.
  std::string origin(std::size_t offset) const {
    const SourceLocation l = location(offset);
    return file_ + ":" + std::to_string(l.line) + ":" + std::to_string(l.column);
  }

  // An error at `offset`, of the kind `id` (lang/diagnostic_ids.hpp).
  Diagnostic diagnostic(std::size_t offset, std::string_view id, std::string message) const {
    Diagnostic d;
    d.where = location(offset);
    d.message = std::move(message);
    d.source_line = line_of(text_, d.where.line);
    d.id = std::string(id);
    return d;
  }

  Note note(std::size_t offset, std::string message) const {
    const SourceLocation where = location(offset);
    return Note{where, std::move(message), line_of(text_, where.line)};
  }

  // Where an error found "at the end of the file" should point: just after the last token, so the
  // caret sits on a line the reader can see rather than on an empty last line.
  std::size_t end_of_text() const {
    std::size_t end = text_.size();
    while (end > 0 && (text_[end - 1] == ' ' || text_[end - 1] == '\t' || text_[end - 1] == '\n' ||
                       text_[end - 1] == '\r'))
      --end;
    return end;
  }

 private:
  std::string file_;
  const std::string& text_;
  std::vector<std::size_t> line_starts_;
};

}  // namespace ridge::lang

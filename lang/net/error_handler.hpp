// Positions for the `.net` parser: X3's annotate_on_success hands every position_tagged node to
// tag(), which records its source range, so the elaborator can later point diagnostics at a node.
// Syntax errors are not handled here: the parser throws x3::expectation_failure and
// parse_network.cpp turns it into a lang::Diagnostic.
#pragma once

#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>

#include <cstddef>
#include <optional>
#include <vector>

namespace ridge::lang::net {

template <typename Iterator>
class ErrorHandler {
 public:
  ErrorHandler(Iterator first, Iterator last) : first_(first), positions_(first, last) {}

  template <typename Ast>
  void tag(Ast& ast, Iterator first, Iterator last) {
    positions_.annotate(ast, first, last);
  }

  // Byte offset of a node's first character, when the parser tagged it.
  std::optional<std::size_t> offset_of(const boost::spirit::x3::position_tagged& node) const {
    if (node.id_first < 0 || static_cast<std::size_t>(node.id_first) >= positions_.get_positions().size())
      return std::nullopt;
    return static_cast<std::size_t>(positions_.position_of(node).begin() - first_);
  }

 private:
  Iterator first_;
  boost::spirit::x3::position_cache<std::vector<Iterator>> positions_;
};

}  // namespace ridge::lang::net

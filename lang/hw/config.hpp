// The one place that fixes the iterator, skipper and context types of the `.hw` grammar. The
// context must be exactly the one parse_device() builds, or BOOST_SPIRIT_INSTANTIATE's symbol and
// the call site disagree and linking fails.
#pragma once

#include <boost/spirit/home/x3.hpp>
#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>

#include <functional>
#include <string>
#include <vector>

namespace ridge::lang::hw::parser {

namespace x3 = boost::spirit::x3;

using iterator_type = std::string::const_iterator;
using position_cache = x3::position_cache<std::vector<iterator_type>>;

// Whitespace (newlines included) and `#` comments to the end of the line. Explicit character sets:
// standard::space calls std::isspace on a plain char, which asserts on UTF-8 and garbage bytes, and
// ascii::char_ would stop a comment at the first UTF-8 byte.
inline const auto skipper = x3::standard::char_(" \t\r\n\f\v") | (x3::lit('#') >> *(x3::standard::char_ - x3::eol));
using skipper_type = std::remove_cv_t<decltype(skipper)>;

// Our own tag (not x3::error_handler_tag): the context carries the parse's state (recovery.hpp), the
// position cache that annotates the AST and the syntax errors the entries recovered from.
class ParseState;
struct parse_state_tag;
using phrase_context_type = x3::phrase_parse_context<skipper_type>::type;
using context_type = x3::context<parse_state_tag, std::reference_wrapper<ParseState>, phrase_context_type>;

}  // namespace ridge::lang::hw::parser

// The one place that fixes the `.net` parser's iterator, skipper and context types. The context must
// be exactly what parse_network.cpp builds around phrase_parse, or the instantiated rules will not link.
#pragma once

#include "lang/net/error_handler.hpp"

#include <boost/spirit/home/x3.hpp>
#include <boost/spirit/home/x3/support/utility/error_reporting.hpp>

#include <functional>
#include <string>

namespace ridge::lang::net::grammar {

namespace x3 = boost::spirit::x3;

using iterator_type = std::string::const_iterator;

// Whitespace (newlines included) and `#` comments separate tokens.
inline const auto skipper = x3::ascii::space | x3::lexeme['#' >> *(x3::char_ - x3::eol)];
using skipper_type = std::remove_cv_t<decltype(skipper)>;

using phrase_context_type = x3::phrase_parse_context<skipper_type>::type;
using error_handler_type = ErrorHandler<iterator_type>;
using context_type =
    x3::context<x3::error_handler_tag, std::reference_wrapper<error_handler_type>, phrase_context_type>;

}  // namespace ridge::lang::net::grammar

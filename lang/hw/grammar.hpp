// Declaration of the `.hw` grammar's start rule; the definition lives in grammar_def.hpp and is
// compiled once, in grammar.cpp.
#pragma once

#include "lang/hw/ast.hpp"

#include <boost/spirit/home/x3.hpp>

namespace ridge::lang::hw {
namespace parser {
namespace x3 = boost::spirit::x3;
struct file_class;
using file_type = x3::rule<file_class, ast::Device>;
BOOST_SPIRIT_DECLARE(file_type)
}  // namespace parser

// The whole file: one device declaration, then the end of the input.
const parser::file_type& file();

}  // namespace ridge::lang::hw

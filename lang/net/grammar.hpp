// The `.net` grammar's one entry rule. Its definition lives in grammar_def.hpp and is instantiated
// once, in grammar.cpp, so users of the rule compile without the grammar.
#pragma once

#include "lang/net/ast.hpp"

#include <boost/spirit/home/x3.hpp>

namespace ridge::lang::net::grammar {

namespace x3 = boost::spirit::x3;

struct file_class;
using file_type = x3::rule<file_class, ast::File>;
BOOST_SPIRIT_DECLARE(file_type)

const file_type& file();

}  // namespace ridge::lang::net::grammar

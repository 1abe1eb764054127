// The single translation unit that compiles the `.net` grammar.
#include "lang/net/config.hpp"
#include "lang/net/grammar_def.hpp"

namespace ridge::lang::net::grammar {

BOOST_SPIRIT_INSTANTIATE(file_type, iterator_type, context_type)

const file_type& file() { return file_rule; }

}  // namespace ridge::lang::net::grammar

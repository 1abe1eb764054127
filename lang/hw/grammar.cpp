// The one translation unit that compiles the `.hw` grammar.
#include "lang/hw/grammar_def.hpp"

namespace ridge::lang::hw {
namespace parser {
BOOST_SPIRIT_INSTANTIATE(file_type, iterator_type, context_type)
}  // namespace parser

const parser::file_type& file() { return parser::file; }
}  // namespace ridge::lang::hw

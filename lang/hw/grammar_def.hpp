// The `.hw` grammar (see docs/language.md, section `.hw`). Included only by grammar.cpp.
//
// Shape: `device "NAME" { KEY = VALUE [source "TEXT"] ... }`. Once a construct has started (the
// `device` keyword, a key, an opening quote) the rest is expected with `>`, so a mistake is reported
// where it is, with what was expected, rather than as a bare "parse failed". An entry that fails is
// recorded and skipped (recovery.hpp), so every entry's mistake is reported, not only the first.
#pragma once

#include "lang/hw/ast.hpp"
#include "lang/hw/ast_adapted.hpp"
#include "lang/hw/config.hpp"
#include "lang/hw/grammar.hpp"
#include "lang/hw/recovery.hpp"

#include <boost/spirit/home/x3.hpp>

#include <limits>

namespace ridge::lang::hw::parser {

namespace x3 = boost::spirit::x3;
using x3::lexeme;
using x3::lit;
using x3::standard::char_;

// Character classes as explicit sets, not x3::standard::alpha/alnum: those call std::isalpha on a
// plain char, which asserts (and is undefined) on the negative values of UTF-8 or garbage bytes.
const auto alpha = char_("a-zA-Z");
const auto alnum = char_("a-zA-Z0-9");

// Records the source range of every node whose rule id derives from this, so check.cpp can point at
// it. first is already past the skipped whitespace.
struct annotate_position {
  template <class T, class Iterator, class Context>
  void on_success(const Iterator& first, const Iterator& last, T& node, const Context& context) const {
    x3::get<parse_state_tag>(context).get().positions().annotate(node, first, last);
  }
};

// The rule that recovers from a syntax error inside it: the error is recorded and parsing goes on
// after the failed entry (ParseState::recover).
struct recovering {
  template <class Iterator, class Exception, class Context>
  x3::error_handler_result on_error(Iterator& first, const Iterator&, const Exception& x, const Context& context) const {
    return x3::get<parse_state_tag>(context).get().recover(first, x.where(), x.which());
  }
};

// Keywords are whole words: `devices` or `sourcefile` are not `device` / `source`.
inline auto keyword(const char* word) { return lexeme[lit(word) >> !(alnum | '_')]; }
// What the file declares: a device, or a runtime (the same language; hw/check.cpp reads each).
const auto declaration_keyword = lexeme[(x3::string("device") | x3::string("runtime")) >> !(alnum | '_')];
const auto kw_source = keyword("source");

// Numbers: the strict real parser refuses `nan`/`inf` so that `infiniband` stays a word; those
// spellings are recognised on their own (as whole words) so the checks can refuse them by name.
struct finite_policies : x3::real_policies<double> {
  template <class Iterator, class Attribute>
  static bool parse_nan(Iterator&, const Iterator&, Attribute&) { return false; }
  template <class Iterator, class Attribute>
  static bool parse_inf(Iterator&, const Iterator&, Attribute&) { return false; }
};
const x3::real_parser<double, finite_policies> finite_number{};
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A number written in range of no double (1e400): read as infinite, so that the checks say what is
// wrong with it, not the parser that no value was found (issue #41).
const auto out_of_range = x3::omit[lexeme[-(lit('+') | '-') >> +x3::digit >> -('.' >> *x3::digit) >> (lit('e') | 'E') >>
                                           -(lit('+') | '-') >> +x3::digit]] >>
                          x3::attr(kInf);
const auto non_finite = lexeme[(lit('-') >> keyword("inf") >> x3::attr(-kInf)) |
                               (-lit('+') >> keyword("inf") >> x3::attr(kInf)) |
                               (-(lit('+') | '-') >> keyword("nan") >> x3::attr(kNaN))];

struct identifier_class;
struct unit_text_class;
struct unit_class : annotate_position {};
struct quantity_class : annotate_position {};
struct text_class : annotate_position {};
struct string_class;
struct word_class : annotate_position {};
struct curve_point_class : annotate_position {};
struct curve_points_class;
struct curve_class : annotate_position {};
struct close_bracket_class;
struct value_class;
struct key_text_class;
struct key_class : annotate_position {};
struct entry_class : annotate_position {};
struct entry_item_class : recovering {};
struct device_class : annotate_position {};
struct source_tail_class;
struct escape_class;
struct close_quote_class;
struct close_brace_class;
struct end_class;

// Rule names are what an "expected ..." diagnostic says, so they are written for the reader.
const x3::rule<identifier_class, std::string> identifier = "a name";
const x3::rule<unit_text_class, std::string> unit_text = "a unit";
const x3::rule<unit_class, ast::Unit> unit = "a unit";
const x3::rule<quantity_class, ast::Quantity> quantity = "a number";
const x3::rule<string_class, std::string> string_literal = "a string in double quotes";
const x3::rule<text_class, ast::Text> text = "a string in double quotes";
const x3::rule<word_class, ast::Word> word = "a word";
const x3::rule<curve_point_class, ast::CurvePoint> curve_point = "a point 'SIZE: FRACTION' such as '1 GFLOP: 0.6'";
const x3::rule<curve_points_class, std::vector<ast::CurvePoint>> curve_points = "a curve '[SIZE: FRACTION, ...]'";
const x3::rule<curve_class, ast::Curve> curve = "a curve '[SIZE: FRACTION, ...]'";
const x3::rule<close_bracket_class> close_bracket = "',' and another point, or ']' to close the curve";
const x3::rule<value_class, ast::Value> value =
    "a value: a number with its unit ('19.5 TFLOP/s'), a \"string\", a word ('gpu') or a curve "
    "('[1 GFLOP: 0.6, 16 GFLOP: 0.9]')";
const x3::rule<key_text_class, std::string> key_text = "a key such as 'peak.fp32'";
const x3::rule<key_class, ast::Key> key = "a key such as 'peak.fp32'";
// An entry is tried where the device could also close, so what it expects is either.
const x3::rule<entry_class, ast::Entry> entry = "a key such as 'peak.fp32', or '}' to close the device";
const x3::rule<entry_item_class, ast::Entry> entry_item = "a key such as 'peak.fp32', or '}' to close the device";
const x3::rule<device_class, ast::Device> device = "a device declaration 'device \"NAME\" { ... }'";
const x3::rule<source_tail_class, ast::Text> source_tail = "source \"TEXT\"";
const x3::rule<escape_class, char> escape = "an escape: \\\" \\\\ \\n or \\t";
const x3::rule<close_quote_class> close_quote = "'\"' to close the string";
const x3::rule<close_brace_class> close_brace = "a key such as 'peak.fp32', or '}' to close the device";
const x3::rule<end_class> end_of_input = "the end of the file after the device's '}'";
const file_type file = "a device declaration 'device \"NAME\" { ... }'";

const auto identifier_def = lexeme[(alpha | char_('_')) >> *(alnum | char_('_'))];

// A unit is letters and '/' (TFLOP/s, GiB, us) or '%'. It must not swallow what follows a figure
// written without one: the next key (`l2.size`, `launch_overhead`, `kind =`) or `source "..."`.
const auto unit_text_def = !kw_source >>
                           ((lexeme[+char_("a-zA-Z/") >> !char_("a-zA-Z0-9_.")] >> !lit('=')) | x3::string("%"));
const auto unit_def = unit_text;
// The real parser is tried on a copy first (`&`): failing on an overflowing exponent it leaves the
// iterator where it stopped, and the alternatives after it would start from there.
const auto quantity_def = ((&finite_number >> finite_number) | non_finite | out_of_range) >> -unit;

inline x3::symbols<char> escapes() {
  x3::symbols<char> s;
  s.add("\"", '"')("\\", '\\')("n", '\n')("t", '\t');
  return s;
}
const auto escape_def = escapes();
// Through a std::string rule: ast::Text has one member, and X3 would otherwise try to treat the
// struct itself as the container of the characters.
const auto string_literal_def = lexeme['"' > *((lit('\\') > escape) | (char_ - '"' - '\\' - x3::eol)) > close_quote];
const auto text_def = string_literal;
const auto close_quote_def = lit('"');
const auto word_def = identifier;
// A PPP over op size: `[1 GFLOP: 0.6, 16 GFLOP: 0.9]`. Through a vector rule, as for text above.
const auto curve_point_def = quantity > ':' > quantity;
// Written out rather than as `curve_point % ','`: an unnamed list parser's failure would be reported
// with its C++ type name (issue #41: `[]` printed a mangled Boost.Spirit type).
const auto curve_points_def = '[' > curve_point > *(',' > curve_point) > close_bracket;
const auto curve_def = curve_points;
const auto close_bracket_def = lit(']');
const auto value_def = quantity | text | word | curve;

const auto key_text_def = lexeme[identifier >> *(char_('.') > identifier)];
const auto key_def = key_text;
const auto source_tail_def = kw_source >> !lit('=') > text;
const auto entry_def = key > '=' > value > -source_tail;
// What is not an entry is a syntax error inside the item (x3::expect), so the item's recovery catches
// it too ("@@@" on a line of its own); the lookaheads leave the '}' and the end of the file to the device.
const auto entry_item_def = x3::expect[entry];

const auto close_brace_def = lit('}');
const auto device_def = declaration_keyword > text > '{' > *(!lit('}') >> !x3::eoi >> entry_item) > close_brace;
const auto end_of_input_def = x3::eoi;
const auto file_def = x3::eps > device > end_of_input;

BOOST_SPIRIT_DEFINE(identifier, unit_text, unit, quantity, text, word, curve_point, curve_points, curve, close_bracket, value, key_text, key, string_literal, entry, entry_item, device,
                    source_tail, escape, close_quote, close_brace, end_of_input, file)

}  // namespace ridge::lang::hw::parser

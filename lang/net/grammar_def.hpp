// The `.net` grammar (see docs/language.md). Included only by grammar.cpp.
//
// Precedence is flat here (binary expressions are operand/operator lists folded by the elaborator),
// so the rule set stays small. Every construct that is committed by its first token continues with
// `>`, so a syntax error names what was expected where. Rule names are what error messages quote.
#pragma once

#include "lang/net/ast.hpp"
#include "lang/net/ast_adapted.hpp"
#include "lang/net/grammar.hpp"

#include <boost/spirit/home/x3.hpp>
#include <boost/spirit/home/x3/support/utility/annotate_on_success.hpp>

namespace ridge::lang::net::grammar {

namespace x3 = boost::spirit::x3;
using x3::alnum;
using x3::alpha;
using x3::char_;
using x3::lexeme;
using x3::lit;

// A keyword is a whole word: `input` is a keyword, `inputs` and `input_2` are names.
inline auto keyword(const char* word) { return lexeme[lit(word) >> !(alnum | '_')]; }

// Looked up in one pass (a ternary search tree, longest match) rather than as eleven literals tried in
// turn: every name is checked against them, two or three times over as alternatives backtrack. The
// longest match is what the literals matched, "input" being listed before "in".
const x3::symbols<> reserved_words({"block", "network", "input", "if", "else", "for", "in", "return", "true",
                                    "false", "as", "import"});
const auto reserved = lexeme[reserved_words >> !(alnum | '_')];

// Numbers are unsigned (a minus is an operator), never `nan`/`inf` (those are names), and `1.` is not a
// number, so `0..3` reads as 0 .. 3.
template <typename T>
struct NumberPolicies : x3::ureal_policies<T> {
  static constexpr bool allow_trailing_dot = false;
  template <typename Iterator, typename Attribute>
  static bool parse_nan(Iterator&, const Iterator&, Attribute&) { return false; }
  template <typename Iterator, typename Attribute>
  static bool parse_inf(Iterator&, const Iterator&, Attribute&) { return false; }
};
const x3::real_parser<double, NumberPolicies<double>> number_literal{};

// The rules that recover from a syntax error inside them: the error is recorded and parsing goes on
// after the failed statement (error_handler.hpp), so a file reports many syntax errors, not one.
struct recovering {
  template <typename Iterator, typename Exception, typename Context>
  x3::error_handler_result on_error(Iterator& first, const Iterator&, const Exception& x, const Context& context) {
    return x3::get<x3::error_handler_tag>(context).get().recover(first, x.where(), x.which());
  }
};

// Rule IDs: the ones whose nodes errors point at annotate their positions.
struct identifier_class : x3::annotate_on_success {};
struct number_class : x3::annotate_on_success {};
struct bool_class : x3::annotate_on_success {};
struct text_chars_class;
struct text_class : x3::annotate_on_success {};
struct operand_class : x3::annotate_on_success {};
struct unary_class : x3::annotate_on_success {};
struct binary_op_class : x3::annotate_on_success {};
struct binary_class : x3::annotate_on_success {};
struct cond_tail_class : x3::annotate_on_success {};
struct conditional_class : x3::annotate_on_success {};
struct arg_class : x3::annotate_on_success {};
struct args_class;
struct call_class : x3::annotate_on_success {};
struct link_class : x3::annotate_on_success {};
struct list_class : x3::annotate_on_success {};
struct group_class : x3::annotate_on_success {};
struct expr_class : x3::annotate_on_success {};
struct input_class : x3::annotate_on_success {};
struct assign_class : x3::annotate_on_success {};
struct branch_class : x3::annotate_on_success {};
struct branches_class;
struct if_class : x3::annotate_on_success {};
struct for_class : x3::annotate_on_success {};
struct return_class : x3::annotate_on_success {};
struct statement_class;
struct body_item_class : recovering {};
struct body_class;
struct loop_body_class;
struct param_class : x3::annotate_on_success {};
struct definition_class : x3::annotate_on_success {};
struct constant_class : x3::annotate_on_success {};
struct variant_class : x3::annotate_on_success {};
struct variant_base_class : x3::annotate_on_success {};
struct import_class : x3::annotate_on_success {};
struct top_level_class;
struct file_item_class : recovering {};
struct file_items_class;
struct index_class;
struct name_text_class;
struct binop_text_class;
struct prefix_class;
struct kind_class;
struct end_class;
struct eq_class;
struct in_class;
struct dots_class;
struct colon_class;

const x3::rule<name_text_class, std::string> name_text = "name";
const x3::rule<identifier_class, ast::Identifier> identifier = "name";
const x3::rule<number_class, ast::Number> number = "number";
const x3::rule<bool_class, ast::Bool> boolean = "true or false";
const x3::rule<text_chars_class, std::string> text_chars = "'\"'";
const x3::rule<text_class, ast::Text> text = "word in quotes";
const x3::rule<operand_class, ast::Operand> operand = "expression";
const x3::rule<prefix_class, std::string> prefix = "prefix";
const x3::rule<unary_class, ast::Unary> unary = "expression";
const x3::rule<binop_text_class, std::string> binop_text = "operator";
const x3::rule<binary_op_class, ast::BinaryOp> binary_op = "operator";
const x3::rule<binary_class, ast::Binary> binary = "expression";
const x3::rule<cond_tail_class, ast::ConditionalTail> cond_tail = "'?'";
const x3::rule<conditional_class, ast::Conditional> conditional = "expression";
const x3::rule<arg_class, ast::Arg> arg = "argument";
const x3::rule<args_class, std::vector<ast::Arg>> args = "arguments";
const x3::rule<call_class, ast::Call> call = "call";
const x3::rule<link_class, ast::Call> link = "op or block name";
const x3::rule<list_class, ast::List> list = "list";
const x3::rule<group_class, ast::Group> group = "'('";
const x3::rule<expr_class, ast::Expr> expr = "expression";
const x3::rule<input_class, ast::Input> input_stmt = "input";
const x3::rule<assign_class, ast::Assign> assign = "assignment";
const x3::rule<branch_class, ast::Branch> branch = "condition";
const x3::rule<branches_class, std::vector<ast::Branch>> branches = "condition";
const x3::rule<if_class, ast::If> if_stmt = "if";
const x3::rule<for_class, ast::For> for_stmt = "for";
const x3::rule<return_class, ast::Return> return_stmt = "return";
const x3::rule<statement_class, ast::Statement> statement = "a statement or '}'";
const x3::rule<body_item_class, ast::Statement> body_item = "a statement or '}'";
const x3::rule<body_class, ast::Body> body = "'{'";
const x3::rule<loop_body_class, ast::Body> loop_body = "'..' or '{'";
const x3::rule<param_class, ast::Param> param = "parameter";
const x3::rule<definition_class, ast::Definition> definition = "definition";
const x3::rule<constant_class, ast::Assign> constant = "constant";
const x3::rule<variant_class, ast::NetworkVariant> network_variant = "network variant";
const x3::rule<variant_base_class, ast::Call> variant_base = "a network and its new defaults, as NAME(param: value, ...)";
const x3::rule<import_class, ast::Import> import_stmt = "import";
const x3::rule<top_level_class, ast::TopLevel> top_level = "'import', 'block', 'network' or NAME = VALUE";
const x3::rule<file_item_class, ast::TopLevel> file_item = "'import', 'block', 'network' or NAME = VALUE";
const x3::rule<file_items_class, std::vector<ast::TopLevel>> file_items = "'import', 'block', 'network' or NAME = VALUE";
const x3::rule<index_class, ast::Expr> index = "index";
const x3::rule<kind_class, std::string> kind = "'block' or 'network'";
const x3::rule<end_class> end_of_file = "'import', 'block', 'network' or NAME = VALUE";
const x3::rule<eq_class> assign_eq = "'='";
const x3::rule<in_class> in_kw = "'in'";
const x3::rule<dots_class> dots = "'..'";
const x3::rule<colon_class> colon = "':'";
const file_type file_rule = "file";

const auto name_text_def = lexeme[(alpha | char_('_')) >> *(alnum | char_('_'))] - reserved;
const auto identifier_def = name_text;
const auto number_def = lexeme[number_literal >> !(alpha | '_')];
const auto boolean_def = (keyword("true") >> x3::attr(true)) | (keyword("false") >> x3::attr(false));
// A quoted word on one line, no escapes: mode names, not prose. (A one-member struct takes its
// attribute from a plain string rule, as identifier does.)
const auto text_chars_def = lexeme['"' > *(char_ - '"' - '\n' - '\r' - '\\') > '"'];
const auto text_def = text_chars;

// Longest operators first, and `-` is not the start of `->`.
// The lookahead on the first character first: binop_text is tried after every operand, most of them
// followed by ',' or ')', and fourteen literals each failing in turn were a visible part of parsing.
const auto binop_text_def = &char_("|&=!<>+*/%-") >>   // '-' last: elsewhere it makes a range
                            (x3::string("||") | x3::string("&&") | x3::string("==") | x3::string("!=") |
                             x3::string("<=") | x3::string(">=") | x3::string("<") | x3::string(">") |
                             x3::string("+") | (x3::string("-") >> !lit('>')) | x3::string("*") |
                             x3::string("//") | x3::string("/") | x3::string("%"));
const auto prefix_def = *((char_('-') >> !lit('>')) | (char_('!') >> !lit('=')));

const auto args_def = '(' > -(arg % ',') > ')';
// The lookahead keeps a failed keyword attempt (`f(planes, 3)`) from leaving a half-filled keyword.
const auto arg_def = -(&(name_text >> ':') >> identifier >> ':') >> expr;
const auto call_def = identifier >> args >> -(keyword("as") > identifier);
const auto link_def = identifier >> -args >> -(keyword("as") > identifier);
// A trailing comma is allowed after the last item, so a table may be written one row per line.
const auto list_def = '[' > -((expr % ',') >> -lit(',')) > ']';
const auto group_def = '(' > expr > ')';
const auto operand_def = number | boolean | text | call | identifier | list | group;
// `xs[i][j]`: indices bind tighter than the prefixes. No statement starts with '[', so a '[' after an
// operand is always an index, even on the next line.
const auto index_def = '[' > expr > ']';
const auto unary_def = prefix >> operand >> *index;
const auto binary_op_def = binop_text > unary;
const auto binary_def = unary >> *binary_op;
const auto cond_tail_def = '?' > expr > colon > binary;
const auto conditional_def = binary >> *cond_tail;
const auto expr_def = conditional >> *(lit("->") > link);

const auto assign_eq_def = lit('=') >> !lit('=');
const auto in_kw_def = keyword("in");
const auto dots_def = lit("..");
const auto colon_def = lit(':');
const auto input_stmt_def = keyword("input") > identifier > colon > expr;
const auto assign_def = (identifier % ',') > assign_eq > expr;
const auto branch_def = expr > body;
const auto branches_def = branch >> *(keyword("else") >> keyword("if") > branch);
const auto if_stmt_def = keyword("if") > branches >> -(keyword("else") > body);
// `for i in FROM .. TO { }` or `for x in LIST { }`.
const auto for_stmt_def = keyword("for") > identifier > in_kw > expr > -(dots > expr) > loop_body;
const auto return_stmt_def = keyword("return") > expr;
const auto statement_def = input_stmt | if_stmt | for_stmt | return_stmt | assign;
// An item that is not a statement is a syntax error inside the item (x3::expect), so the item's
// recovery catches it too; the '}' lookahead ends the body.
const auto body_item_def = x3::expect[statement];
const auto body_def = '{' > *(!lit('}') >> body_item) > '}';
const auto loop_body_def = body;

const auto param_def = identifier >> -('=' > expr);
const auto kind_def = lexeme[(x3::string("block") | x3::string("network")) >> !(alnum | '_')];
const auto definition_def = kind > identifier > -('(' > -(param % ',') > ')') > body;
const auto end_of_file_def = x3::eoi;
// A file-level constant commits only at `NAME =`, so `netwrk n {}` still reads as a misspelt keyword.
const auto constant_def = (identifier % ',') >> assign_eq > expr;
// `network NAME =` commits to a variant; `network NAME (` or `{` backtracks to a definition.
const auto network_variant_def = keyword("network") >> identifier >> assign_eq > variant_base;
const auto variant_base_def = (identifier > args) >> -(keyword("as") > identifier);
const auto import_stmt_def = keyword("import") > text;
const auto top_level_def = network_variant | definition | import_stmt | constant;
const auto file_item_def = x3::expect[top_level];
const auto file_items_def = *(!end_of_file >> file_item);
const auto file_rule_def = file_items > end_of_file;

BOOST_SPIRIT_DEFINE(name_text, identifier, number, boolean, text_chars, text, operand, prefix, unary, binop_text, binary_op,
                    binary, cond_tail, conditional, arg, args, call, link, list, group, expr, input_stmt,
                    assign, branch, branches, if_stmt, for_stmt, return_stmt, statement, body, param, kind,
                    definition, end_of_file, assign_eq, in_kw, dots, colon, constant, network_variant, variant_base, import_stmt, top_level, index, loop_body,
                    body_item, file_item, file_items, file_rule)

}  // namespace ridge::lang::net::grammar

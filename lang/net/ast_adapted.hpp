// Fusion adaptation of the `.net` syntax tree, so X3 can fill the structs from sequences.
#pragma once

#include "lang/net/ast.hpp"

#include <boost/fusion/include/adapt_struct.hpp>

BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Identifier, name)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Number, value)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Bool, value)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Text, value)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Unary, prefix, operand, indices)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::BinaryOp, op, rhs)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Binary, first, rest)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::ConditionalTail, then, otherwise)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Conditional, head, tails)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Arg, keyword, value)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Call, callee, args, label)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::List, items)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Group, inner)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Expr, head, links)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Input, name, shape)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Assign, targets, value)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Branch, condition, body)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::If, branches, otherwise)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::For, var, from, to, body)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Return, value)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Param, name, default_value)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Definition, kind, name, params, body)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::NetworkVariant, name, base)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::Import, path)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::net::ast::File, items)

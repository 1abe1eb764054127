// Fusion adaptation of the `.hw` AST, so X3 can fill the structs member by member.
#pragma once

#include "lang/hw/ast.hpp"

#include <boost/fusion/include/adapt_struct.hpp>

BOOST_FUSION_ADAPT_STRUCT(ridge::lang::hw::ast::Unit, text)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::hw::ast::Quantity, number, unit)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::hw::ast::Text, text)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::hw::ast::Word, text)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::hw::ast::CurvePoint, size, fraction)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::hw::ast::Curve, points)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::hw::ast::Key, text)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::hw::ast::Entry, key, value, source)
BOOST_FUSION_ADAPT_STRUCT(ridge::lang::hw::ast::Device, what, name, entries)

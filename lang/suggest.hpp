// "Did you mean ...?" for both grammars: the known name a misspelt one most likely stands for, offered
// only when it is close for the name's length, as clang's typo correction does. A suggestion that is
// wrong ("'mish' (did you mean 'min'?)") misleads more than none.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::lang {

// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`: optimal string
// alignment distance, so "lienar" is one edit from "linear".
std::size_t typo_distance(std::string_view a, std::string_view b);

// The closest of `known` to `name`, or "" when none is close enough: at most one edit per three
// characters of the longer of the two (at least one), so "conv2d" finds "conv" and "cnv" finds "conv"
// but "mish" does not find "min" nor "pad" "max"; never for a name of two characters or fewer or
// longer than 64; ties go to the first in `known`.
std::string closest_name(std::string_view name, const std::vector<std::string>& known);

}  // namespace ridge::lang

// The op-class table (lang/ir/op_classes.hpp, issue #34): whole and consistent, its checks refusing a
// broken table, and every column holding what the code it replaced held (the switches in
// engine/timing.cpp, lang/ir/device.cpp and engine/render/svg_roofline.cpp before the table).
#include "lang/ir/op_classes.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

using namespace ridge::ir;

namespace {

// Whether V is a value the enum names. C++ cannot list an enum's values, but GCC and Clang spell a
// named value in a template's signature by its name (ridge::ir::OpClass::MatMul) and any other as a
// cast ((ridge::ir::OpClass)8): the enum's last value missing its row shows here, where the table's
// own checks cannot see it.
template <OpClass V>
constexpr bool names_a_value() {
  return std::string_view(__PRETTY_FUNCTION__).find("(ridge::ir::OpClass)") == std::string_view::npos;
}
template <std::size_t... I>
constexpr std::size_t named_values(std::index_sequence<I...>) {
  return (std::size_t{0} + ... + (names_a_value<static_cast<OpClass>(I)>() ? 1 : 0));
}
// Values 0 .. kOpClassCount + 7: a value added to the enum past the rows is among them.
constexpr std::size_t kNamedValues = named_values(std::make_index_sequence<kOpClassCount + 8>{});

using op_class_checks::Rows;

}  // namespace

TEST_CASE("every OpClass value has exactly one row of the op-class table, in enum order") {
#if defined(__GNUC__) || defined(__clang__)
  STATIC_REQUIRE(names_a_value<OpClass::MatMul>());   // the compiler spells values as assumed
  STATIC_REQUIRE_FALSE(names_a_value<static_cast<OpClass>(kOpClassCount)>());
  CHECK(kNamedValues == kOpClassCount);
#endif
  CHECK(kOpClassCount == kOpClasses.size());
  REQUIRE(all_op_classes().size() == kOpClassCount);
  for (std::size_t i = 0; i < kOpClassCount; ++i) {
    CAPTURE(i);
    CHECK(static_cast<std::size_t>(kOpClasses[i].op_class) == i);
    CHECK(all_op_classes()[i] == kOpClasses[i].op_class);
    CHECK(&op_class_row(kOpClasses[i].op_class) == &kOpClasses[i]);
  }
  CHECK_THROWS_AS(op_class_row(static_cast<OpClass>(kOpClassCount)), std::out_of_range);
  CHECK(op_class_name(static_cast<OpClass>(kOpClassCount)) == "?");
}

TEST_CASE("op-class names are unique and read both ways") {
  std::set<std::string_view> names, labels;
  std::string joined;
  for (const OpClassRow& row : kOpClasses) {
    CAPTURE(row.name);
    CHECK(names.insert(row.name).second);
    CHECK(labels.insert(row.plot_label).second);   // two classes alike in the legend could not be told apart
    CHECK(op_class_name(row.op_class) == row.name);
    CHECK(op_class_from_name(row.name) == row.op_class);
    joined += (joined.empty() ? "" : "|") + std::string(row.name);
  }
  CHECK(op_class_names("|") == joined);
  CHECK_FALSE(op_class_from_name("conv"));
  CHECK_FALSE(op_class_from_name(""));
}

TEST_CASE("op-class fallback chains end without a cycle and reach a default PPP") {
  std::size_t longest = 0;
  for (const OpClassRow& row : kOpClasses) {
    CAPTURE(row.name);
    std::set<OpClass> seen;
    std::optional<OpClass> c = row.op_class;
    for (; c && seen.insert(*c).second; c = op_class_fallback(*c)) {}
    CHECK_FALSE(c);   // the chain ended, not back at a class it had passed
    longest = std::max(longest, seen.size());
    // A chain ends at a class with a default of its own: the one its classes take.
    std::optional<OpClass> last = row.op_class;
    while (op_class_fallback(*last)) last = op_class_fallback(*last);
    REQUIRE(op_class_row(*last).default_ppp);
    if (!row.default_ppp) CHECK(op_class_default_ppp(row.op_class) == *op_class_row(*last).default_ppp);
    const DefaultPpp d = op_class_default_ppp(row.op_class);
    CHECK((d.compute > 0.0 && d.compute <= 1.0 && d.memory > 0.0 && d.memory <= 1.0));
  }
  CHECK(kLongestOpClassChain == longest);
}

TEST_CASE("the op-class table's checks refuse a broken table") {
  const auto row = [](OpClass c, std::string_view name, std::optional<OpClass> fallback,
                      std::optional<DefaultPpp> ppp) {
    return OpClassRow{c, name, fallback, ppp, false, true, name};
  };
  constexpr DefaultPpp half{0.5, 0.5};
  const std::array good{row(OpClass::MatMul, "a", std::nullopt, half), row(OpClass::Elementwise, "b", OpClass::MatMul, std::nullopt)};
  CHECK(op_class_checks::rows_in_enum_order(good));
  CHECK(op_class_checks::names_unique_and_labelled(good));
  CHECK(op_class_checks::fallbacks_end(good));
  CHECK(op_class_checks::defaults_reached(good));
  CHECK(op_class_checks::chain_length(good, OpClass::Elementwise) == 2);

  const std::array swapped{good[1], good[0]};
  CHECK_FALSE(op_class_checks::rows_in_enum_order(swapped));
  const std::array same_name{good[0], row(OpClass::Elementwise, "a", std::nullopt, half)};
  CHECK_FALSE(op_class_checks::names_unique_and_labelled(same_name));
  const std::array unnamed{good[0], row(OpClass::Elementwise, "", std::nullopt, half)};
  CHECK_FALSE(op_class_checks::names_unique_and_labelled(unnamed));
  const std::array cycle{row(OpClass::MatMul, "a", OpClass::Elementwise, half), row(OpClass::Elementwise, "b", OpClass::MatMul, half)};
  CHECK_FALSE(op_class_checks::fallbacks_end(cycle));
  const std::array to_itself{row(OpClass::MatMul, "a", OpClass::MatMul, half)};
  CHECK_FALSE(op_class_checks::fallbacks_end(to_itself));
  const std::array to_no_row{row(OpClass::MatMul, "a", OpClass::Pooling, half)};
  CHECK_FALSE(op_class_checks::fallbacks_end(to_no_row));
  const std::array no_default{good[0], row(OpClass::Elementwise, "b", std::nullopt, std::nullopt)};
  CHECK_FALSE(op_class_checks::defaults_reached(no_default));
  const std::array over_one{row(OpClass::MatMul, "a", std::nullopt, DefaultPpp{0.5, 1.5})};
  CHECK_FALSE(op_class_checks::defaults_reached(over_one));
  CHECK_FALSE(op_class_checks::defaults_reached(cycle));
}

// The behaviour before the table, pinned column by column: the names of device.cpp's name table,
// op_class_fallback's switch, default_ppp's switch (timing.cpp), streams' switch (timing.cpp), the
// matmul-only matrix peak (timing.cpp, op_costs.cpp) and class_label's switch (svg_roofline.cpp).
TEST_CASE("the op-class table holds what the switches it replaced held") {
  struct Was {
    OpClass c;
    std::string_view name;
    std::optional<OpClass> fallback;
    DefaultPpp ppp;   // after the fallbacks
    bool matrix_unit, streams;
    std::string_view label;
  };
  const std::array<Was, 11> was{{
      {OpClass::MatMul, "matmul", std::nullopt, {0.5, 0.8}, true, false, "conv / linear / matmul"},
      {OpClass::Elementwise, "elementwise", std::nullopt, {0.5, 0.8}, false, true, "elementwise"},
      {OpClass::Normalization, "normalization", std::nullopt, {0.5, 0.6}, false, true, "normalisation"},
      {OpClass::Pooling, "pooling", std::nullopt, {0.5, 0.7}, false, true, "pooling"},
      {OpClass::DataMovement, "data_movement", std::nullopt, {0.5, 0.8}, false, true, "data movement"},
      {OpClass::Depthwise, "depthwise", OpClass::MatMul, {0.5, 0.8}, false, false, "depthwise conv"},
      {OpClass::DepthwiseLarge, "depthwise_large", OpClass::Depthwise, {0.5, 0.8}, false, false,
       "depthwise conv, window over 3x3"},
      {OpClass::Reduction, "reduction", OpClass::Pooling, {0.5, 0.7}, false, true, "reduction (global pool, mean, sum)"},
      {OpClass::Pointwise, "pointwise", OpClass::MatMul, {0.5, 0.8}, true, false, "1x1 conv"},
      {OpClass::NarrowConv, "narrow_conv", OpClass::MatMul, {0.5, 0.8}, false, false, "conv, few input channels (CUDA cores)"},
      {OpClass::PointwiseNative, "pointwise_native", OpClass::Pointwise, {0.5, 0.8}, false, false,
       "1x1 conv, LibTorch's native GEMM (one thread)"},
  }};
  REQUIRE(kOpClassCount == was.size());
  for (const Was& w : was) {
    CAPTURE(w.name);
    const OpClassRow& row = op_class_row(w.c);
    CHECK(row.name == w.name);
    CHECK(row.fallback == w.fallback);
    CHECK(op_class_default_ppp(w.c) == w.ppp);
    CHECK(row.matrix_unit == w.matrix_unit);
    CHECK(row.streams == w.streams);
    CHECK(row.plot_label == w.label);
  }
  CHECK(op_class_names() ==
        "matmul, elementwise, normalization, pooling, data_movement, depthwise, depthwise_large, reduction, pointwise, "
        "narrow_conv, pointwise_native");
}

// A new class's .hw key is documented where a reader looks for it: the ppp.CLASS row of the .hw
// reference names every class, in the table's order.
TEST_CASE("docs/language.md's ppp.CLASS row names every op class") {
  std::ifstream in(std::string(RIDGE_SOURCE_DIR) + "/docs/language.md");
  REQUIRE(in);
  std::string line, row;
  while (std::getline(in, line))
    if (line.starts_with("| `ppp.CLASS.compute`")) row = line;
  REQUIRE_FALSE(row.empty());
  CHECK_THAT(row, Catch::Contains("CLASS: " + op_class_names(" ") + "."));
}
